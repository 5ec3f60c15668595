#pragma once
// sbcast -F: the controller writes one broadcast block to at most `fanout` agents at once. The
// window hands out the nodes (by index, in job order) to start: `fanout` of them first, then
// one more each time a call ends, so a job of many nodes does not tie up every agent-call
// thread, or the network, with copies of one block at the same time. Pure; the caller keeps
// it on one thread.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace drover::ctld {

// man sbcast: "Maximum value is currently eight"; also the value when -F is not given.
inline constexpr std::uint32_t kMaxBroadcastFanout = 8;

// -F's value as the controller applies it: 0 (not given) and anything over the maximum are the
// maximum.
inline std::uint32_t boundedFanout(std::uint32_t asked) {
  return asked == 0 ? kMaxBroadcastFanout : std::min(asked, kMaxBroadcastFanout);
}

class FanOutWindow {
 public:
  FanOutWindow(std::size_t nodes, std::uint32_t fanout)
      : nodes_(nodes), width_(boundedFanout(fanout)) {}

  // The nodes to start first.
  std::vector<std::size_t> start() {
    std::vector<std::size_t> out;
    while (next_ < nodes_ && out.size() < width_) out.push_back(next_++);
    in_flight_ = out.size();
    return out;
  }
  // One call ended: the node to start in its place, if any is left.
  std::optional<std::size_t> finished() {
    if (in_flight_ > 0) --in_flight_;
    if (next_ >= nodes_) return std::nullopt;
    ++in_flight_;
    return next_++;
  }
  std::size_t inFlight() const { return in_flight_; }

 private:
  std::size_t nodes_;
  std::size_t width_;
  std::size_t next_ = 0;
  std::size_t in_flight_ = 0;
};

}  // namespace drover::ctld
