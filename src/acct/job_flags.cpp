#include "acct/job_flags.h"

#include <algorithm>
#include <array>
#include <utility>

#include "common/ascii_case.h"

namespace drover::acct {
namespace {

// Each scheduling flag and its name in Slurm 22.05's JSON.
constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kSchedFlags = {{
    {kFlagSchedSubmit, "STARTED_ON_SUBMIT"},
    {kFlagSchedMain, "STARTED_ON_SCHEDULE"},
    {kFlagSchedBackfill, "STARTED_ON_BACKFILL"},
}};

}  // namespace

std::optional<std::string_view> parseJobFlag(std::string_view text) {
  for (std::string_view name :
       {kFlagSchedSubmit, kFlagSchedMain, kFlagSchedBackfill, kFlagStartReceived}) {
    if (equalsIgnoreCase(name, text)) return name;
  }
  return std::nullopt;
}

std::vector<std::string> jsonJobFlags(const std::vector<std::string>& flags) {
  for (const auto& [flag, json] : kSchedFlags) {
    if (std::find(flags.begin(), flags.end(), flag) != flags.end()) {
      return {"CLEAR_SCHEDULING", std::string(json)};
    }
  }
  return {};
}

}  // namespace drover::acct
