#pragma once
// scontrol show config: cluster.conf's settings under Slurm's names, laid out as Slurm 22.05's
// scontrol prints them ("Name<padding> = value", in its order), with the controller's boot time
// and state when it answered. Only the settings Drover has are listed: no plugin Drover lacks
// is named (docs/cli-compatibility.md).
#include <cstdint>
#include <optional>
#include <string>

#include "drover/config.h"
#include "drover/v1/controller.pb.h"

namespace drover::cli {

// `ping` is the controller's answer, nullopt when it did not answer (then its BOOT_TIME is not
// known and the last line says DOWN).
std::string renderConfig(const config::ClusterConfig& config, const std::string& config_path,
                         std::int64_t now, const std::optional<v1::PingReply>& ping);

}  // namespace drover::cli
