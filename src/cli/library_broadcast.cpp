#include "cli/library_broadcast.h"

#include <cstdlib>
#include <strings.h>

namespace drover::cli {

std::optional<bool> parseSendLibs(const std::string& value) {
  if (value.empty() || strcasecmp(value.c_str(), "yes") == 0) return true;
  if (strcasecmp(value.c_str(), "no") == 0) return false;
  return std::nullopt;
}

LibrariesOutcome broadcastLibraries(ControllerClient& client, const BroadcastPlan& executable_plan,
                                    const std::string& name_step, const std::string& exclude) {
  auto dirs = parseBcastExclude(exclude);
  if (!dirs) return BroadcastFailure{dirs.error()};
  // The libraries this process's dynamic linker would load for the executable: srun's and
  // sbcast's own LD_LIBRARY_PATH, as ldd would have used.
  const char* env = std::getenv("LD_LIBRARY_PATH");
  auto libs = sharedLibraries(executable_plan.source, env != nullptr ? env : "");
  if (!libs) return BroadcastFailure{libs.error(), 255};
  LibrariesSent out;
  for (auto& lib : *libs) {
    if (lib.path.empty()) {
      out.not_found.push_back(std::move(lib));
      continue;
    }
    if (inExcludedDirectory(lib.path, *dirs)) {
      out.excluded.push_back(std::move(lib));
      continue;
    }
    BroadcastPlan plan = executable_plan;
    plan.source = lib.path;
    plan.name_step = name_step;
    plan.reserve_step = false;
    // A DT_NEEDED with a '/' is loaded by that path; its copy keeps only the file name.
    plan.library = lib.name.substr(lib.name.rfind('/') + 1);
    const auto sent = broadcastFile(client, plan);
    if (const auto* failed = std::get_if<BroadcastFailure>(&sent)) return *failed;
    out.sent.push_back(std::move(lib));
  }
  return out;
}

}  // namespace drover::cli
