// scontrol update of an array: one line per group of tasks with the same answer, as the
// reference Slurm 22.05 printed them (on stderr, exit 1 when any task refused).
#include "cli/array_update_lines.h"

#include <gtest/gtest.h>

namespace drover::cli {
namespace {

v1::UpdateJobReply reply(std::uint64_t array, std::vector<std::pair<std::uint32_t, std::string>> tasks) {
  v1::UpdateJobReply r;
  r.set_array_job_id(array);
  for (auto& [id, why] : tasks) {
    auto* t = r.add_tasks();
    t->set_task_id(id);
    t->set_error(why);
  }
  return r;
}

using Lines = std::vector<std::string>;
const std::string kDone = "Job has already finished";
const std::string kRuns = "Job is no longer pending execution";

TEST(ArrayUpdateLines, AsTheReferencePrintedThem) {
  // --array=0-5%2, 0-1 running, Partition=debug.
  EXPECT_EQ(arrayUpdateLines(reply(7094, {{0, kRuns}, {1, kRuns}, {2, ""}, {3, ""}, {4, ""}, {5, ""}})),
            (Lines{"7094_0-1: Job is no longer pending execution", "7094_2-5: No error"}));
  // 0 and 2 ended, 1 and 3 running, 4-6 pending; the groups in the order of their first task,
  // each group's ids compressed.
  EXPECT_EQ(arrayUpdateLines(reply(7098, {{0, kDone}, {1, kRuns}, {2, kDone}, {3, kRuns}, {4, ""},
                                          {5, ""}, {6, ""}})),
            (Lines{"7098_0,2: Job has already finished", "7098_1,3: Job is no longer pending execution",
                   "7098_4-6: No error"}));
  // TimeLimit there: every open task took it.
  EXPECT_EQ(arrayUpdateLines(reply(7098, {{0, kDone}, {1, ""}, {2, kDone}, {3, ""}, {4, ""}, {5, ""},
                                          {6, ""}})),
            (Lines{"7098_0,2: Job has already finished", "7098_1,3-6: No error"}));
  // A requeued task 0 pending before running 1-3: "No error" comes first.
  EXPECT_EQ(arrayUpdateLines(reply(7103, {{1, kRuns}, {0, ""}, {2, kRuns}, {3, kRuns}})),
            (Lines{"7103_0: No error", "7103_1-3: Job is no longer pending execution"}));
  // A whole array that ended; one task named alone.
  EXPECT_EQ(arrayUpdateLines(reply(7103, {{0, kDone}, {1, kDone}, {2, kDone}, {3, kDone}})),
            (Lines{"7103_0-3: Job has already finished"}));
  EXPECT_EQ(arrayUpdateLines(reply(7094, {{0, kRuns}})), (Lines{"7094_0: Job is no longer pending execution"}));
}

TEST(ArrayUpdateLines, NothingWhenEveryTaskTookIt) {
  // The reference: Partition=gpu TimeLimit=20 on running and pending tasks, exit 0, no output.
  EXPECT_EQ(arrayUpdateLines(reply(7094, {{0, ""}, {1, ""}, {2, ""}})), Lines{});
  EXPECT_EQ(arrayUpdateLines(v1::UpdateJobReply{}), Lines{});
}

}  // namespace
}  // namespace drover::cli
