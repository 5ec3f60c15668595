// srun's and salloc's pure pieces: the parsed request as StepSpec and as an allocation's JobSpec,
// where stdin goes, task lists in messages, refusals against Slurm's captured outputs (golden
// 008, 014, 015), the exit status split for CompleteAllocation, and salloc's variables.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <csignal>
#include <fstream>
#include <sstream>

#include "cli/salloc.h"
#include "cli/salloc_env.h"
#include "cli/srun_step.h"
#include "jobspec/build_spec.h"

namespace drover::cli {
namespace {

std::string goldenStderr(const std::string& file) {
  std::ifstream in(std::string(DROVER_CLI_GOLDEN_DIR) + "/" + file);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const auto e = text.find("# [stderr]\n");
  return e == std::string::npos ? "" : text.substr(e + 11);
}

jobspec::StepRequest srunRequest(const std::vector<std::string>& args, const jobspec::EnvMap& env = {}) {
  auto r = jobspec::buildStepRequest(args, env, 1'700'000'000);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().text);
  return r.ok() ? *r : jobspec::StepRequest{};
}

StepContext context() {
  StepContext c;
  c.environment = {{"HOME", "/home/alice"}, {"PATH", "/usr/bin"}, {"SLURM_JOB_ID", "7"}};
  c.cwd = "/work/alice";
  c.host = "login1";
  c.submit_line = "srun hostname";
  return c;
}

TEST(SrunStepTest, LayoutOptionsGoIntoTheStepSpec) {
  auto req = srunRequest({"-N", "2", "-n", "4", "-c", "2", "-m", "cyclic", "-w", "node[1-2]", "--overlap",
                          "--gpus-per-task=1", "--mem=100", "-t", "5", "-K", "--mpi=pmi2",
                          "--cpu-bind=cores", "-o", "out-%t.txt", "hostname", "-s"});
  auto s = toStepSpec(req, context(), 7, true);
  EXPECT_EQ(s.job_id(), 7u);
  EXPECT_EQ(s.name(), "hostname");
  EXPECT_EQ(s.min_nodes(), 2u);
  EXPECT_EQ(s.ntasks(), 4u);
  EXPECT_EQ(s.cpus_per_task(), 2u);
  EXPECT_EQ(s.distribution(), "cyclic");
  EXPECT_EQ(s.nodelist(), "node[1-2]");
  EXPECT_TRUE(s.overlap());
  EXPECT_FALSE(s.exclusive());
  EXPECT_EQ(s.gpus_per_task().count(), 1u);
  EXPECT_EQ(s.mem_per_node_mb(), 100u);
  EXPECT_EQ(s.time_limit_min(), 5);
  EXPECT_TRUE(s.kill_on_bad_exit());
  EXPECT_EQ(s.mpi(), "pmi2");
  EXPECT_EQ(s.cpu_bind(), "cores");
  EXPECT_EQ(s.std_out(), "out-%t.txt");
  EXPECT_EQ(s.work_dir(), "/work/alice");
  ASSERT_EQ(s.argv_size(), 2);
  EXPECT_EQ(s.argv(1), "-s");  // options after the command are the command's
  EXPECT_EQ(s.environment().at("HOME"), "/home/alice");
  EXPECT_EQ(s.submit_line(), "srun hostname");
}

// srun's own variables for its tasks, as Slurm's srun sets them (goldens 049-051).
TEST(SrunStepTest, SrunsOwnVariables) {
  const mode_t old = ::umask(022);
  auto plain = toStepSpec(srunRequest({"hostname"}), context(), 7, true);
  auto labelled = toStepSpec(srunRequest({"-l", "hostname"}), context(), 7, true);
  ::umask(old);
  EXPECT_EQ(plain.environment().at("SLURM_UMASK"), "0022");
  EXPECT_EQ(plain.environment().at("SRUN_DEBUG"), "3");
  EXPECT_EQ(plain.environment().count("SLURM_LABELIO"), 0u);
  EXPECT_EQ(labelled.environment().at("SLURM_LABELIO"), "1");
}

TEST(SrunStepTest, PtyAsksForATerminalForTaskZero) {
  EXPECT_TRUE(toStepSpec(srunRequest({"--pty", "bash", "-i"}), context(), 7, true).pty());
  EXPECT_FALSE(toStepSpec(srunRequest({"bash"}), context(), 7, true).pty());
}

// The size and Slurm's SLURM_PTY_* variables (checked against Slurm 22.05's srun --pty: every
// task has SLURM_PTY_PORT, SLURM_PTY_WIN_ROW and SLURM_PTY_WIN_COL).
TEST(SrunStepTest, PtyRequestCarriesTheSizeAndSlurmsVariables) {
  auto s = toStepSpec(srunRequest({"--pty", "bash"}), context(), 7, true);
  setPtyRequest(s, 37, 111, 40123);
  EXPECT_TRUE(s.pty());
  EXPECT_EQ(s.pty_rows(), 37u);
  EXPECT_EQ(s.pty_cols(), 111u);
  EXPECT_EQ(s.environment().at("SLURM_PTY_WIN_ROW"), "37");
  EXPECT_EQ(s.environment().at("SLURM_PTY_WIN_COL"), "111");
  EXPECT_EQ(s.environment().at("SLURM_PTY_PORT"), "40123");
  auto unknown = toStepSpec(srunRequest({"--pty", "bash"}), context(), 7, true);
  setPtyRequest(unknown, 0, 0, 40123);  // no terminal to ask: the kernel's default size
  EXPECT_EQ(unknown.pty_rows(), 0u);
  EXPECT_EQ(unknown.environment().count("SLURM_PTY_WIN_ROW"), 0u);
  EXPECT_EQ(unknown.environment().at("SLURM_PTY_PORT"), "40123");
}

TEST(SrunStepTest, ExportAndChdir) {
  auto req = srunRequest({"--export=NONE,FOO=bar", "-D", "sub", "/bin/true"});
  auto s = toStepSpec(req, context(), 7, true);
  EXPECT_EQ(s.environment().count("HOME"), 0u);
  EXPECT_EQ(s.environment().at("FOO"), "bar");
  EXPECT_EQ(s.environment().at("SLURM_JOB_ID"), "7");  // SLURM_* always, as Slurm
  EXPECT_EQ(s.work_dir(), "/work/alice/sub");
  EXPECT_EQ(s.name(), "true");
}

TEST(SrunStepTest, JobNameFromTheEnvironmentIsIgnoredInsideAnAllocation) {
  jobspec::EnvMap env{{"SLURM_JOB_NAME", "batchjob"}, {"SLURM_JOB_ID", "9"}};
  auto req = srunRequest({"hostname"}, env);
  EXPECT_EQ(allocationJobId(req.spec), std::optional<std::uint64_t>(9));
  EXPECT_EQ(stepName(req, true), "hostname");
  // Outside a job SLURM_JOB_NAME is -J (the parser drops it when SLURM_JOB_ID is set).
  auto outside = srunRequest({"hostname"}, {{"SLURM_JOB_NAME", "mine"}});
  EXPECT_EQ(stepName(outside, false), "mine");
  auto named = srunRequest({"-J", "mine", "hostname"}, env);
  EXPECT_EQ(stepName(named, true), "mine");
}

// Golden 046: `srun -n 1 false` in a job of 2 nodes (SLURM_NNODES=2 is srun's -N there).
TEST(SrunStepTest, FewerTasksThanNodesSetsTheNodeCountWithSlurmsWarning) {
  struct Case {
    std::vector<std::string> args;
    jobspec::EnvMap env;
    std::optional<std::string> warning;
    std::uint32_t min, max;
  };
  const jobspec::EnvMap job{{"SLURM_JOB_ID", "9"}, {"SLURM_NNODES", "2"}, {"SLURM_NTASKS", "4"}};
  const std::vector<Case> cases = {
      {{"-n", "1", "false"}, job,
       "srun: Warning: can't run 1 processes on 2 nodes, setting nnodes to 1\n", 1, 0},
      {{"-n", "2", "sleep", "1"}, job, std::nullopt, 2, 0},
      {{"hostname"}, job, std::nullopt, 2, 0},
      {{"-N", "3", "-n", "2", "hostname"}, {},
       "srun: Warning: can't run 2 processes on 3 nodes, setting nnodes to 2\n", 2, 0},
      {{"-N", "2-4", "-n", "1", "hostname"}, {},
       "srun: Warning: can't run 1 processes on 2 nodes, setting nnodes to 1\n", 1, 1},
      {{"-N", "2-4", "-n", "3", "hostname"}, {}, std::nullopt, 2, 4},
  };
  for (const Case& c : cases) {
    auto req = srunRequest(c.args, c.env);
    EXPECT_EQ(jobspec::fitNodesToTasks(jobspec::Tool::Srun, req.spec), c.warning) << c.args.front() << c.args[1];
    ASSERT_TRUE(req.spec.nodes.has_value());
    EXPECT_EQ(req.spec.nodes->min, c.min) << c.args.front() << c.args[1];
    EXPECT_EQ(req.spec.nodes->max, c.max) << c.args.front() << c.args[1];
    if (c.warning) {
      EXPECT_EQ(toStepSpec(req, context(), 9, true).min_nodes(), c.min);
    }
  }
  auto plain = srunRequest({"-n", "4", "hostname"});
  EXPECT_EQ(jobspec::fitNodesToTasks(jobspec::Tool::Srun, plain.spec), std::nullopt);
  EXPECT_FALSE(plain.spec.nodes.has_value());
}

TEST(SrunStepTest, NoJobIdOutsideAnAllocation) {
  EXPECT_FALSE(allocationJobId(srunRequest({"hostname"}).spec));
  EXPECT_EQ(allocationJobId(srunRequest({"--jobid=12", "hostname"}).spec), std::optional<std::uint64_t>(12));
}

TEST(SrunStepTest, AllocationSpecIsInteractiveAndNamedAfterTheCommand) {
  auto req = srunRequest({"-N", "2", "-p", "gpu", "-o", "x-%t", "python3", "train.py"});
  auto j = toAllocationSpec(req, context(), "srun");
  EXPECT_FALSE(j.batch());
  EXPECT_TRUE(j.script().empty());
  EXPECT_EQ(j.name(), "python3");
  EXPECT_EQ(j.min_nodes(), 2u);
  EXPECT_EQ(j.partition(), "gpu");
  EXPECT_TRUE(j.std_out().empty());  // per-task patterns are the step's
  EXPECT_EQ(j.work_dir(), "/work/alice");
  jobspec::StepRequest none;
  EXPECT_EQ(toAllocationSpec(none, context(), "salloc").name(), "salloc");
}

TEST(SallocTest, RingsTheBellAsSallocDocumentsIt) {
  using std::chrono::seconds;
  // Default: only after more than ten seconds pending.
  EXPECT_FALSE(ringsBell(std::nullopt, true, seconds(0)));
  EXPECT_FALSE(ringsBell(std::nullopt, true, seconds(10)));
  EXPECT_TRUE(ringsBell(std::nullopt, true, seconds(11)));
  EXPECT_TRUE(ringsBell(true, true, seconds(0)));
  EXPECT_FALSE(ringsBell(false, true, seconds(60)));
  // Never when stdout is not a terminal, even with --bell.
  EXPECT_FALSE(ringsBell(true, false, seconds(0)));
  EXPECT_FALSE(ringsBell(std::nullopt, false, seconds(60)));
}

TEST(SrunStepTest, StdinPlan) {
  struct Case {
    std::vector<std::string> args;
    stepio::StdinMode mode;
    std::optional<std::string> file;
    std::uint32_t task = 0;
  };
  const std::vector<Case> cases = {
      {{"cat"}, stepio::StdinMode::kOneTask, std::nullopt},
      {{"-i", "all", "cat"}, stepio::StdinMode::kAllTasks, std::nullopt},
      {{"-i", "none", "cat"}, stepio::StdinMode::kNone, std::nullopt},
      {{"-i", "0", "cat"}, stepio::StdinMode::kOneTask, std::nullopt},
      {{"-i", "3", "cat"}, stepio::StdinMode::kOneTask, std::nullopt, 3},
      {{"-i", "in-%t.txt", "cat"}, stepio::StdinMode::kNone, std::string("in-%t.txt")},
  };
  for (const auto& c : cases) {
    auto req = srunRequest(c.args);
    auto plan = stdinPlan(req.spec);
    EXPECT_EQ(plan.mode, c.mode) << c.args[1];
    EXPECT_EQ(plan.file_pattern, c.file) << c.args[1];
    EXPECT_EQ(plan.task, c.task) << c.args[1];
    EXPECT_EQ(toStepSpec(req, context(), 1, true).std_in(), c.file.value_or(""));
  }
}

TEST(SrunStepTest, CompressRanks) {
  EXPECT_EQ(compressRanks({}), "");
  EXPECT_EQ(compressRanks({3}), "3");
  EXPECT_EQ(compressRanks({0, 1, 2, 3}), "0-3");
  EXPECT_EQ(compressRanks({5, 0, 1, 7, 8, 3}), "0-1,3,5,7-8");
}

TEST(SrunStepTest, AllocationFailuresMatchGoldens) {
  EXPECT_EQ(formatAllocFailure("srun", "invalid partition specified: nosuch\nInvalid partition name specified"),
            goldenStderr("008-err-srun-unknown-partition.txt"));
  EXPECT_EQ(formatAllocFailure("srun", "Node count specification invalid"),
            goldenStderr("014-err-srun-too-many-nodes.txt"));
  EXPECT_EQ(formatAllocFailure("srun", "Batch job submission failed: More processors requested than permitted"),
            goldenStderr("015-err-too-many-tasks.txt"));
  EXPECT_EQ(formatAllocFailure("salloc", "Requested node configuration is not available"),
            "salloc: error: Job submit/allocate failed: Requested node configuration is not available\n");
}

TEST(SrunStepTest, TasksEndedTogetherMakeOneLinePerNodeAndOutcome) {
  auto end = [](std::uint32_t rank, int code, const char* node = "node01", int signal = 0) {
    stepio::TaskEnd e;
    e.rank = rank;
    e.node_name = node;
    e.exit_code = code;
    e.signal = signal;
    return e;
  };
  const std::vector<stepio::TaskEnd> ends = {end(2, 1), end(3, 1, "node02"), end(0, 1), end(4, 0),
                                             end(1, 2), end(5, 1), end(6, 0, "node01", SIGKILL)};
  EXPECT_EQ(taskEndLines(ends),
            (std::vector<std::string>{"srun: error: node01: tasks 0,2,5: Exited with exit code 1",
                                      "srun: error: node02: task 3: Exited with exit code 1",
                                      "srun: error: node01: task 1: Exited with exit code 2",
                                      "srun: error: node01: task 6: Killed"}));
  EXPECT_EQ(taskEndLines({end(0, 1), end(1, 1), end(2, 1)}),
            (std::vector<std::string>{"srun: error: node01: tasks 0-2: Exited with exit code 1"}));
}

TEST(SrunStepTest, StepFailure) {
  // A job that is gone or never was: the reference's words (srun --jobid=99999, and a job
  // that had ended).
  EXPECT_EQ(formatStepFailure(99999, "Invalid job id specified"),
            "srun: error: Unable to confirm allocation for job 99999: Invalid job id specified\n"
            "srun: Check SLURM_JOB_ID environment variable. Expired or invalid job 99999\n");
  EXPECT_EQ(formatStepFailure(93, "Job/step already completing or completed"),
            "srun: error: Slurm job 93 has expired\n"
            "srun: Check SLURM_JOB_ID environment variable. Expired or invalid job 93\n");
  EXPECT_EQ(formatStepFailure(7, "Requested node configuration is not available"),
            "srun: error: Unable to create step for job 7: Requested node configuration is not available\n");
}

TEST(SrunStepTest, AllocationEnd) {
  EXPECT_EQ(allocationEndOf(0).exit_code, 0);
  EXPECT_EQ(allocationEndOf(3).exit_code, 3);
  EXPECT_EQ(allocationEndOf(137).signal, 9);
  EXPECT_EQ(allocationEndOf(137).exit_code, 0);
}

// srun listens before the controller lays the step out, then sets the real task count; tasks
// of a node whose launch failed end as lost.
TEST(SrunStepTest, StepIoServerTaskCountAndLostTasks) {
  stepio::StepIoOptions o;
  o.listen_host = "127.0.0.1";
  o.stdin_fd = -1;
  auto server = stepio::StepIoServer::listen(o);
  ASSERT_TRUE(server.ok()) << server.error();
  (*server)->setNumTasks(3);
  (*server)->markLost({1, 2}, "node2");
  EXPECT_FALSE((*server)->done());
  const auto ends = (*server)->taskEnds();
  ASSERT_EQ(ends.size(), 2u);
  EXPECT_TRUE(ends[0].lost);
  EXPECT_EQ(ends[1].node_name, "node2");
  EXPECT_EQ(stepio::srunExitCode(ends), 1);
  (*server)->markLost({0}, "node1");
  EXPECT_TRUE((*server)->done());
}

TEST(SallocEnvTest, JobVariablesWithoutNodeOnlyOnes) {
  v1::JobInfo job;
  job.set_job_id(42);
  job.set_name("bash");
  job.set_partition("gpu");
  job.set_account("lab");
  job.set_user("alice");
  job.set_uid(1000);
  job.set_gid(1000);
  for (const char* n : {"node1", "node2"}) {
    auto* a = job.add_allocation();
    a->set_node(n);
    a->set_cpus(4);
    a->set_tasks(2);
    a->add_gpu_indices(0);
  }
  job.mutable_spec()->set_ntasks(4);
  SallocContext ctx;
  ctx.cluster_name = "drover";
  ctx.conf_path = "/etc/drover/cluster.conf";
  ctx.submit_dir = "/work/alice";
  ctx.submit_host = "login1";
  auto env = sallocVariables(job, ctx);
  EXPECT_EQ(env.at("SLURM_JOB_ID"), "42");
  EXPECT_EQ(env.at("SLURM_JOBID"), "42");
  EXPECT_EQ(env.at("SLURM_JOB_NODELIST"), "node[1-2]");
  EXPECT_EQ(env.at("SLURM_NNODES"), "2");
  EXPECT_EQ(env.at("SLURM_NTASKS"), "4");
  EXPECT_EQ(env.at("SLURM_JOB_CPUS_PER_NODE"), "4(x2)");
  EXPECT_EQ(env.at("SLURM_TASKS_PER_NODE"), "2(x2)");
  EXPECT_EQ(env.at("SLURM_JOB_PARTITION"), "gpu");
  EXPECT_EQ(env.at("SLURM_CLUSTER_NAME"), "drover");
  EXPECT_EQ(env.at("SLURM_SUBMIT_DIR"), "/work/alice");
  for (const char* absent : {"SLURMD_NODENAME", "CUDA_VISIBLE_DEVICES", "SLURM_CPUS_ON_NODE", "HOSTNAME",
                             "ENVIRONMENT", "SLURM_NODEID", "SLURM_PROCID"}) {
    EXPECT_EQ(env.count(absent), 0u) << absent;
  }
}

TEST(SallocEnvTest, NoStepVariablesAndAMemoryPerCpuOnlyWhenGiven) {
  // The reference's salloc shell had no SLURM_JOB_UID/GID/USER, SLURM_PRIO_PROCESS or
  // SLURM_WORKING_CLUSTER (its steps do), and SLURM_MEM_PER_CPU only for --mem-per-cpu, not
  // for the partition default the job's record holds.
  v1::JobInfo job;
  job.set_job_id(42);
  job.set_user("alice");
  job.set_uid(1000);
  job.set_gid(1000);
  job.add_allocation()->set_node("node1");
  job.mutable_spec()->set_mem_per_cpu_mb(4000);
  SallocContext ctx;
  ctx.cluster_name = "drover";
  auto env = sallocVariables(job, ctx);
  for (const char* absent : {"SLURM_JOB_UID", "SLURM_JOB_GID", "SLURM_JOB_USER", "SLURM_PRIO_PROCESS",
                             "SLURM_WORKING_CLUSTER", "SLURM_MEM_PER_CPU"}) {
    EXPECT_EQ(env.count(absent), 0u) << absent;
  }
  ctx.mem_per_cpu_given = true;
  EXPECT_EQ(sallocVariables(job, ctx).at("SLURM_MEM_PER_CPU"), "4000");
}

// -N against -w's distinct hosts, as the reference's clients took them.
TEST(FitNodesToNodelist, RaisesTheLeastRefusesOrTrimsBelowTheMost) {
  auto spec = [](std::string list, std::optional<jobspec::NodeRange> nodes) {
    jobspec::JobSpec s;
    s.nodelist = std::move(list);
    s.nodes = nodes;
    return s;
  };
  auto s = spec("node1,node2", jobspec::NodeRange{1, 3});
  EXPECT_FALSE(jobspec::fitNodesToNodelist(jobspec::Tool::Sbatch, s).refused);
  EXPECT_EQ(s.nodes, (jobspec::NodeRange{2, 3}));
  s = spec("node[1-3]", jobspec::NodeRange{2, 0});
  auto fit = jobspec::fitNodesToNodelist(jobspec::Tool::Sbatch, s);
  EXPECT_TRUE(fit.refused);
  EXPECT_EQ(fit.message, "invalid number of nodes (-N 3-2)");
  fit = jobspec::fitNodesToNodelist(jobspec::Tool::Srun, s);   // srun's: the list trimmed, no refusal
  EXPECT_FALSE(fit.refused);
  EXPECT_EQ(*s.nodelist, "node[1-2]");
  EXPECT_NE(fit.message.find("(3 > 2)"), std::string::npos);
  s = spec("node1,node1", jobspec::NodeRange{1, 0});
  EXPECT_TRUE(jobspec::fitNodesToNodelist(jobspec::Tool::Sbatch, s).message.empty());
  s = spec("node[1-4]", std::nullopt);   // without -N the controller counts the listed nodes
  EXPECT_TRUE(jobspec::fitNodesToNodelist(jobspec::Tool::Sbatch, s).message.empty());
  EXPECT_FALSE(s.nodes);
  s = spec("/etc/hostfile", jobspec::NodeRange{1, 0});
  EXPECT_TRUE(jobspec::fitNodesToNodelist(jobspec::Tool::Sbatch, s).message.empty());
}

// Without -N, -w's hosts are the node count fewer tasks are fitted to: the reference's
// `sbatch -n 2 -w node[01-03]` warned and kept node[01-02], NumNodes=2-2 (2026-12-04).
TEST(FitNodesToTasks, ListedHostsCountAsTheNodesWithoutN) {
  jobspec::JobSpec s;
  s.nodelist = "node[1-3],node1";
  s.ntasks = 2;
  EXPECT_EQ(jobspec::fitNodesToTasks(jobspec::Tool::Sbatch, s),
            "sbatch: Warning: can't run 2 processes on 3 nodes, setting nnodes to 2\n");
  EXPECT_EQ(*s.nodelist, "node[1-2]");
  EXPECT_EQ(s.nodes, (jobspec::NodeRange{2, 2}));
  s = jobspec::JobSpec{};
  s.nodelist = "node[1-2]";
  s.ntasks = 2;
  EXPECT_EQ(jobspec::fitNodesToTasks(jobspec::Tool::Sbatch, s), std::nullopt);
  EXPECT_EQ(*s.nodelist, "node[1-2]");
  EXPECT_FALSE(s.nodes);
  s.nodelist = "/etc/hostfile";   // a file of hosts is read later
  s.ntasks = 1;
  EXPECT_EQ(jobspec::fitNodesToTasks(jobspec::Tool::Sbatch, s), std::nullopt);
}

}  // namespace
}  // namespace drover::cli
