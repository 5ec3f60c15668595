#pragma once
// --signal=[{R|B}:]SIG[@TIME]: which signal, how many seconds before the time limit, to whom.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "drover/result.h"

namespace drover::jobspec {

inline constexpr std::uint32_t kDefaultSignalSeconds = 60;
inline constexpr std::uint32_t kMaxSignalSeconds = 65535;

struct SignalSpec {
  int signal = 0;
  std::uint32_t seconds = kDefaultSignalSeconds;
  bool batch_only = false;  // "B:" — only the batch shell
  bool reservation = false; // "R:" — also when a reservation ends
  bool operator==(const SignalSpec&) const = default;
};

// "USR1", "SIGUSR1", "usr1", "10", "B:USR1@90", "RB:TERM".
Result<SignalSpec> parseSignalSpec(std::string_view text);

// A signal name or number (without "SIG" or with it) -> number; nullopt when unknown.
std::optional<int> signalFromName(std::string_view name);
// 10 -> "USR1".
std::string signalName(int signal);

}  // namespace drover::jobspec
