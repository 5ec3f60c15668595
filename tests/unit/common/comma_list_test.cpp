// splitCommas: the items of an option's or a config value's comma list, empty ones dropped;
// splitFields: every field at one separator, empty ones kept.
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

TEST(CommaList, SplitFieldsKeepsEmptyOnes) {
  using Fields = std::vector<std::string_view>;
  EXPECT_EQ(splitFields("a::b", ':'), (Fields{"a", "", "b"}));
  EXPECT_EQ(splitFields(":a:", ':'), (Fields{"", "a", ""}));
  EXPECT_EQ(splitFields("", ':'), Fields{""});
  EXPECT_EQ(splitFields("x\ny", '\n'), (Fields{"x", "y"}));
}

}  // namespace
}  // namespace drover
