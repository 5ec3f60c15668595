#pragma once
// Slurm's node state numbers: a base state with the DRAIN flag, as slurmdbd keeps them in a
// node event's StateRaw and as Slurm orders node states. The controller writes them into
// events (ctld/node_events), accounting matches `States=` on them (acct/sqlite_events),
// sacctmgr names them (cli/sacctmgr_events) and sinfo sorts by them (cli/node_state).
#include <cstdint>

namespace drover::slurm_node_state {

inline constexpr std::uint32_t kUnknown = 0;
inline constexpr std::uint32_t kDown = 1;
inline constexpr std::uint32_t kIdle = 2;
inline constexpr std::uint32_t kAllocated = 3;
inline constexpr std::uint32_t kMixed = 5;
inline constexpr std::uint32_t kFuture = 6;
inline constexpr std::uint32_t kBaseMask = 0xf;
inline constexpr std::uint32_t kFlagDrain = 0x200;

inline constexpr std::uint32_t base(std::uint32_t raw) { return raw & kBaseMask; }
inline constexpr bool drained(std::uint32_t raw) { return (raw & kFlagDrain) != 0; }

}  // namespace drover::slurm_node_state
