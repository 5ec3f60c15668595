#include "pmi/process_mapping.h"

#include <gtest/gtest.h>

namespace drover::pmi {
namespace {

TEST(PmiProcessMapping, BlockLayoutsAreOneTriple) {
  EXPECT_EQ(processMapping({0}), "(vector,(0,1,1))");
  EXPECT_EQ(processMapping({0, 0, 0, 0}), "(vector,(0,1,4))");
  EXPECT_EQ(processMapping({0, 0, 1, 1, 2, 2}), "(vector,(0,3,2))");
}

TEST(PmiProcessMapping, CyclicLayoutsAreOneTriplePerRound) {
  EXPECT_EQ(processMapping({0, 1, 0, 1}), "(vector,(0,2,1),(0,2,1))");
  EXPECT_EQ(processMapping({0, 1, 2, 0, 1}), "(vector,(0,3,1),(0,2,1))");
}

TEST(PmiProcessMapping, UnevenBlocks) {
  // -N 2 -n 3: two on the first node, one on the second.
  EXPECT_EQ(processMapping({0, 0, 1}), "(vector,(0,1,2),(1,1,1))");
  EXPECT_EQ(processMapping({1, 1, 0}), "(vector,(1,1,2),(0,1,1))");
  EXPECT_EQ(processMapping({}), "(vector)");
}

}  // namespace
}  // namespace drover::pmi
