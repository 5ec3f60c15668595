#pragma once
// What sbcast and srun --bcast do when an option is not given: cluster.conf's `bcast` section
// (Slurm's BcastParameters and BcastExclude, read from the client's own cluster.conf as Slurm's
// commands read slurm.conf), else Slurm's defaults. A given option always wins.
#include <optional>
#include <string>

#include "common/bcast_compress.h"
#include "drover/config.h"

namespace drover::cli {

// -C/--compress: `option` is the library given ("" = given without one: lz4), nullopt when not
// given (the configured compression). The caller has checked the library's name.
BcastCodec bcastCodecFor(const std::optional<std::string>& option, const config::BcastConfig& conf);

// --send-libs: the option's value when given, else the configured send_libs.
bool sendLibsFor(std::optional<bool> option, const config::BcastConfig& conf);

// --exclude / --bcast-exclude: the option's text when given, else the configured list
// ("none" when it is empty), in the option's form for parseBcastExclude.
std::string bcastExcludeFor(const std::optional<std::string>& option, const config::BcastConfig& conf);

// The directory a relative sbcast DEST (or srun --bcast without a path) goes to: the configured
// dest_dir, else `cwd`.
std::string bcastDirectoryFor(const config::BcastConfig& conf, const std::string& cwd);

}  // namespace drover::cli
