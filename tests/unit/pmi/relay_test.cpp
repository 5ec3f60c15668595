#include "pmi/relay.h"

#include <gtest/gtest.h>

namespace drover::pmi {
namespace {

TEST(PmiRelay, StartsOnceEveryRankHasItsNode) {
  Relay relay(4);
  EXPECT_FALSE(relay.joined(1, {1, 3}));
  auto mapping = relay.joined(0, {0, 2});
  ASSERT_TRUE(mapping);
  EXPECT_EQ(*mapping, "(vector,(0,2,1),(0,2,1))");
  EXPECT_FALSE(relay.joined(0, {0, 2}));  // once
}

TEST(PmiRelay, AFenceEndsWhenEveryNodeSentItsPart) {
  Relay relay(1);
  relay.setNumTasks(3);
  relay.joined(0, {0, 1});
  ASSERT_TRUE(relay.joined(1, {2}));
  EXPECT_FALSE(relay.part(1, {1, {{"k2", "v2"}}}));
  EXPECT_FALSE(relay.part(1, {2, {{"later", "x"}}}));  // the next fence, kept apart
  auto done = relay.part(0, {1, {{"k0", "v0"}, {"k1", "v1"}}});
  ASSERT_TRUE(done);
  EXPECT_EQ(done->sequence, 1u);
  ASSERT_EQ(done->pairs.size(), 3u);
  EXPECT_EQ(done->pairs[0].first, "k0");  // node order
  EXPECT_EQ(done->pairs[2].first, "k2");
  done = relay.part(0, {2, {}});
  ASSERT_TRUE(done);
  ASSERT_EQ(done->pairs.size(), 1u);
  EXPECT_EQ(done->pairs[0].first, "later");
}

}  // namespace
}  // namespace drover::pmi
