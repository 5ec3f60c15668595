#include "cli/node_state.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "common/ascii_case.h"
#include "common/slurm_node_state.h"

namespace drover::cli {
namespace {

bool hasAllocations(const v1::NodeInfo& node) {
  return node.state() == v1::NODE_ALLOCATED || node.state() == v1::NODE_MIXED;
}

std::string suffixed(std::string name, const v1::NodeInfo& node) {
  if (node.not_responding()) name += '*';
  return name;
}

struct StateName {
  std::string_view name;       // as accepted by -t
  std::string_view canonical;  // what it means
};

// Every name sinfo -t accepts that Drover can have, with its meaning.
constexpr std::array<StateName, 17> kStateNames{{
    {"ALLOC", "ALLOCATED"},     {"ALLOCATED", "ALLOCATED"}, {"MIX", "MIXED"},
    {"MIXED", "MIXED"},         {"IDLE", "IDLE"},           {"DOWN", "DOWN"},
    {"DRAIN", "DRAIN"},         {"DRAINED", "DRAINED"},     {"DRAINING", "DRAINING"},
    {"DRNG", "DRAINING"},       {"UNK", "UNKNOWN"},         {"UNKNOWN", "UNKNOWN"},
    {"NO_RESPOND", "NO_RESPOND"}, {"NPC", "PERFCTRS"},      {"PERFCTRS", "PERFCTRS"},
    {"COMP", "COMPLETING"},     {"COMPLETING", "COMPLETING"},
}};

bool matchesOne(std::string_view canonical, const v1::NodeInfo& node) {
  const DisplayState s = displayState(node);
  if (canonical == "ALLOCATED") return node.state() == v1::NODE_ALLOCATED;
  if (canonical == "MIXED") return node.state() == v1::NODE_MIXED;
  if (canonical == "IDLE") return node.state() == v1::NODE_IDLE;
  if (canonical == "DOWN") return node.state() == v1::NODE_DOWN;
  if (canonical == "UNKNOWN") return node.state() == v1::NODE_UNKNOWN;
  if (canonical == "DRAIN") return node.drain();
  if (canonical == "DRAINED") return s == DisplayState::kDrained;
  if (canonical == "DRAINING") return s == DisplayState::kDraining;
  if (canonical == "NO_RESPOND") return node.not_responding();
  return false;  // states Drover nodes never have (PERFCTRS, COMPLETING)
}

}  // namespace

DisplayState displayState(const v1::NodeInfo& node) {
  if (node.drain()) return hasAllocations(node) ? DisplayState::kDraining : DisplayState::kDrained;
  switch (node.state()) {
    case v1::NODE_IDLE: return DisplayState::kIdle;
    case v1::NODE_ALLOCATED: return DisplayState::kAllocated;
    case v1::NODE_MIXED: return DisplayState::kMixed;
    case v1::NODE_DOWN: return DisplayState::kDown;
    default: return DisplayState::kUnknown;
  }
}

std::string stateCompact(const v1::NodeInfo& node) {
  switch (displayState(node)) {
    case DisplayState::kIdle: return suffixed("idle", node);
    case DisplayState::kAllocated: return suffixed("alloc", node);
    case DisplayState::kMixed: return suffixed("mix", node);
    case DisplayState::kDown: return suffixed("down", node);
    case DisplayState::kDrained: return suffixed("drain", node);
    case DisplayState::kDraining: return suffixed("drng", node);
    case DisplayState::kUnknown: break;
  }
  return suffixed("unk", node);
}

std::string stateLong(const v1::NodeInfo& node) {
  switch (displayState(node)) {
    case DisplayState::kIdle: return suffixed("idle", node);
    case DisplayState::kAllocated: return suffixed("allocated", node);
    case DisplayState::kMixed: return suffixed("mixed", node);
    case DisplayState::kDown: return suffixed("down", node);
    case DisplayState::kDrained: return suffixed("drained", node);
    case DisplayState::kDraining: return suffixed("draining", node);
    case DisplayState::kUnknown: break;
  }
  return suffixed("unknown", node);
}

std::string baseStateLower(const v1::NodeInfo& node) {
  switch (node.state()) {
    case v1::NODE_IDLE: return "idle";
    case v1::NODE_ALLOCATED: return "allocated";
    case v1::NODE_MIXED: return "mixed";
    case v1::NODE_DOWN: return "down";
    default: return "unknown";
  }
}

std::vector<std::string> stateFlags(const v1::NodeInfo& node) {
  std::vector<std::string> flags;
  if (node.drain()) flags.emplace_back("DRAIN");
  if (node.not_responding()) flags.emplace_back("NOT_RESPONDING");
  return flags;
}

std::string stateScontrol(const v1::NodeInfo& node) {
  std::string out = toUpperAscii(baseStateLower(node));
  for (const auto& flag : stateFlags(node)) out += "+" + flag;
  return out;
}

int stateSortKey(const v1::NodeInfo& node) {
  namespace state = slurm_node_state;
  std::uint32_t base = state::kUnknown;
  switch (node.state()) {
    case v1::NODE_MIXED: base = state::kMixed; break;
    case v1::NODE_ALLOCATED: base = state::kAllocated; break;
    case v1::NODE_IDLE: base = state::kIdle; break;
    case v1::NODE_DOWN: base = state::kDown; break;
    default: base = state::kUnknown; break;
  }
  // A flag outranks every base state (the reference sorted a drained idle node above a mixed
  // one, golden sinfo-merge/01); not responding above drain, as Slurm's flag values order them.
  const int flags = (node.not_responding() ? 2 : 0) + (node.drain() ? 1 : 0);
  return flags * 8 + static_cast<int>(base);
}

bool isUnavailable(const v1::NodeInfo& node) {
  return node.drain() || node.state() == v1::NODE_DOWN ||
         (node.state() == v1::NODE_UNKNOWN && node.not_responding());
}

Result<StateFilter> parseStateFilter(std::string_view text) {
  StateFilter filter;
  const bool has_and = text.find('&') != std::string_view::npos;
  const bool has_or = text.find(',') != std::string_view::npos;
  if (has_and && has_or) {
    return makeError("invalid node state list \"" + std::string(text) +
                     "\": use either ',' (any of) or '&' (all of), not both");
  }
  filter.all_of = has_and;
  const char sep = has_and ? '&' : ',';
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find(sep, pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string given(text.substr(pos, end - pos));
    const std::string word = toUpperAscii(given);
    if (!word.empty()) {
      auto it = std::find_if(kStateNames.begin(), kStateNames.end(),
                             [&](const StateName& s) { return s.name == word; });
      if (it == kStateNames.end()) {
        // The reference's two lines; the second lists the names Drover takes (the reference
        // listed its own, some of states no Drover node has: future, cloud, reboot^ ...).
        std::string accepted;
        for (const auto& s : kStateNames) accepted += (accepted.empty() ? "" : ",") + toLowerAscii(s.name);
        return makeError("Bad state string: \"" + given + "\"\nsinfo: error: valid states: " + accepted);
      }
      filter.states.emplace_back(it->canonical);
    }
    pos = end + 1;
  }
  return filter;
}

bool matchesStateFilter(const StateFilter& filter, const v1::NodeInfo& node) {
  if (filter.empty()) return true;
  for (const auto& s : filter.states) {
    const bool m = matchesOne(s, node);
    if (filter.all_of && !m) return false;
    if (!filter.all_of && m) return true;
  }
  return filter.all_of;
}

}  // namespace drover::cli
