// StepTable's answer to a retried launch: a run it started is started once, also while its
// supervisor has exited and is not reaped yet. A script named drover-stepd stands in for the
// supervisor (the table knows its processes by that name); it reads its request, counts its
// starts and exits.
#include "agent/step_table.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "../temp_dir.h"

namespace drover::agent {
namespace {

// The process's state letter in /proc/PID/stat ('Z' for a zombie), or 0 once it is gone.
char processState(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = stat.rfind(')');
  return close == std::string::npos || close + 2 >= stat.size() ? 0 : stat[close + 2];
}

int linesIn(const std::filesystem::path& file) {
  std::ifstream in(file);
  int n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

TEST(StepTableLaunch, ARetriedLaunchOfARunWhoseSupervisorExitedIsNotStartedAgain) {
  TempDir dir;
  const std::filesystem::path spool = dir.file("spool");
  std::filesystem::create_directories(spool / "steps");
  const std::filesystem::path starts = dir.file("starts");
  const std::filesystem::path stepd = dir.file("drover-stepd");
  // It reads the launch request as drover-stepd does (the table writes it to its stdin).
  std::ofstream(stepd) << "#!/bin/sh\ncat > /dev/null\necho started >> " << starts.string() << "\n";
  ::chmod(stepd.c_str(), 0755);

  StepTableOptions opts;
  opts.spool_dir = spool.string();
  opts.stepd_path = stepd.string();
  opts.node_name = "node1";
  opts.use_launcher = false;
  StepTable table(opts);
  v1::LaunchStepRequest request;
  request.mutable_step()->set_job_id(7);
  request.mutable_step()->set_step_id(-5);
  request.mutable_step()->set_restart_count(0);

  auto first = table.launch(request);
  ASSERT_TRUE(first.ok()) << first.error();
  ASSERT_GT(first->pid, 0);
  // Exited, not reaped: nothing here waits for it until the agent's next reap().
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (processState(first->pid) != 'Z') {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the fake supervisor did not exit";
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  auto retried = table.launch(request);
  ASSERT_TRUE(retried.ok()) << retried.error();
  EXPECT_TRUE(retried->ended);
  EXPECT_EQ(retried->pid, 0);
  table.reap();
  EXPECT_EQ(linesIn(starts), 1);
  // The next run of the job (after a requeue) starts.
  request.mutable_step()->set_restart_count(1);
  auto next = table.launch(request);
  ASSERT_TRUE(next.ok()) << next.error();
  EXPECT_GT(next->pid, 0);
  EXPECT_FALSE(next->ended);
  while (processState(next->pid) != 'Z') {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the fake supervisor did not exit";
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  table.reap();
  EXPECT_EQ(linesIn(starts), 2);
}

}  // namespace
}  // namespace drover::agent
