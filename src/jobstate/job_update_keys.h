#pragma once
// The keys `scontrol update JobId=...` may change. The controller refuses a request naming any
// other; scontrol refuses it first, before sending anything, as Slurm's scontrol refused a key
// it did not know ("Update of this parameter is not supported: KEY=VALUE", "Request aborted").
#include <string_view>

namespace drover {

// `key` in lower case: "timelimit", "numnodes", ...
bool isUpdatableJobKey(std::string_view key);

}  // namespace drover
