#include "jobstate/job_state.h"
#include "common/ascii_case.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace drover {
namespace {

struct StateRow {
  v1::JobState state;
  std::string_view name;
  std::string_view code;
};

constexpr std::array<StateRow, 14> kStates{{
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

}  // namespace

std::string_view jobStateName(v1::JobState state) {
  for (const auto& r : kStates)
    if (r.state == state) return r.name;
  return "UNKNOWN";
}

std::string_view jobStateShortName(v1::JobState state) {
  for (const auto& r : kStates)
    if (r.state == state) return r.code;
  return "?";
}

std::optional<v1::JobState> parseJobStateName(std::string_view text) {
  for (const auto& r : kStates)
    if (equalsIgnoreCase(text, r.name) || equalsIgnoreCase(text, r.code)) return r.state;
  return std::nullopt;
}

}  // namespace drover
