#pragma once
// The scontrol command: show node/partition/hostnames/hostlist/hostlistsorted, update node,
// reconfigure, ping, version. The pure pieces are exposed for tests.
#include <istream>
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

// Interactive mode (scontrol with no command): the lines of `in` run as runScontrol runs a
// command, output on std::cout and std::cerr; `echo` as when stdin is no terminal. Returns the
// session's exit status.
int runScontrolLines(std::istream& in, bool echo);

}  // namespace drover::cli
