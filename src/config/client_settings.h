#pragma once
// What a command-line client needs from cluster.conf: where the controller listens, the MUNGE
// socket, the message timeout, and sbcast's defaults. A CLI starts for every sbatch/squeue call, and parsing the
// whole file (every node group, partition and account, and every comment line through
// yaml-cpp's scanner) was the largest part of its start-up after exec (docs/performance.md,
// "Process start-up"), so only the top-level sections named here are parsed, with the same
// section parsers and messages as loadClusterConfig. Other sections are not validated.
#include <string>

#include "drover/config.h"
#include "drover/result.h"

namespace drover::config {

struct ClientSettings {
  ControllerConfig controller;
  std::string munge_socket;  // "" = libmunge default; relative paths resolved against the file
  Timeouts timeouts;
  BcastConfig bcast;  // sbcast's and srun --bcast's defaults
  StepsConfig steps;  // srun's MPI default
};

// Reads the `controller`, `munge_socket`, `timeouts`, `bcast` and `steps` sections of the
// cluster.conf at `path`.
// A document whose top level is not a plain block mapping (flow style, several documents,
// anchors shared between sections), or whose wanted sections fail to parse, is read in full by
// loadClusterConfig instead, so its errors read exactly as the daemons' would.
Result<ClientSettings> loadClientSettings(const std::string& path);

// The same from text already read; `file_name` is used for messages and relative paths.
Result<ClientSettings> parseClientSettings(const std::string& yaml_text,
                                           const std::string& file_name);

}  // namespace drover::config
