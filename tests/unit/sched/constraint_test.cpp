#include "sched/constraint.h"

#include <gtest/gtest.h>

namespace drover::sched {
namespace {

TEST(Constraint, MatchesAndOr) {
  struct Case {
    std::string expr;
    std::vector<std::string> features;  // sorted
    bool want;
  };
  std::vector<Case> cases = {
      {"", {}, true},
      {"h100", {"h100", "ib"}, true},
      {"h100", {"a100"}, false},
      {"h100&ib", {"h100", "ib"}, true},
      {"h100&ib", {"h100"}, false},
      {"a100|h100", {"h100"}, true},
      {"a100|h100", {"v100"}, false},
      {"a100&ib|h100", {"a100"}, false},  // & binds tighter: (a100&ib)|h100
      {"a100&ib|h100", {"h100"}, true},
      {" h100 & ib ", {"h100", "ib"}, true},
  };
  for (const auto& c : cases) {
    auto parsed = Constraint::parse(c.expr);
    ASSERT_TRUE(parsed.ok()) << c.expr;
    EXPECT_EQ(parsed->matches(c.features), c.want) << c.expr;
  }
}

TEST(Constraint, RejectsBadNames) {
  for (std::string bad : {"h100&", "|a", "a&&b", "a!b"}) {
    auto parsed = Constraint::parse(bad);
    EXPECT_FALSE(parsed.ok()) << bad;
    if (!parsed.ok()) {
      EXPECT_NE(parsed.error().find(bad), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace drover::sched
