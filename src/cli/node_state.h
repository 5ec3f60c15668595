#pragma once
// Node state names exactly as Slurm prints them: sinfo's compact (%t: idle, alloc, mix, drng)
// and long (%T: idle, allocated, mixed, draining) forms with the `*` not-responding suffix,
// scontrol's State= (IDLE+DRAIN, DOWN+NOT_RESPONDING), and sinfo's -t/--states filter.
#include <string>
#include <string_view>
#include <vector>

#include "drover/result.h"
#include "drover/v1/types.pb.h"

namespace drover::cli {

// The state a node shows as, before the not-responding suffix.
enum class DisplayState { kUnknown, kIdle, kAllocated, kMixed, kDown, kDrained, kDraining };

DisplayState displayState(const v1::NodeInfo& node);
std::string stateCompact(const v1::NodeInfo& node);     // sinfo %t: "mix", "idle*"
std::string stateLong(const v1::NodeInfo& node);        // sinfo %T: "mixed", "idle*"
std::string stateScontrol(const v1::NodeInfo& node);    // scontrol State=: "IDLE+DRAIN"
std::string baseStateLower(const v1::NodeInfo& node);   // --json "state": "mixed"
std::vector<std::string> stateFlags(const v1::NodeInfo& node);  // "DRAIN", "NOT_RESPONDING"

// Orders records as Slurm's default sinfo sort "-t" does (larger first): any node with a flag
// (not responding, then drain) above every node without one; within each, mixed, allocated,
// idle, down, unknown.
int stateSortKey(const v1::NodeInfo& node);

// Nodes "unavailable" for sinfo's CPU/node other counts (%C, %F): down, drained, draining.
bool isUnavailable(const v1::NodeInfo& node);

// sinfo -t: a comma list (any of) or an `&` list (all of), case-insensitive, long or short
// names (ALLOC, ALLOCATED, DOWN, DRAIN, DRAINED, DRAINING, DRNG, IDLE, MIX, MIXED, NO_RESPOND,
// UNK, UNKNOWN). Unknown names are an error listing what is accepted.
struct StateFilter {
  std::vector<std::string> states;  // upper-case canonical names
  bool all_of = false;              // joined with '&'
  bool empty() const { return states.empty(); }
};
Result<StateFilter> parseStateFilter(std::string_view text);
bool matchesStateFilter(const StateFilter& filter, const v1::NodeInfo& node);

}  // namespace drover::cli
