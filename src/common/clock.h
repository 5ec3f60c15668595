#pragma once
// Time is injected: daemons use SystemClock, tests and the simulator use FakeClock and move
// time forward themselves, so nothing that takes a Clock ever needs to sleep in a test.
#include <atomic>
#include <chrono>
#include <cstdint>

namespace drover {

class Clock {
 public:
  virtual ~Clock() = default;
  // Unix time in whole seconds.
  virtual std::int64_t now() const { return nowMs() / 1000; }
  // Unix time in milliseconds.
  virtual std::int64_t nowMs() const = 0;
};

class SystemClock final : public Clock {
 public:
  std::int64_t nowMs() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

// A clock that only moves when told to. Reads and moves are atomic, so a test thread may
// advance it while a daemon thread reads it.
class FakeClock final : public Clock {
 public:
  // Starts at a fixed, recognisable instant (2026-01-01T00:00:00Z) unless told otherwise.
  static constexpr std::int64_t kDefaultStartMs = 1'767'225'600'000;

  explicit FakeClock(std::int64_t start_ms = kDefaultStartMs) : ms_(start_ms) {}

  std::int64_t nowMs() const override { return ms_.load(std::memory_order_acquire); }

  void advance(std::chrono::milliseconds by) { ms_.fetch_add(by.count(), std::memory_order_acq_rel); }
  void advanceSeconds(std::int64_t seconds) { advance(std::chrono::seconds(seconds)); }
  void setMs(std::int64_t ms) { ms_.store(ms, std::memory_order_release); }
  void setSeconds(std::int64_t seconds) { setMs(seconds * 1000); }

 private:
  std::atomic<std::int64_t> ms_;
};

}  // namespace drover
