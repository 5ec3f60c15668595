// srun's pure rules: its exit code from the tasks' ends, the --label prefix, and the line
// printed for a task that failed (goldens 047-048, 053-056).
#include <signal.h>

#include <gtest/gtest.h>

#include "stepio/step_io_server.h"

namespace drover::stepio {
namespace {

TaskEnd exited(std::uint32_t rank, int code) {
  TaskEnd end;
  end.rank = rank;
  end.node_name = "node01";
  end.exit_code = code;
  return end;
}

TaskEnd signalled(std::uint32_t rank, int sig) {
  TaskEnd end = exited(rank, 0);
  end.signal = sig;
  return end;
}

TaskEnd lost(std::uint32_t rank) {
  TaskEnd end = exited(rank, 0);
  end.lost = true;
  return end;
}

TEST(SrunExitCode, HighestTaskCodeWithSignalsAs128Plus) {
  struct Case {
    const char* name;
    std::vector<TaskEnd> ends;
    int expected;
  };
  const std::vector<Case> cases = {
      {"all zero", {exited(0, 0), exited(1, 0)}, 0},
      {"false (053)", {exited(0, 1)}, 1},
      {"exit 3 (054)", {exited(0, 3)}, 3},
      {"mixed 0 and 1 (055)", {exited(0, 0), exited(1, 1)}, 1},
      {"kill -9 (056)", {signalled(0, SIGKILL)}, 137},
      {"signal beats a lower code", {exited(0, 3), signalled(1, SIGTERM)}, 143},
      {"a higher code beats a signal", {exited(0, 200), signalled(1, SIGINT)}, 200},
      {"lost task", {exited(0, 0), lost(1)}, 1},
      {"nothing", {}, 0},
  };
  for (const auto& c : cases) EXPECT_EQ(srunExitCode(c.ends), c.expected) << c.name;
}

TEST(LabelPrefix, PaddedToTheWidthOfTheLargestTaskId) {
  struct Case {
    std::uint32_t rank, ntasks;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {0, 1, "0: "},     {3, 4, "3: "},      {9, 10, "9: "},      {0, 11, " 0: "},
      {10, 11, "10: "},  {5, 100, " 5: "},   {5, 101, "  5: "},   {100, 101, "100: "},
  };
  for (const auto& c : cases)
    EXPECT_EQ(labelPrefix(c.rank, c.ntasks), c.expected) << c.rank << " of " << c.ntasks;
}

TEST(TaskEndMessage, AsSrunPrintsIt) {
  EXPECT_EQ(taskEndMessage(exited(0, 1)), "srun: error: node01: task 0: Exited with exit code 1");
  EXPECT_EQ(taskEndMessage(exited(1, 3)), "srun: error: node01: task 1: Exited with exit code 3");
  EXPECT_EQ(taskEndMessage(signalled(0, SIGKILL)), "srun: error: node01: task 0: Killed");
  EXPECT_EQ(taskEndMessage(exited(0, 0)), "");
}

}  // namespace
}  // namespace drover::stepio
