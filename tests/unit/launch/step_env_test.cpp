// A numbered step's environment: Slurm's step variables, the job's variables beneath them,
// the step's GPUs instead of the job's, PyTorch's variables and the MASTER_PORT formula.
#include <gtest/gtest.h>

#include "launch/step_env.h"

namespace drover::launch {
namespace {

JobEnvContext job() {
  JobEnvContext j;
  j.job_id = 4242;
  j.job_name = "train";
  j.user = "alice";
  j.uid = 1001;
  j.cluster_name = "c";
  j.nodes = {"n1", "n2", "n3"};
  j.cpus_per_node = {8, 8, 8};
  j.tasks_per_node = {1, 1, 1};
  j.node_index = 1;
  j.gpu_indices = {0, 1, 2, 3};
  j.ntasks = 3;
  return j;
}

StepEnvContext step() {
  StepEnvContext s;
  s.job_id = 4242;
  s.step_id = 3;
  s.nodes = {"n2", "n3"};
  s.tasks_per_node = {2, 1};
  s.node_index = 0;
  s.ntasks = 3;
  s.cpus_per_task = 2;
  s.gpu_indices = {1, 2};
  s.distribution = "cyclic";
  s.launch_host = "10.1.1.1";
  s.srun_port = "40000";
  s.master_addr = "10.0.0.2";
  return s;
}

TEST(StepEnvTest, StepVariablesOverTheJobsAndTheUsers) {
  Environment user = {{"PATH", "/bin"}, {"SLURM_NNODES", "9"}, {"SLURM_PROCID", "5"},
                      {"ENVIRONMENT", "BATCH"}, {"RANK", "9"}};
  Environment env = stepEnvironment(user, job(), step());
  const std::map<std::string, std::string> want = {
      {"PATH", "/bin"},
      {"ENVIRONMENT", "BATCH"},            // the user's, not set by the step
      {"SLURM_JOB_ID", "4242"},
      {"SLURM_JOB_NODELIST", "n[1-3]"},    // the job's
      {"SLURM_JOB_NUM_NODES", "3"},
      {"SLURM_CPUS_ON_NODE", "8"},
      {"SLURM_STEP_ID", "3"},
      {"SLURM_STEPID", "3"},
      {"SLURM_STEP_NODELIST", "n[2-3]"},
      {"SLURM_NODELIST", "n[2-3]"},        // the step's, as in Slurm's tasks
      {"SLURM_STEP_NUM_NODES", "2"},
      {"SLURM_NNODES", "2"},
      {"SLURM_STEP_NUM_TASKS", "3"},
      {"SLURM_NTASKS", "3"},
      {"SLURM_NPROCS", "3"},
      {"SLURM_STEP_TASKS_PER_NODE", "2,1"},
      {"SLURM_TASKS_PER_NODE", "2,1"},
      {"SLURM_CPUS_PER_TASK", "2"},
      {"SLURM_DISTRIBUTION", "cyclic"},
      {"SLURM_LAUNCH_NODE_IPADDR", "10.1.1.1"},
      {"SLURM_SRUN_COMM_HOST", "10.1.1.1"},
      {"SLURM_SRUN_COMM_PORT", "40000"},
      {"SLURM_STEP_LAUNCHER_PORT", "40000"},
      {"SLURM_STEP_GPUS", "1,2"},
      {"CUDA_VISIBLE_DEVICES", "1,2"},
      {"ROCR_VISIBLE_DEVICES", "1,2"},     // the reference set it with the others
      {"SLURM_GPUS_ON_NODE", "2"},
      {"SLURM_JOB_GPUS", "0,1,2,3"},       // the job's GPUs on this node stay listed
      {"MASTER_ADDR", "10.0.0.2"},
      {"MASTER_PORT", std::to_string(20000 + (4242 * 8 + 3) % 10000)},
      {"WORLD_SIZE", "3"},
      {"LOCAL_WORLD_SIZE", "2"},
  };
  for (const auto& [k, v] : want) {
    ASSERT_EQ(env.count(k), 1u) << k;
    EXPECT_EQ(env.at(k), v) << k;
  }
  for (const char* gone : {"SLURM_PROCID", "HOSTNAME", "RANK", "SLURM_NODE_ALIASES"}) {
    EXPECT_EQ(env.count(gone), 0u) << gone;
  }
}

// srun --gpu-freq: the tasks see SLURMD_TRES_FREQ=gpu:<value>, as the reference's; a surrounding
// step's value does not leak into a step without one.
TEST(StepEnvTest, GpuFreqIsTheStepsOwn) {
  StepEnvContext s = step();
  s.gpu_freq = "medium";
  EXPECT_EQ(stepEnvironment({}, job(), s).at("SLURMD_TRES_FREQ"), "gpu:medium");
  s.gpu_freq.clear();
  EXPECT_EQ(stepEnvironment({{"SLURMD_TRES_FREQ", "gpu:high"}}, job(), s).count("SLURMD_TRES_FREQ"), 0u);
}

TEST(StepEnvTest, StepWithoutGpusHidesTheJobsAndPytorchCanBeOff) {
  StepEnvContext s = step();
  s.gpu_indices.clear();
  s.pytorch = false;
  // The batch shell's GPU lists (and a surrounding step's binding) are not this step's.
  Environment env = stepEnvironment({{"MASTER_ADDR", "mine"},
                                     {"RANK", "1"},
                                     {"ROCR_VISIBLE_DEVICES", "0,1"},
                                     {"SLURMD_TRES_BIND", "gpu:single:1"}},
                                    job(), s);
  EXPECT_EQ(env.count("SLURMD_TRES_BIND"), 0u);
  EXPECT_EQ(env.count("CUDA_VISIBLE_DEVICES"), 0u);
  EXPECT_EQ(env.count("ROCR_VISIBLE_DEVICES"), 0u);
  EXPECT_EQ(env.count("SLURM_GPUS_ON_NODE"), 0u);
  EXPECT_EQ(env.count("SLURM_STEP_GPUS"), 0u);
  EXPECT_EQ(env.count("WORLD_SIZE"), 0u);
  EXPECT_EQ(env.at("MASTER_ADDR"), "mine");  // the user's own values are left alone
  EXPECT_EQ(env.at("RANK"), "1");
}

TEST(StepEnvTest, JobGpusOnlyInTheStepsOfABatchJob) {
  // Golden 041: srun inside a batch job passes SLURM_JOB_GPUS on; golden 051: an srun outside
  // a job sets the step's GPU variables only.
  struct Case { bool batch_job; bool job_gpus; };
  for (const Case& c : std::vector<Case>{{true, true}, {false, false}}) {
    StepEnvContext s = step();
    s.batch_job = c.batch_job;
    Environment env = stepEnvironment({}, job(), s);
    EXPECT_EQ(env.count("SLURM_JOB_GPUS"), c.job_gpus ? 1u : 0u) << c.batch_job;
    EXPECT_EQ(env.at("SLURM_STEP_GPUS"), "1,2");
    EXPECT_EQ(env.at("CUDA_VISIBLE_DEVICES"), "1,2");
    EXPECT_EQ(env.at("GPU_DEVICE_ORDINAL"), "1,2");
  }
}

TEST(StepEnvTest, TheJobsOptionVariablesComeOnlyFromTheStepsSurroundings) {
  // The reference's steps of an allocation srun made had none of them; inside sbatch's and
  // salloc's jobs they come with the shell's environment.
  JobEnvContext j = job();
  j.mem_per_node_mb = 100;
  j.mem_per_gpu_mb = 100;
  j.cpus_per_gpu = 1;
  j.gpus = "2";
  j.gpus_per_node = "2";
  j.gpus_per_task = "1";
  j.gpu_bind = "closest";
  j.ntasks_per_gpu = 1;
  const char* options[] = {"SLURM_MEM_PER_NODE", "SLURM_MEM_PER_GPU", "SLURM_CPUS_PER_GPU", "SLURM_GPUS",
                           "SLURM_GPUS_PER_NODE", "SLURM_GPUS_PER_TASK", "SLURM_GPU_BIND", "SLURM_NTASKS_PER_GPU"};
  Environment env = stepEnvironment({}, j, step());
  for (const char* var : options) EXPECT_EQ(env.count(var), 0u) << var;
  Environment shell;
  for (const char* var : options) shell[var] = "7";
  env = stepEnvironment(shell, j, step());
  for (const char* var : options) EXPECT_EQ(env.at(var), "7") << var;
}

TEST(StepEnvTest, IntelsLevelZeroMaskListsTheStepsGpusToo) {
  EXPECT_EQ(stepEnvironment({}, job(), step()).at("ZE_AFFINITY_MASK"), "1,2");
  JobEnvContext j = job();
  EXPECT_EQ(batchJobVariables(j).at("ZE_AFFINITY_MASK"), "0,1,2,3");
}

TEST(StepEnvTest, MasterPortStaysInItsRangeAndDiffersPerStep) {
  struct Case { std::uint64_t job; std::int64_t step; std::uint16_t port; };
  for (const Case& c : std::vector<Case>{{1, 0, 20008}, {1, 1, 20009}, {2, 0, 20016},
                                         {1250, 0, 20000}, {9999, 7, 20000 + (9999 * 8 + 7) % 10000}}) {
    EXPECT_EQ(masterPort(c.job, c.step), c.port) << c.job << "." << c.step;
  }
  for (std::uint64_t j = 0; j < 5000; j += 7) {
    auto p = masterPort(j, static_cast<std::int64_t>(j % 8));
    EXPECT_GE(p, 20000);
    EXPECT_LE(p, 29999);
  }
}

TEST(StepEnvTest, PlaneSizeAndPerTaskPytorchVariables) {
  StepEnvContext s = step();
  s.distribution = "plane";
  s.plane_size = 4;
  EXPECT_EQ(stepVariables(s).at("SLURM_DIST_PLANESIZE"), "4");
  TaskContext t;
  t.global_rank = 5;
  t.local_rank = 1;
  t.node_id = 2;
  t.pytorch = true;
  Environment env = taskVariables(t);
  EXPECT_EQ(env.at("RANK"), "5");
  EXPECT_EQ(env.at("LOCAL_RANK"), "1");
  EXPECT_EQ(env.at("GROUP_RANK"), "2");
  t.pytorch = false;
  EXPECT_EQ(taskVariables(t).count("RANK"), 0u);
}

}  // namespace
}  // namespace drover::launch
