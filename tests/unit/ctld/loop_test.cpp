#include "ctld/loop.h"

#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <thread>
#include <vector>

namespace drover::ctld {
namespace {

TEST(RunOnLoop, RunsOnTheLoopThreadAndReturnsTheResult) {
  boost::asio::io_context io;
  auto guard = boost::asio::make_work_guard(io);
  std::thread loop([&] { io.run(); });
  const auto loop_id = loop.get_id();

  // Many callers, one writer: the counter needs no lock because only the loop touches it.
  int counter = 0;
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&] {
      for (int i = 0; i < 250; ++i) {
        const bool on_loop = runOnLoop(io, [&] {
          ++counter;
          return std::this_thread::get_id() == loop_id;
        });
        EXPECT_TRUE(on_loop);
      }
    });
  }
  for (auto& c : callers) c.join();
  EXPECT_EQ(runOnLoop(io, [&] { return counter; }), 1000);
  guard.reset();
  loop.join();
}

}  // namespace
}  // namespace drover::ctld
