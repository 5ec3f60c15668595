#pragma once
// The scontrol command: show node/partition/hostnames/hostlist/hostlistsorted, update node,
// reconfigure, ping, version. The pure pieces are exposed for tests.
#include <string>
#include <vector>

#include "drover/result.h"
#include "drover/v1/controller.pb.h"

namespace drover::cli {

// `show hostnames|hostlist|hostlistsorted ARG`: the text scontrol prints (pure, no controller).
// `verb` is already lower-case and complete. hostlist/hostlistsorted accept an absolute path to
// a file of host names, as Slurm.
Result<std::string> hostlistCommand(const std::string& verb, const std::string& arg);

// `update NodeName=... State=... Reason=...`: keys case-insensitive, states DRAIN, DOWN, IDLE,
// RESUME, UNDRAIN (abbreviations of 3+ letters). DOWN and DRAIN need a reason, as in Slurm.
Result<v1::UpdateNodeRequest> parseUpdateNode(const std::vector<std::string>& words);

int runScontrol(int argc, char** argv);

}  // namespace drover::cli
