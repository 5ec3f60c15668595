// splitCommas: the items of an option's or a config value's comma list, empty ones dropped.
#include "common/comma_list.h"

#include <gtest/gtest.h>

namespace drover {
namespace {

using Items = std::vector<std::string>;

TEST(CommaList, SplitsInOrder) {
  EXPECT_EQ(splitCommas("a,b,c"), (Items{"a", "b", "c"}));
  EXPECT_EQ(splitCommas("debug"), (Items{"debug"}));
}

TEST(CommaList, DropsEmptyItems) {
  EXPECT_EQ(splitCommas(""), Items{});
  EXPECT_EQ(splitCommas(","), Items{});
  EXPECT_EQ(splitCommas(",a,,b,"), (Items{"a", "b"}));
}

TEST(CommaList, KeepsSpacesAndDuplicates) {
  EXPECT_EQ(splitCommas(" a, a"), (Items{" a", " a"}));
}

}  // namespace
}  // namespace drover
