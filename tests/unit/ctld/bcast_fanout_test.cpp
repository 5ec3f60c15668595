// sbcast -F in the controller: the window never has more than the fanout's calls in flight,
// starts every node exactly once, and takes 0 or an oversized fanout as man sbcast's maximum.
#include "ctld/bcast_fanout.h"

#include <gtest/gtest.h>

#include <deque>

namespace drover::ctld {
namespace {

// Runs a window to the end, ending the oldest call each time; the most calls in flight.
std::size_t peakOf(std::size_t nodes, std::uint32_t fanout, std::vector<std::size_t>* order) {
  FanOutWindow window(nodes, fanout);
  std::deque<std::size_t> running;
  for (std::size_t n : window.start()) running.push_back(n);
  std::size_t peak = running.size();
  while (!running.empty()) {
    order->push_back(running.front());
    running.pop_front();
    if (auto next = window.finished()) running.push_back(*next);
    peak = std::max(peak, running.size());
    EXPECT_EQ(window.inFlight(), running.size());
  }
  return peak;
}

TEST(BcastFanOut, BoundsCallsInFlightAndStartsEveryNodeOnce) {
  for (std::uint32_t fanout : {1u, 2u, 3u, 8u}) {
    std::vector<std::size_t> order;
    EXPECT_EQ(peakOf(20, fanout, &order), fanout);
    ASSERT_EQ(order.size(), 20u);
    for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(order[i], i);
  }
  std::vector<std::size_t> order;
  EXPECT_EQ(peakOf(3, 8, &order), 3u);   // fewer nodes than the fanout: all at once
  EXPECT_TRUE(FanOutWindow(0, 4).start().empty());
}

TEST(BcastFanOut, DefaultAndMaximum) {
  EXPECT_EQ(boundedFanout(0), kMaxBroadcastFanout);
  EXPECT_EQ(boundedFanout(1), 1u);
  EXPECT_EQ(boundedFanout(100), 8u);
  std::vector<std::size_t> order;
  EXPECT_EQ(peakOf(20, 0, &order), 8u);
  order.clear();
  EXPECT_EQ(peakOf(20, 50, &order), 8u);
}

}  // namespace
}  // namespace drover::ctld
