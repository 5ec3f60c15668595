// srun's I/O path end to end: a real StepIoServer in this process, a real supervisor
// (runStep, on its own thread) running real tasks that connect back over TCP on loopback.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "stepd/supervisor.h"
#include "stepio/step_io_server.h"

namespace drover::stepio {
namespace {

namespace fs = std::filesystem;

struct Finished {
  stepd::StepOutcome outcome;
  std::vector<TaskEnd> ends;
  std::string out, err;
  std::size_t rejected = 0;
  std::size_t nodes = 0;
};

class StepIoTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { stepd::blockSupervisorSignals(); }

  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("drover-stepio-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    opts_.spool_dir = (dir_ / "spool").string();
    opts_.node_name = "node01";
    opts_.usage_sample_ms = 1000;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A numbered step of `ntasks` tasks on one node, each running `sh -c script`.
  drover::v1::LaunchStepRequest step(std::uint32_t ntasks, const std::string& script) {
    drover::v1::LaunchStepRequest req;
    req.mutable_step()->set_job_id(7);
    req.mutable_step()->set_step_id(0);
    req.set_uid(getuid());
    req.set_gid(getgid());
    req.set_user("root");
    req.add_argv("/bin/sh");
    req.add_argv("-c");
    req.add_argv(script);
    req.set_work_dir(dir_.string());
    req.set_kill_wait_s(1);
    req.set_num_tasks(ntasks);
    (*req.mutable_environment())["PATH"] = "/usr/bin:/bin";
    return req;
  }

  std::string readFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  // Runs the step against a server with `options` (num_tasks taken from the request). The
  // server is driven from this thread; `each_round` sees it between poll rounds.
  Finished run(drover::v1::LaunchStepRequest req, StepIoOptions options,
               const std::string& key_override = "",
               const std::function<void(StepIoServer&, const Finished&)>& each_round = {}) {
    Finished result;
    const fs::path out_path = dir_ / "srun.out", err_path = dir_ / "srun.err";
    int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    options.num_tasks = req.num_tasks();
    options.listen_host = "127.0.0.1";
    options.stdout_fd = out;
    options.stderr_fd = err;
    auto server = StepIoServer::listen(options);
    EXPECT_TRUE(server.ok()) << (server.ok() ? "" : server.error());
    if (!server.ok()) return result;
    auto& srv = **server;
    EXPECT_EQ(srv.address(), "127.0.0.1:" + std::to_string(srv.port()));
    req.set_io_address(srv.address());
    req.set_io_key(key_override.empty() ? srv.key() : key_override);

    std::atomic<bool> finished{false};
    std::thread supervisor([&] {
      result.outcome = stepd::runStep(req, opts_);
      finished = true;
    });
    // After the step ended, its frames are all in our socket already: a few more rounds.
    for (int extra = 0; !srv.done() && extra < 10;) {
      srv.runOnce(finished ? 20 : 100);
      if (each_round) each_round(srv, result);
      if (finished) ++extra;
    }
    result.ends = srv.taskEnds();
    result.rejected = srv.rejectedConnections();
    result.nodes = srv.connectedNodes();
    // Close the connections as srun does when it exits: the supervisor's forwarder waits (up to
    // 10 s) for that after its last frame.
    server->reset();
    supervisor.join();
    close(out);
    close(err);
    result.out = readFile(out_path);
    result.err = readFile(err_path);
    return result;
  }

  // Lines of labelled output, by task: the label removed, the lines joined again.
  static std::map<std::uint32_t, std::string> byTask(const std::string& labelled) {
    std::map<std::uint32_t, std::string> tasks;
    std::size_t start = 0;
    while (start < labelled.size()) {
      std::size_t nl = labelled.find('\n', start);
      std::size_t end = nl == std::string::npos ? labelled.size() : nl + 1;
      std::size_t colon = labelled.find(": ", start);
      EXPECT_NE(colon, std::string::npos);
      if (colon == std::string::npos || colon > end) break;
      auto rank = static_cast<std::uint32_t>(std::stoul(labelled.substr(start, colon - start)));
      tasks[rank].append(labelled, colon + 2, end - colon - 2);
      start = end;
    }
    return tasks;
  }

  fs::path dir_;
  stepd::SupervisorOptions opts_;
};

TEST_F(StepIoTest, LargeOutputOfEveryTaskArrivesCompleteAndInOrder) {
  // 4 tasks x ~8 MB each, through pipes, the socket and the labeller.
  constexpr int kLines = 215000;
  const std::string body = "-abcdefghijklmnopqrstuvwxyz0123456789";
  auto req = step(4, "yes \"$SLURM_PROCID" + body + "\" | head -n " + std::to_string(kLines) +
                         "; echo \"err $SLURM_PROCID\" >&2");
  StepIoOptions options;
  options.label = true;
  auto done = run(req, options);
  ASSERT_EQ(done.ends.size(), 4u);
  auto tasks = byTask(done.out);
  ASSERT_EQ(tasks.size(), 4u);
  for (std::uint32_t rank = 0; rank < 4; ++rank) {
    std::string expected;
    const std::string line = std::to_string(rank) + body + "\n";
    expected.reserve(line.size() * kLines);
    for (int i = 0; i < kLines; ++i) expected += line;
    EXPECT_EQ(tasks[rank].size(), expected.size()) << "task " << rank;
    EXPECT_EQ(std::hash<std::string>{}(tasks[rank]), std::hash<std::string>{}(expected))
        << "task " << rank;
    EXPECT_NE(done.err.find(std::to_string(rank) + ": err " + std::to_string(rank) + "\n"),
              std::string::npos);
  }
  EXPECT_EQ(srunExitCode(done.ends), 0);
}

TEST_F(StepIoTest, UnbufferedOutputIsRaw) {
  auto req = step(1, "printf 'no newline'");
  StepIoOptions options;
  options.unbuffered = true;
  auto done = run(req, options);
  EXPECT_EQ(done.out, "no newline");
}

TEST_F(StepIoTest, LabelsArePaddedToTheLargestTaskId) {
  auto req = step(12, "echo hello");
  StepIoOptions options;
  options.label = true;
  auto done = run(req, options);
  std::istringstream lines(done.out);
  std::map<std::string, int> seen;
  for (std::string line; std::getline(lines, line);) ++seen[line];
  EXPECT_EQ(seen[" 0: hello"], 1);
  EXPECT_EQ(seen[" 9: hello"], 1);
  EXPECT_EQ(seen["10: hello"], 1);
  EXPECT_EQ(seen["11: hello"], 1);
  EXPECT_EQ(seen.size(), 12u);
}

TEST_F(StepIoTest, APartialLineIsNeverSplitByAnotherTask) {
  // Task 0 writes half a line, waits until task 1 has written a whole line, then ends it.
  const std::string flag = (dir_ / "task1-wrote").string();
  auto req = step(2, "if [ $SLURM_PROCID = 0 ]; then printf 'first-'; "
                     "while [ ! -e " + flag + " ]; do sleep 0.05; done; echo second; "
                     "else echo whole; touch " + flag + "; fi");
  StepIoOptions options;
  options.label = true;
  auto done = run(req, options);
  EXPECT_NE(done.out.find("0: first-second\n"), std::string::npos) << done.out;
  EXPECT_NE(done.out.find("1: whole\n"), std::string::npos) << done.out;
}

TEST_F(StepIoTest, StdinGoesToTaskZero) {
  std::ofstream(dir_ / "input") << "line1\nline2\n";
  int in = open((dir_ / "input").c_str(), O_RDONLY | O_CLOEXEC);
  auto req = step(3, "cat; echo \"end $SLURM_PROCID\"");
  StepIoOptions options;
  options.label = true;
  options.stdin_fd = in;
  auto done = run(req, options);
  close(in);
  auto tasks = byTask(done.out);
  EXPECT_EQ(tasks[0], "line1\nline2\nend 0\n");
  EXPECT_EQ(tasks[1], "end 1\n");
  EXPECT_EQ(tasks[2], "end 2\n");
}

TEST_F(StepIoTest, StdinGoesToAllTasksWithInputAll) {
  std::ofstream(dir_ / "input") << "shared\n";
  int in = open((dir_ / "input").c_str(), O_RDONLY | O_CLOEXEC);
  auto req = step(3, "cat");
  StepIoOptions options;
  options.label = true;
  options.stdin_fd = in;
  options.stdin_mode = StdinMode::kAllTasks;
  auto done = run(req, options);
  close(in);
  auto tasks = byTask(done.out);
  for (std::uint32_t rank = 0; rank < 3; ++rank) EXPECT_EQ(tasks[rank], "shared\n");
}

TEST_F(StepIoTest, LargeStdinFlowsThroughTheAcknowledgedWindow) {
  // 5 MB is several windows: it only completes if the node acknowledges what tasks took.
  std::ofstream(dir_ / "input") << std::string(5 << 20, 'z');
  int in = open((dir_ / "input").c_str(), O_RDONLY | O_CLOEXEC);
  auto req = step(2, "wc -c");
  StepIoOptions options;
  options.label = true;
  options.stdin_fd = in;
  options.stdin_mode = StdinMode::kAllTasks;
  auto done = run(req, options);
  close(in);
  auto tasks = byTask(done.out);
  EXPECT_EQ(tasks[0], "5242880\n");
  EXPECT_EQ(tasks[1], "5242880\n");
}

TEST_F(StepIoTest, SignalsPassInputThatATaskIgnores) {
  // Endless stdin to a task that never reads it must not hold up the signal frame.
  int in = open("/dev/zero", O_RDONLY | O_CLOEXEC);
  auto req = step(1, "trap 'exit 5' USR1; echo ready; while :; do sleep 0.05; done");
  StepIoOptions options;
  options.stdin_fd = in;
  bool sent = false;
  const fs::path out_path = dir_ / "srun.out";
  auto done = run(req, options, "", [&](StepIoServer& server, const Finished&) {
    if (!sent && readFile(out_path) == "ready\n") {
      server.forwardSignal(SIGUSR1);
      sent = true;
    }
  });
  close(in);
  ASSERT_EQ(done.ends.size(), 1u);
  EXPECT_EQ(done.ends[0].exit_code, 5);
}

TEST_F(StepIoTest, ExitCodesPerTaskAndForSrun) {
  // As golden 055: exit $SLURM_PROCID; task 2 is killed instead (golden 056).
  auto req = step(3, "if [ $SLURM_PROCID = 2 ]; then kill -9 $$; fi; exit $SLURM_PROCID");
  StepIoOptions options;
  std::vector<std::string> messages;
  options.on_task_end = [&](const TaskEnd& end) { messages.push_back(taskEndMessage(end)); };
  auto done = run(req, options);
  ASSERT_EQ(done.ends.size(), 3u);
  EXPECT_EQ(done.ends[0].exit_code, 0);
  EXPECT_EQ(done.ends[1].exit_code, 1);
  EXPECT_EQ(done.ends[2].signal, SIGKILL);
  EXPECT_EQ(done.ends[2].node_name, "node01");
  EXPECT_EQ(srunExitCode(done.ends), 137);
  EXPECT_EQ(done.outcome.exit_code, 1);  // the controller's report is unchanged
  EXPECT_EQ(done.outcome.exit_signal, SIGKILL);
  EXPECT_EQ(std::count(messages.begin(), messages.end(),
                       "srun: error: node01: task 1: Exited with exit code 1"), 1);
  EXPECT_EQ(std::count(messages.begin(), messages.end(), "srun: error: node01: task 2: Killed"),
            1);
}

TEST_F(StepIoTest, WrongKeyIsRejectedAndTheStepEnds) {
  auto req = step(1, "sleep 30");
  auto done = run(req, StepIoOptions{}, std::string(32, 'x'));
  EXPECT_EQ(done.rejected, 1u);
  EXPECT_EQ(done.nodes, 0u);
  EXPECT_TRUE(done.ends.empty());
  EXPECT_TRUE(done.outcome.cancelled);  // nobody can hear the tasks: they are ended
  EXPECT_EQ(done.outcome.exit_signal, SIGTERM);
}

TEST_F(StepIoTest, SignalsAreForwardedToEveryTask) {
  auto req = step(2,
                  "trap 'echo got USR1; exit 7' USR1; echo ready; "
                  "while :; do sleep 0.05; done");
  StepIoOptions options;
  options.label = true;
  bool sent = false;
  const fs::path out_path = dir_ / "srun.out";
  auto done = run(req, options, "", [&](StepIoServer& server, const Finished&) {
    if (sent) return;
    const std::string out = readFile(out_path);
    if (out.find("0: ready") != std::string::npos && out.find("1: ready") != std::string::npos) {
      server.forwardSignal(SIGUSR1);
      sent = true;
    }
  });
  ASSERT_EQ(done.ends.size(), 2u);
  for (const auto& end : done.ends) EXPECT_EQ(end.exit_code, 7);
  auto tasks = byTask(done.out);
  EXPECT_EQ(tasks[0], "ready\ngot USR1\n");
  EXPECT_EQ(tasks[1], "ready\ngot USR1\n");
}

TEST_F(StepIoTest, ACommandThatCannotStartIsReportedOnTheStream) {
  auto req = step(2, "");
  req.clear_argv();
  req.add_argv("/nonexistent/program");
  StepIoOptions options;
  options.label = true;
  auto done = run(req, options);
  EXPECT_FALSE(done.outcome.started);
  ASSERT_EQ(done.ends.size(), 2u);
  EXPECT_EQ(srunExitCode(done.ends), 2);
  // The reference's: "slurmstepd-node01: error: execve(): /nonexistent/prog: No such file ...".
  EXPECT_NE(done.err.find("0: drover-stepd-node01: error: execve(): /nonexistent/program: "
                          "No such file or directory"),
            std::string::npos)
      << done.err;
}

TEST_F(StepIoTest, AProgramIsLookedUpInTheTasksOwnPath) {
  // The user's own bin directory is on the task's PATH, not on the supervisor's.
  const fs::path bin = dir_ / "bin";
  fs::create_directories(bin);
  { std::ofstream(bin / "myprog") << "#!/bin/sh\necho mine\n"; }
  fs::permissions(bin / "myprog", fs::perms::owner_all);
  auto req = step(1, "");
  req.clear_argv();
  req.add_argv("myprog");
  (*req.mutable_environment())["PATH"] = bin.string() + ":/usr/bin:/bin";
  auto done = run(req, StepIoOptions{});
  EXPECT_TRUE(done.outcome.started) << done.err;
  EXPECT_EQ(done.out, "mine\n");
  EXPECT_EQ(srunExitCode(done.ends), 0);
}

TEST_F(StepIoTest, AnExecThatFailsEndsTheTaskWithItsErrno) {
  // As the reference's step daemon: the file found first on PATH is the program, runnable or
  // not; no shell for a file without "#!"; "./prog" named from the working directory; the exit
  // code is the exec's errno, the step's too.
  const fs::path bin = dir_ / "bin";
  fs::create_directories(bin);
  { std::ofstream(bin / "notexec") << "#!/bin/sh\necho ran\n"; }
  fs::permissions(bin / "notexec", fs::perms::owner_read | fs::perms::owner_write);
  { std::ofstream(bin / "noshebang") << "echo ran\n"; }
  fs::permissions(bin / "noshebang", fs::perms::owner_all);
  struct Case {
    std::string program, shown, why;
    int code;
  };
  const std::vector<Case> cases = {
      {"notexec", (bin / "notexec").string(), "Permission denied", 13},
      {"noshebang", (bin / "noshebang").string(), "Exec format error", 8},
      {"./nosuch", dir_.string() + "/./nosuch", "No such file or directory", 2},
      {"nosuch", "nosuch", "No such file or directory", 2},
  };
  for (const auto& c : cases) {
    auto req = step(1, "");
    req.clear_argv();
    req.add_argv(c.program);
    (*req.mutable_environment())["PATH"] = bin.string() + ":/usr/bin:/bin";
    auto done = run(req, StepIoOptions{});
    EXPECT_FALSE(done.outcome.started) << c.program;
    EXPECT_EQ(done.outcome.exit_code, c.code) << c.program;
    EXPECT_EQ(srunExitCode(done.ends), c.code) << c.program;
    EXPECT_NE(done.err.find("drover-stepd-node01: error: execve(): " + c.shown + ": " + c.why), std::string::npos)
        << c.program << ": " << done.err;
    EXPECT_EQ(done.out, "") << c.program;
  }
}

// An srun --pty step: task 0 in a terminal of rows x cols (0: the kernel's default), ended
// after 20 s should a test hang.
void makePty(v1::LaunchStepRequest& req, std::uint32_t rows = 0, std::uint32_t cols = 0) {
  req.set_pty(true);
  req.set_pty_rows(rows);
  req.set_pty_cols(cols);
  req.set_time_limit_s(20);
}

// srun --pty: task 0's streams are one pseudo-terminal of the size srun asked for.
TEST_F(StepIoTest, PtyGivesTaskZeroATerminalOfTheRequestedSize) {
  auto req = step(1, "tty; stty size; test -t 0 && test -t 1 && test -t 2 && echo TTY012");
  makePty(req, 33, 101);
  StepIoOptions options;
  options.unbuffered = true;
  auto done = run(req, options);
  ASSERT_EQ(done.ends.size(), 1u);
  EXPECT_EQ(done.ends[0].exit_code, 0) << done.out << done.err;
  EXPECT_NE(done.out.find("/dev/pts/"), std::string::npos) << done.out;
  // The terminal's output processing turns each newline into CR LF.
  EXPECT_NE(done.out.find("33 101\r\n"), std::string::npos) << done.out;
  EXPECT_NE(done.out.find("TTY012"), std::string::npos) << done.out;
  EXPECT_EQ(done.err, "");
}

// A resize from srun reaches the terminal before input srun read after it.
TEST_F(StepIoTest, PtyResizeArrivesBeforeLaterInput) {
  std::ofstream(dir_ / "input") << "go\n";
  int in = open((dir_ / "input").c_str(), O_RDONLY | O_CLOEXEC);
  auto req = step(1, "read x; stty size");
  makePty(req, 33, 101);
  StepIoOptions options;
  options.unbuffered = true;
  options.stdin_fd = in;
  bool resized = false;
  auto done = run(req, options, "", [&](StepIoServer& server, const Finished&) {
    if (!resized) server.resizeTerminal(40, 120);
    resized = true;
  });
  close(in);
  ASSERT_EQ(done.ends.size(), 1u);
  EXPECT_EQ(done.ends[0].exit_code, 0) << done.out;
  EXPECT_NE(done.out.find("40 120\r\n"), std::string::npos) << done.out;
}

// srun's end of input is the terminal's end of file: cat in the terminal ends.
TEST_F(StepIoTest, PtyEndOfInputEndsAReaderInTheTerminal) {
  std::ofstream(dir_ / "input") << "abc\nno newline";
  int in = open((dir_ / "input").c_str(), O_RDONLY | O_CLOEXEC);
  auto req = step(1, "cat >/dev/null; echo cat-ended");
  makePty(req);
  StepIoOptions options;
  options.unbuffered = true;
  options.stdin_fd = in;
  auto done = run(req, options);
  close(in);
  ASSERT_EQ(done.ends.size(), 1u);
  EXPECT_EQ(done.ends[0].exit_code, 0) << done.out;
  EXPECT_FALSE(done.outcome.timed_out);
  EXPECT_NE(done.out.find("cat-ended"), std::string::npos) << done.out;
}

// As Slurm's --pty: the other tasks' output goes to /dev/null.
TEST_F(StepIoTest, PtyOtherTasksOutputGoesNowhere) {
  auto req = step(3, "echo out-$SLURM_PROCID; echo err-$SLURM_PROCID >&2");
  makePty(req);
  StepIoOptions options;
  options.unbuffered = true;
  auto done = run(req, options);
  ASSERT_EQ(done.ends.size(), 3u);
  EXPECT_EQ(srunExitCode(done.ends), 0);
  EXPECT_NE(done.out.find("out-0"), std::string::npos) << done.out;
  EXPECT_NE(done.out.find("err-0"), std::string::npos) << done.out;  // the terminal, as stdout
  for (const char* other : {"out-1", "out-2", "err-1", "err-2"}) {
    EXPECT_EQ(done.out.find(other), std::string::npos) << done.out;
    EXPECT_EQ(done.err.find(other), std::string::npos) << done.err;
  }
}

}  // namespace
}  // namespace drover::stepio
