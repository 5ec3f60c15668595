// The supervisor runs real processes: exit codes, signals, output files, time limits,
// --signal warnings, cancellation and privilege dropping are observed, not simulated.
#include "stepd/supervisor.h"

#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

namespace drover::stepd {
namespace {

namespace fs = std::filesystem;

class SupervisorTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { blockSupervisorSignals(); }

  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("drover-stepd-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    fs::permissions(dir_, fs::perms::all);  // the privilege-drop test writes as nobody
    opts_.spool_dir = (dir_ / "spool").string();
    opts_.node_name = "node1";
    opts_.usage_sample_ms = 100;
  }
  void TearDown() override { fs::remove_all(dir_); }

  drover::v1::LaunchStepRequest batch(const std::string& script) {
    drover::v1::LaunchStepRequest req;
    req.mutable_step()->set_job_id(7);
    req.mutable_step()->set_step_id(kBatchStepId);
    req.set_uid(getuid());
    req.set_gid(getgid());
    req.set_user("root");
    req.set_script(script);
    req.set_work_dir(dir_.string());
    req.set_std_out((dir_ / "out.txt").string());
    req.set_kill_wait_s(1);
    req.set_num_tasks(1);
    (*req.mutable_environment())["PATH"] = "/usr/bin:/bin";
    return req;
  }

  std::string readFile(const std::string& name) {
    std::ifstream in(dir_ / name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  fs::path dir_;
  SupervisorOptions opts_;
};

TEST_F(SupervisorTest, ExitCodeOfTheBatchShell) {
  auto out = runStep(batch("#!/bin/sh\necho hello\nexit 3\n"), opts_);
  EXPECT_TRUE(out.started);
  EXPECT_EQ(out.exit_code, 3);
  EXPECT_EQ(out.exit_signal, 0);
  EXPECT_EQ(readFile("out.txt"), "hello\n");
}

// The script is one root-written file in the spool dir while the step runs, and is removed
// when it ends (as Slurm's slurm_script).
TEST_F(SupervisorTest, BatchScriptLivesInTheSpoolWhileTheStepRuns) {
  const std::string path = batchScriptPath(opts_.spool_dir, 7);
  EXPECT_EQ(path, opts_.spool_dir + "/job7.script");
  auto out = runStep(batch("#!/bin/sh\necho \"$0\"\nls -l \"$0\" | cut -c1-10\n"), opts_);
  ASSERT_TRUE(out.started) << out.start_error;
  EXPECT_EQ(readFile("out.txt"), path + "\n-rwx------\n");
  EXPECT_FALSE(fs::exists(path)) << "the script outlived its step";
}

// Root never writes the script through a link someone left at its path.
TEST_F(SupervisorTest, BatchScriptIsNotWrittenThroughASymlink) {
  fs::create_directories(opts_.spool_dir);
  std::ofstream(dir_ / "precious") << "keep\n";
  fs::create_symlink(dir_ / "precious", batchScriptPath(opts_.spool_dir, 7));
  auto out = runStep(batch("#!/bin/sh\ntrue\n"), opts_);
  EXPECT_FALSE(out.started);
  EXPECT_NE(out.start_error.find("cannot write batch script"), std::string::npos)
      << out.start_error;
  EXPECT_EQ(readFile("precious"), "keep\n");
}

TEST_F(SupervisorTest, SignalThatEndedTheTask) {
  auto out = runStep(batch("#!/bin/sh\nkill -9 $$\n"), opts_);
  EXPECT_EQ(out.exit_signal, 9);
}

TEST_F(SupervisorTest, TaskVariablesAreSet) {
  auto req = batch("#!/bin/sh\necho \"$SLURM_PROCID $SLURMD_NODENAME $SLURM_TASK_PID $$\"\n");
  (*req.mutable_environment())["SLURM_JOB_ID"] = "7";
  auto out = runStep(req, opts_);
  ASSERT_TRUE(out.started) << out.start_error;
  std::istringstream words(readFile("out.txt"));
  std::string rank, node, task_pid, shell_pid;
  words >> rank >> node >> task_pid >> shell_pid;
  EXPECT_EQ(rank, "0");
  EXPECT_EQ(node, "node1");
  EXPECT_EQ(task_pid, shell_pid);
}

TEST_F(SupervisorTest, AppendModeKeepsEarlierOutput) {
  std::ofstream(dir_ / "out.txt") << "before\n";
  auto req = batch("#!/bin/sh\necho after\n");
  req.set_open_append(true);
  runStep(req, opts_);
  EXPECT_EQ(readFile("out.txt"), "before\nafter\n");
}

TEST_F(SupervisorTest, UnopenableOutputFileIsAStartError) {
  auto req = batch("#!/bin/sh\ntrue\n");
  req.set_std_out((dir_ / "missing-dir" / "out.txt").string());
  auto out = runStep(req, opts_);
  EXPECT_FALSE(out.started);
  EXPECT_NE(out.start_error.find("could not open output file"), std::string::npos)
      << out.start_error;
  EXPECT_NE(out.start_error.find("No such file or directory"), std::string::npos);
}

TEST_F(SupervisorTest, MissingCommandIsAStartError) {
  drover::v1::LaunchStepRequest req = batch("");
  req.mutable_step()->set_step_id(0);
  req.add_argv("/nonexistent/program");
  auto out = runStep(req, opts_);
  EXPECT_FALSE(out.started);
  EXPECT_NE(out.start_error.find("/nonexistent/program"), std::string::npos);
}

TEST_F(SupervisorTest, TimeLimitTerminatesAndKills) {
  // The script ignores SIGTERM, so only SIGKILL after the kill wait ends it.
  auto req = batch("#!/bin/sh\ntrap '' TERM\nwhile :; do sleep 0.1; done\n");
  req.set_time_limit_s(1);
  req.set_kill_wait_s(1);
  const auto begin = std::chrono::steady_clock::now();
  auto out = runStep(req, opts_);
  const auto took = std::chrono::steady_clock::now() - begin;
  EXPECT_TRUE(out.timed_out);
  EXPECT_LT(took, std::chrono::seconds(5));
  EXPECT_GE(took, std::chrono::milliseconds(1900));
}

TEST_F(SupervisorTest, SignalBeforeTheLimitReachesTheBatchShell) {
  auto req = batch("#!/bin/bash\ntrap 'echo got-usr1; exit 0' USR1\nwhile :; do sleep 0.1; done\n");
  req.set_time_limit_s(3);
  req.set_signal_number(SIGUSR1);
  req.set_signal_seconds(2);
  req.set_signal_batch_only(true);
  auto out = runStep(req, opts_);
  EXPECT_FALSE(out.timed_out);
  EXPECT_EQ(out.exit_code, 0);
  EXPECT_EQ(readFile("out.txt"), "got-usr1\n");
}

TEST_F(SupervisorTest, CancelBySigterm) {
  auto req = batch("#!/bin/sh\nsleep 30\n");
  std::thread canceller([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    kill(getpid(), SIGTERM);
  });
  auto out = runStep(req, opts_);
  canceller.join();
  EXPECT_TRUE(out.cancelled);
  EXPECT_EQ(out.exit_signal, SIGTERM);
}

// The agent queues a cancel's SIGTERM with why (StepTable::signal): the step's stderr then gets
// Slurm's line (cancel_notice.h), written as the user by a helper the step's end waits for: the
// line is in the file when the step ends (a requeued job may start again at once and append to
// the same file). A bare SIGTERM (from anyone else) and an ordinary end write nothing.
TEST_F(SupervisorTest, CancelsAndTheTimeLimitSayWhyOnTheStepsStderr) {
  const std::string head = "drover-stepd-node1: error: *** JOB 7 ON node1 CANCELLED AT ";
  for (auto [reason, tail] : {std::pair{v1::SignalStepRequest::CANCELLED, std::string(" ***\n")},
                              std::pair{v1::SignalStepRequest::REQUEUED,
                                        std::string(" DUE TO JOB REQUEUE ***\n")}}) {
    auto req = batch("#!/bin/sh\necho started\nsleep 30\n");
    std::thread canceller([reason] {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      sigval value{};
      value.sival_int = reason;
      sigqueue(getpid(), SIGTERM, value);
    });
    auto out = runStep(req, opts_);
    canceller.join();
    EXPECT_TRUE(out.cancelled);
    const std::string text = readFile("out.txt");
    ASSERT_EQ(text.rfind("started\n" + head, 0), 0u) << text;
    EXPECT_EQ(text.size(), std::string("started\n").size() + head.size() +
                               std::string("2026-12-04T00:14:35").size() + tail.size())
        << text;
    EXPECT_EQ(text.substr(text.size() - tail.size()), tail) << text;
  }

  auto limited = batch("#!/bin/sh\nsleep 30\n");
  limited.set_time_limit_s(1);
  EXPECT_TRUE(runStep(limited, opts_).timed_out);
  EXPECT_NE(readFile("out.txt").find(head), std::string::npos);
  EXPECT_NE(readFile("out.txt").find("DUE TO TIME LIMIT ***\n"), std::string::npos);

  auto quiet = batch("#!/bin/sh\nsleep 30\n");
  std::thread killer([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    kill(getpid(), SIGTERM);
  });
  EXPECT_TRUE(runStep(quiet, opts_).cancelled);
  killer.join();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(readFile("out.txt"), "");
}

// scancel JOB.STEP: SIGKILL at once (the reference's step ended 0:9), not SIGTERM and the kill
// wait, even for a task that ignores SIGTERM.
TEST_F(SupervisorTest, AStepCancelledAtOnceIsKilled) {
  auto req = batch("#!/bin/sh\ntrap '' TERM\nwhile :; do sleep 0.1; done\n");
  req.set_kill_wait_s(30);
  std::thread canceller([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    sigval value{};
    value.sival_int = v1::SignalStepRequest::CANCELLED | kKillAtOnceFlag;
    sigqueue(getpid(), SIGTERM, value);
  });
  const auto begin = std::chrono::steady_clock::now();
  auto out = runStep(req, opts_);
  canceller.join();
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(5));
  EXPECT_TRUE(out.cancelled);
  EXPECT_EQ(out.exit_signal, SIGKILL);
}

TEST_F(SupervisorTest, ForwardedSignalWithPayload) {
  auto req = batch("#!/bin/bash\ntrap 'echo got-usr2; exit 5' USR2\nwhile :; do sleep 0.1; done\n");
  std::thread sender([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    sigval value{};
    value.sival_int = SIGUSR2 | kBatchShellOnlyFlag;
    sigqueue(getpid(), SIGRTMIN, value);
  });
  auto out = runStep(req, opts_);
  sender.join();
  EXPECT_EQ(out.exit_code, 5);
  EXPECT_EQ(readFile("out.txt"), "got-usr2\n");
}

TEST_F(SupervisorTest, RunsAsTheSubmittingUser) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to change user";
  passwd* nobody = getpwnam("nobody");
  ASSERT_NE(nobody, nullptr);
  auto req = batch("#!/bin/sh\nid -u\n");
  req.set_uid(nobody->pw_uid);
  req.set_gid(nobody->pw_gid);
  req.set_user("nobody");
  auto out = runStep(req, opts_);
  ASSERT_TRUE(out.started) << out.start_error;
  EXPECT_EQ(readFile("out.txt"), std::to_string(nobody->pw_uid) + "\n");
  struct stat st {};
  ASSERT_EQ(stat((dir_ / "out.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, nobody->pw_uid);
}

// The agent's groups (drover-stepd --groups) are the task's supplementary groups: a static
// supervisor does not look them up itself.
TEST_F(SupervisorTest, GroupsFromTheAgentAreTheTasksGroups) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to change user";
  passwd* nobody = getpwnam("nobody");
  ASSERT_NE(nobody, nullptr);
  auto req = batch("#!/bin/sh\nid -G\n");
  req.set_uid(nobody->pw_uid);
  req.set_gid(nobody->pw_gid);
  req.set_user("nobody");
  opts_.groups = std::vector<gid_t>{nobody->pw_gid, 4242};
  auto out = runStep(req, opts_);
  ASSERT_TRUE(out.started) << out.start_error;
  EXPECT_EQ(readFile("out.txt"), std::to_string(nobody->pw_gid) + " 4242\n");
}

TEST_F(SupervisorTest, SeveralTasksGetTheirRanks) {
  drover::v1::LaunchStepRequest req = batch("");
  req.mutable_step()->set_step_id(0);
  req.add_argv("/bin/sh");
  req.add_argv("-c");
  req.add_argv("echo $SLURM_PROCID:$SLURM_LOCALID:$SLURM_GTIDS; exit $SLURM_LOCALID");
  req.set_num_tasks(3);
  req.set_first_task(4);
  req.set_open_append(true);
  auto out = runStep(req, opts_);
  ASSERT_TRUE(out.started) << out.start_error;
  EXPECT_EQ(out.exit_code, 2);  // the highest task exit code
  std::string text = readFile("out.txt");
  for (const char* line : {"4:0:4,5,6\n", "5:1:4,5,6\n", "6:2:4,5,6\n"})
    EXPECT_NE(text.find(line), std::string::npos) << text;
}

TEST_F(SupervisorTest, NumberedStepRunsItsListedRanksWithPerTaskFilesAndPytorchVariables) {
  drover::v1::LaunchStepRequest req = batch("");
  req.mutable_step()->set_step_id(3);
  req.add_argv("/bin/sh");
  req.add_argv("-c");
  req.add_argv("echo $SLURM_PROCID:$SLURM_LOCALID:$RANK:$LOCAL_RANK:$GROUP_RANK:$SLURM_GTIDS");
  req.set_std_out((dir_ / "task.%j.%s.%t").string());
  req.set_node_id(1);
  req.set_num_tasks(2);
  req.add_task_ranks(1);  // cyclic over two nodes: this node runs ranks 1 and 3
  req.add_task_ranks(3);
  req.set_pytorch_env(true);
  auto out = runStep(req, opts_);
  ASSERT_TRUE(out.started) << out.start_error;
  EXPECT_EQ(readFile("task.7.3.1"), "1:0:1:0:1:1,3\n");
  EXPECT_EQ(readFile("task.7.3.3"), "3:1:3:1:1:1,3\n");
}

// srun --multi-prog: each task runs its own argv (task_argv, in task_ranks order) with the
// usual task variables; argv is empty.
TEST_F(SupervisorTest, EachTaskRunsItsOwnArgvUnderMultiProg) {
  drover::v1::LaunchStepRequest req = batch("");
  req.mutable_step()->set_step_id(2);
  req.set_std_out((dir_ / "task.%t").string());
  req.set_num_tasks(2);
  req.add_task_ranks(1);
  req.add_task_ranks(3);
  auto* first = req.add_task_argv();
  first->add_argv("echo");
  first->add_argv("one");
  auto* second = req.add_task_argv();
  second->add_argv("/bin/sh");
  second->add_argv("-c");
  second->add_argv("echo three $SLURM_PROCID:$SLURM_LOCALID; exit 4");
  auto out = runStep(req, opts_);
  ASSERT_TRUE(out.started) << out.start_error;
  EXPECT_EQ(out.exit_code, 4);
  EXPECT_EQ(readFile("task.1"), "one\n");
  EXPECT_EQ(readFile("task.3"), "three 3:1\n");
}

TEST_F(SupervisorTest, MultiProgArgvForAnotherTaskCountIsAStartError) {
  drover::v1::LaunchStepRequest req = batch("");
  req.mutable_step()->set_step_id(2);
  req.set_num_tasks(2);
  req.add_task_argv()->add_argv("true");
  auto out = runStep(req, opts_);
  EXPECT_FALSE(out.started);
  EXPECT_NE(out.start_error.find("1 task programs (--multi-prog) for 2 tasks"), std::string::npos)
      << out.start_error;
}

TEST_F(SupervisorTest, TheBatchScriptRunsOnceWhateverTheTasksOnItsNode) {
  drover::v1::LaunchStepRequest req = batch("#!/bin/sh\necho once\n");
  req.set_num_tasks(4);  // the job's tasks on the batch host
  auto out = runStep(req, opts_);
  ASSERT_TRUE(out.started) << out.start_error;
  EXPECT_EQ(readFile("out.txt"), "once\n");
}

}  // namespace
}  // namespace drover::stepd
