#pragma once
// --send-libs (sbcast, srun --bcast): after the executable, each shared object it needs
// (cli/shared_libs.h) goes to the same nodes, into <each node's copy>_libs/ (man sbcast: "a
// directory alongside the executable"), unless it lies in an excluded directory (--exclude,
// srun's --bcast-exclude; default cluster.conf's bcast.exclude, cli/bcast_defaults.h). A library the search did not find is
// not sent; the caller warns about it.
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "cli/file_broadcast.h"
#include "cli/shared_libs.h"

namespace drover::cli {

struct LibrariesSent {
  std::vector<SharedLib> sent;
  std::vector<SharedLib> excluded;
  std::vector<SharedLib> not_found;
};

using LibrariesOutcome = std::variant<LibrariesSent, BroadcastFailure>;

// `executable_plan`: the plan the executable was sent with; `name_step`: the step its copies
// were named for (srun's reserved step). `exclude`: the directories' text (bcastExcludeFor).
LibrariesOutcome broadcastLibraries(ControllerClient& client, const BroadcastPlan& executable_plan,
                                    const std::string& name_step, const std::string& exclude);

// "yes" / "" (given without a value) -> true, "no" -> false; else nullopt.
std::optional<bool> parseSendLibs(const std::string& value);

}  // namespace drover::cli
