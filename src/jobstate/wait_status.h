#pragma once
// An exit as Slurm keeps it, a wait status: code << 8 | signal (squeue's exit_code 768 for
// `exit 3`, 9 for SIGKILL; the larger of two is the worse end, as DerivedExitCode takes it).
#include <cstdint>

namespace drover {

constexpr std::uint32_t waitStatus(std::uint32_t code, std::uint32_t signal) {
  return (code & 0xff) << 8 | (signal & 0x7f);
}

}  // namespace drover
