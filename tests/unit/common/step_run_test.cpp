#include "common/step_run.h"

#include <gtest/gtest.h>

#include <vector>

namespace drover {
namespace {

struct Case {
  const char* name;
  RunNumber message;
  RunNumber current;
  RunOrder order;
  bool other_run;   // isOtherRun(message, *current), when current is known
};

TEST(StepRun, MessagesOfAnotherRunAreToldApartAndUnknownRunsAreAccepted) {
  const std::vector<Case> cases = {
      // The first run is run 0, a run like any other: its late report is stale once run 1 runs.
      {"first run's message, second run current", 0u, 1u, RunOrder::kEarlier, true},
      {"same run", 1u, 1u, RunOrder::kSame, false},
      {"first run, first run current", 0u, 0u, RunOrder::kSame, false},
      {"later run than the current one", 3u, 2u, RunOrder::kLater, true},
      {"several requeues apart", 1u, 7u, RunOrder::kEarlier, true},
      // A sender or a step record from before the field: accepted as before.
      {"message names no run", std::nullopt, 4u, RunOrder::kUnknown, false},
      {"step record names no run", 2u, std::nullopt, RunOrder::kUnknown, false},
      {"neither names one", std::nullopt, std::nullopt, RunOrder::kUnknown, false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(compareRuns(c.message, c.current), c.order) << c.name;
    if (c.current) EXPECT_EQ(isOtherRun(c.message, *c.current), c.other_run) << c.name;
  }
}

}  // namespace
}  // namespace drover
