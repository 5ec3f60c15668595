// Names and parsers for the value types in drover/accounting.h.
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

#include "common/ascii_case.h"
#include "drover/accounting.h"

namespace drover::acct {
namespace {

struct StateName {
  JobState state;
  std::string_view name;
  std::string_view short_name;
};

constexpr std::array<StateName, 14> kStates{{
    {JobState::kPending, "PENDING", "PD"},
    {JobState::kRunning, "RUNNING", "R"},
    {JobState::kSuspended, "SUSPENDED", "S"},
    {JobState::kCompleting, "COMPLETING", "CG"},
    {JobState::kCompleted, "COMPLETED", "CD"},
    {JobState::kCancelled, "CANCELLED", "CA"},
    {JobState::kFailed, "FAILED", "F"},
    {JobState::kTimeout, "TIMEOUT", "TO"},
    {JobState::kNodeFail, "NODE_FAIL", "NF"},
    {JobState::kPreempted, "PREEMPTED", "PR"},
    {JobState::kOutOfMemory, "OUT_OF_MEMORY", "OOM"},
    {JobState::kRequeued, "REQUEUED", "RQ"},
    {JobState::kBootFail, "BOOT_FAIL", "BF"},
    {JobState::kDeadline, "DEADLINE", "DL"},
}};


template <typename T>
std::optional<T> parseUnsigned(std::string_view text) {
  T value{};
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

std::string_view jobStateName(JobState state) {
  return kStates[static_cast<std::size_t>(state)].name;
}

std::string_view jobStateShortName(JobState state) {
  return kStates[static_cast<std::size_t>(state)].short_name;
}

std::optional<JobState> parseJobState(std::string_view text) {
  for (const auto& s : kStates) {
    if (equalsIgnoreCase(text, s.name) || equalsIgnoreCase(text, s.short_name)) return s.state;
  }
  return std::nullopt;
}

bool isFinalState(JobState state) {
  switch (state) {
    case JobState::kPending:
    case JobState::kRunning:
    case JobState::kSuspended:
    case JobState::kCompleting:
      return false;
    default:
      return true;
  }
}

Result<std::int64_t> parseStepId(std::string_view text) {
  if (text == "batch") return kBatchStep;
  if (text == "extern") return kExternStep;
  if (text == "interactive") return kInteractiveStep;
  if (auto n = parseUnsigned<std::uint32_t>(text)) return static_cast<std::int64_t>(*n);
  return makeError("invalid step id '" + std::string(text) +
                   "': expected a number, batch, extern or interactive");
}

Result<JobSelector> parseJobSelector(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return makeError("invalid job id '" + std::string(text) + "': " + std::string(why) +
                     " (accepted: 123, 123_4, 123.batch, 123_4.0)");
  };
  JobSelector sel;
  std::string_view rest = text;
  std::string_view step_part;
  if (auto dot = rest.find('.'); dot != std::string_view::npos) {
    step_part = rest.substr(dot + 1);
    rest = rest.substr(0, dot);
    auto step = parseStepId(step_part);
    if (!step) return bad("bad step id");
    sel.step_id = *step;
  }
  if (auto us = rest.find('_'); us != std::string_view::npos) {
    auto task = parseUnsigned<std::uint32_t>(rest.substr(us + 1));
    if (!task) return bad("bad array task id");
    sel.array_task = *task;
    rest = rest.substr(0, us);
  }
  auto id = parseUnsigned<std::uint64_t>(rest);
  if (!id || *id == 0) return bad("bad job id");
  sel.job_id = *id;
  return sel;
}

}  // namespace drover::acct
