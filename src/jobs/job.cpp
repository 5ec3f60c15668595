#include "jobs/job.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace drover::jobs {

namespace {

struct StateNames {
  v1::JobState state;
  std::string_view name;
  std::string_view code;
};

constexpr std::array<StateNames, 14> kStates = {{
    {v1::JOB_PENDING, "PENDING", "PD"},
    {v1::JOB_RUNNING, "RUNNING", "R"},
    {v1::JOB_SUSPENDED, "SUSPENDED", "S"},
    {v1::JOB_COMPLETING, "COMPLETING", "CG"},
    {v1::JOB_COMPLETED, "COMPLETED", "CD"},
    {v1::JOB_CANCELLED, "CANCELLED", "CA"},
    {v1::JOB_FAILED, "FAILED", "F"},
    {v1::JOB_TIMEOUT, "TIMEOUT", "TO"},
    {v1::JOB_NODE_FAIL, "NODE_FAIL", "NF"},
    {v1::JOB_PREEMPTED, "PREEMPTED", "PR"},
    {v1::JOB_BOOT_FAIL, "BOOT_FAIL", "BF"},
    {v1::JOB_DEADLINE, "DEADLINE", "DL"},
    {v1::JOB_OUT_OF_MEMORY, "OUT_OF_MEMORY", "OOM"},
    {v1::JOB_REQUEUED, "REQUEUED", "RQ"},
}};

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

bool isFinal(v1::JobState state) {
  switch (state) {
    case v1::JOB_PENDING:
    case v1::JOB_RUNNING:
    case v1::JOB_SUSPENDED:
    case v1::JOB_COMPLETING:
    case v1::JOB_REQUEUED:
      return false;
    default:
      return true;
  }
}

bool holdsResources(v1::JobState state) {
  return state == v1::JOB_RUNNING || state == v1::JOB_SUSPENDED || state == v1::JOB_COMPLETING;
}

std::string_view stateName(v1::JobState state) {
  for (const auto& s : kStates)
    if (s.state == state) return s.name;
  return "UNKNOWN";
}

std::string_view stateShortName(v1::JobState state) {
  for (const auto& s : kStates)
    if (s.state == state) return s.code;
  return "?";
}

std::optional<v1::JobState> parseState(std::string_view text) {
  std::string u = upper(text);
  for (const auto& s : kStates)
    if (u == s.name || u == s.code) return s.state;
  return std::nullopt;
}

}  // namespace drover::jobs
