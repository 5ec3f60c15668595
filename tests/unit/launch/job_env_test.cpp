#include "launch/job_env.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace drover::launch {
namespace {

TEST(CompressCounts, RepeatsBecomeMultipliers) {
  struct Case {
    std::vector<std::uint32_t> counts;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {{}, ""},
      {{1}, "1"},
      {{6, 2}, "6,2"},
      {{2, 2}, "2(x2)"},
      {{2, 2, 2, 1}, "2(x3),1"},
      {{1, 2, 2, 1, 1}, "1,2(x2),1(x2)"},
  };
  for (const auto& c : cases) EXPECT_EQ(compressCounts(c.counts), c.expected);
}

JobEnvContext referenceJob() {
  // The job of golden 041 (directives.sh): -N 2 -n 4 -c 2 --gres=gpu:2 --mem=1G.
  JobEnvContext ctx;
  ctx.job_id = 11;
  ctx.job_name = "direct";
  ctx.account = "research";
  ctx.partition = "gpu";
  ctx.user = "alice";
  ctx.uid = 1001;
  ctx.gid = 1001;
  ctx.cluster_name = "oracle";
  ctx.controller_host = "127.0.0.1";
  ctx.controller_port = 6817;
  ctx.submit_dir = "/home/alice/golden-run";
  ctx.submit_host = "vm";
  ctx.nodes = {"node01", "node02"};
  ctx.cpus_per_node = {6, 2};
  ctx.tasks_per_node = {3, 1};
  ctx.gpu_indices = {0, 1};
  ctx.ntasks = 4;
  ctx.cpus_per_task = 2;
  ctx.mem_per_node_mb = 1024;
  return ctx;
}

TEST(BatchJobVariables, MatchesSlurmsBatchEnvironment) {
  Environment env = batchJobVariables(referenceJob());
  const Environment expected = {
      {"CUDA_VISIBLE_DEVICES", "0,1"},
      {"GPU_DEVICE_ORDINAL", "0,1"},
      {"ROCR_VISIBLE_DEVICES", "0,1"},  // the reference's batch step (--gres=gpu:2) had it too
      {"SLURM_CLUSTER_NAME", "oracle"},
      {"SLURM_CPUS_ON_NODE", "6"},
      {"SLURM_CPUS_PER_TASK", "2"},
      {"SLURM_GPUS_ON_NODE", "2"},
      {"SLURM_JOBID", "11"},
      {"SLURM_JOB_ACCOUNT", "research"},
      {"SLURM_JOB_CPUS_PER_NODE", "6,2"},
      {"SLURM_JOB_GID", "1001"},
      {"SLURM_JOB_GPUS", "0,1"},
      {"SLURM_JOB_ID", "11"},
      {"SLURM_JOB_NAME", "direct"},
      {"SLURM_JOB_NODELIST", "node[01-02]"},
      {"SLURM_JOB_NUM_NODES", "2"},
      {"SLURM_JOB_PARTITION", "gpu"},
      {"SLURM_JOB_QOS", "normal"},
      {"SLURM_JOB_UID", "1001"},
      {"SLURM_JOB_USER", "alice"},
      {"SLURM_MEM_PER_NODE", "1024"},
      {"SLURM_NNODES", "2"},
      {"SLURM_NODELIST", "node[01-02]"},
      {"SLURM_NODE_ALIASES", "(null)"},
      {"SLURM_NPROCS", "4"},
      {"SLURM_NTASKS", "4"},
      {"SLURM_PRIO_PROCESS", "0"},
      {"SLURM_SUBMIT_DIR", "/home/alice/golden-run"},
      {"SLURM_SUBMIT_HOST", "vm"},
      {"SLURM_TASKS_PER_NODE", "3,1"},
      {"SLURM_TOPOLOGY_ADDR", "node01"},
      {"SLURM_TOPOLOGY_ADDR_PATTERN", "node"},
      {"SLURM_WORKING_CLUSTER", "oracle:127.0.0.1:6817:9728:109"},
  };
  for (const auto& [key, value] : expected) {
    ASSERT_TRUE(env.count(key)) << key;
    EXPECT_EQ(env[key], value) << key;
  }
  EXPECT_EQ(env["ENVIRONMENT"], "BATCH");
  EXPECT_FALSE(env.count("SLURM_ARRAY_JOB_ID"));
  EXPECT_FALSE(env.count("SLURM_RESTART_COUNT"));
}

TEST(BatchJobVariables, NoGpusMeansNoGpuVariables) {
  JobEnvContext ctx = referenceJob();
  ctx.gpu_indices.clear();
  Environment env = batchJobVariables(ctx);
  for (const char* key : {"CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "ROCR_VISIBLE_DEVICES", "SLURM_JOB_GPUS",
                          "SLURM_GPUS_ON_NODE"})
    EXPECT_FALSE(env.count(key)) << key;
}

TEST(BatchJobVariables, GpuOptionsEchoedOnlyWhenGiven) {
  JobEnvContext ctx = referenceJob();
  Environment plain = batchJobVariables(ctx);
  for (const char* key : {"SLURM_GPUS", "SLURM_GPUS_PER_NODE", "SLURM_GPUS_PER_TASK",
                          "SLURM_CPUS_PER_GPU", "SLURM_MEM_PER_GPU"})
    EXPECT_FALSE(plain.count(key)) << key;
  ctx.gpus = "h100:4";
  ctx.gpus_per_node = "2";
  ctx.gpus_per_task = "1";
  ctx.cpus_per_gpu = 6;
  ctx.mem_per_gpu_mb = 2048;
  Environment env = batchJobVariables(ctx);
  EXPECT_EQ(env["SLURM_GPUS"], "h100:4");
  EXPECT_EQ(env["SLURM_GPUS_PER_NODE"], "2");
  EXPECT_EQ(env["SLURM_GPUS_PER_TASK"], "1");
  EXPECT_EQ(env["SLURM_CPUS_PER_GPU"], "6");
  EXPECT_EQ(env["SLURM_MEM_PER_GPU"], "2048");
}

// Observed on real Slurm 22.05 (the reference cluster's 16-CPU nodes): without -n,
// SLURM_TASKS_PER_NODE counts the tasks the allocated CPUs hold and SLURM_NTASKS is unset;
// with --ntasks-per-node alone both SLURM_NTASKS and SLURM_NPROCS are its total.
TEST(BatchJobVariables, TaskCountsAsSlurmShowsThem) {
  struct Case {
    std::string name;
    std::vector<std::uint32_t> cpus, tasks;
    std::optional<std::uint32_t> ntasks, per_node, cpt;
    std::string tasks_per_node, ntasks_env;  // "" = unset
  };
  const std::vector<Case> cases = {
      {"--exclusive", {16}, {1}, {}, {}, {}, "16", ""},
      {"-c 4", {4}, {1}, {}, {}, 4, "1", ""},
      {"--gpus=2 --cpus-per-gpu=4", {8}, {1}, {}, {}, {}, "8", ""},
      {"-N 1-2", {1, 1}, {1, 1}, {}, {}, {}, "1(x2)", ""},
      {"-N 2 --ntasks-per-node=2", {2, 2}, {2, 2}, {}, 2, {}, "2(x2)", "4"},
      {"-n 2 -c 3", {6}, {2}, 2, {}, 3, "2", "2"},
  };
  for (const auto& c : cases) {
    JobEnvContext ctx = referenceJob();
    ctx.nodes.resize(c.cpus.size(), "n");
    ctx.cpus_per_node = c.cpus;
    ctx.tasks_per_node = c.tasks;
    ctx.ntasks = c.ntasks;
    ctx.ntasks_per_node = c.per_node;
    ctx.cpus_per_task = c.cpt;
    Environment env = batchJobVariables(ctx);
    EXPECT_EQ(env["SLURM_TASKS_PER_NODE"], c.tasks_per_node) << c.name;
    EXPECT_EQ(env.count("SLURM_NTASKS") ? env["SLURM_NTASKS"] : "", c.ntasks_env) << c.name;
    EXPECT_EQ(env.count("SLURM_NPROCS") ? env["SLURM_NPROCS"] : "", c.ntasks_env) << c.name;
  }
}

TEST(BatchJobVariables, ArrayAndRestart) {
  JobEnvContext ctx = referenceJob();
  ctx.array = ArrayContext{10, 3, 4, 0, 6, 2};
  ctx.restart_count = 2;
  Environment env = batchJobVariables(ctx);
  EXPECT_EQ(env["SLURM_ARRAY_JOB_ID"], "10");
  EXPECT_EQ(env["SLURM_ARRAY_TASK_ID"], "3");
  EXPECT_EQ(env["SLURM_ARRAY_TASK_COUNT"], "4");
  EXPECT_EQ(env["SLURM_ARRAY_TASK_MIN"], "0");
  EXPECT_EQ(env["SLURM_ARRAY_TASK_MAX"], "6");
  EXPECT_EQ(env["SLURM_ARRAY_TASK_STEP"], "2");
  EXPECT_EQ(env["SLURM_RESTART_COUNT"], "2");
}

TEST(TaskVariables, RanksAndNode) {
  TaskContext task;
  task.global_rank = 2;
  task.node_id = 1;
  task.node_name = "node02";
  task.node_global_ranks = {2, 3};
  task.pid = 4242;
  Environment env = taskVariables(task);
  EXPECT_EQ(env["SLURM_PROCID"], "2");
  EXPECT_EQ(env["SLURM_LOCALID"], "0");
  EXPECT_EQ(env["SLURM_NODEID"], "1");
  EXPECT_EQ(env["SLURMD_NODENAME"], "node02");
  EXPECT_EQ(env["SLURM_GTIDS"], "2,3");
  EXPECT_EQ(env["SLURM_TASK_PID"], "4242");
}

TEST(TaskVariables, GpusBoundPerTaskReplaceTheNodesList) {
  TaskContext task;
  task.global_rank = 1;
  task.local_rank = 1;
  task.node_name = "node01";
  EXPECT_FALSE(taskVariables(task).count("CUDA_VISIBLE_DEVICES"));  // no binding: the node's list stays
  EXPECT_FALSE(taskVariables(task).count("SLURMD_TRES_BIND"));
  task.bound_gpus = {2, 3};
  task.tres_bind = "gpu:per_task:2";
  Environment env = taskVariables(task);
  // The reference Slurm listed the task's own GPUs in all four (SLURM_STEP_GPUS too).
  EXPECT_EQ(env["CUDA_VISIBLE_DEVICES"], "2,3");
  EXPECT_EQ(env["GPU_DEVICE_ORDINAL"], "2,3");
  EXPECT_EQ(env["ROCR_VISIBLE_DEVICES"], "2,3");
  EXPECT_EQ(env["SLURM_STEP_GPUS"], "2,3");
  EXPECT_EQ(env["SLURMD_TRES_BIND"], "gpu:per_task:2");
  auto rendered = renderEnvironment({{"CUDA_VISIBLE_DEVICES", "0,1,2,3"}, {"SLURM_STEP_GPUS", "0,1,2,3"}}, env);
  EXPECT_NE(std::find(rendered.begin(), rendered.end(), "CUDA_VISIBLE_DEVICES=2,3"), rendered.end());
  EXPECT_NE(std::find(rendered.begin(), rendered.end(), "SLURM_STEP_GPUS=2,3"), rendered.end());
}

TEST(TaskVariables, GpuBindNoneHidesTheStepsGpuLists) {
  // The reference's tasks under --gpu-bind=none had no CUDA_VISIBLE_DEVICES,
  // GPU_DEVICE_ORDINAL, ROCR_VISIBLE_DEVICES nor SLURM_STEP_GPUS; SLURM_GPUS_ON_NODE and (in a
  // batch job) SLURM_JOB_GPUS stayed.
  Environment env = {{"CUDA_VISIBLE_DEVICES", "0,1"}, {"GPU_DEVICE_ORDINAL", "0,1"},
                     {"ROCR_VISIBLE_DEVICES", "0,1"}, {"SLURM_STEP_GPUS", "0,1"},
                     {"SLURM_GPUS_ON_NODE", "2"},     {"SLURM_JOB_GPUS", "0,1"}};
  hideStepGpus(env);
  EXPECT_EQ(env, (Environment{{"SLURM_GPUS_ON_NODE", "2"}, {"SLURM_JOB_GPUS", "0,1"}}));
}

TEST(RenderEnvironment, LaterWinsAndSorted) {
  auto rendered = renderEnvironment({{"A", "1"}, {"B", "2"}}, {{"B", "3"}, {"C", "4"}});
  EXPECT_EQ(rendered, (std::vector<std::string>{"A=1", "B=3", "C=4", "TMPDIR=/tmp"}));
  // A TMPDIR of the job's own is kept.
  rendered = renderEnvironment({{"TMPDIR", "/scratch"}}, {});
  EXPECT_EQ(rendered, (std::vector<std::string>{"TMPDIR=/scratch"}));
}

}  // namespace
}  // namespace drover::launch
