#pragma once
// sbcast: copies a file to every node of a running job (or step) through the controller,
// written there as the job's user (cli/file_broadcast.h; docs/architecture.md, "How sbcast
// flows"). Options as man sbcast; their SBCAST_* variables are read first.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "drover/result.h"

namespace drover::cli {

// -j/--jobid: "jobid[+het_offset][.stepid]" (only het component 0: Drover has no
// heterogeneous jobs).
struct SbcastJobRef {
  std::uint64_t job_id = 0;
  std::optional<std::int64_t> step_id;
};
Result<SbcastJobRef> parseSbcastJobId(const std::string& text);

// -s/--size: bytes, or with a k or m suffix (any case) KiB or MiB.
Result<std::uint64_t> parseSbcastSize(const std::string& text);

struct SbcastCommand {
  std::vector<std::string> files;        // the operands: SOURCE and DEST when there are two
  std::optional<SbcastJobRef> job;       // -j; else SLURM_JOB_ID (and SLURM_STEP_ID)
  bool force = false;
  bool preserve = false;
  std::optional<std::string> compress;   // -C[lib]: "lz4" (the default), "zlib" or "none"
  int fanout = 0;                        // -F: agents written at once; 0 = the controller's 8
  std::uint64_t block_size = 0;          // -s; 0 = the largest block
  int timeout_s = 0;                     // -t; 0 = the message timeout
  int verbose = 0;
  std::optional<bool> send_libs;         // --send-libs[=yes|no] (cli/library_broadcast.h)
  std::optional<std::string> exclude;    // --exclude: checked (absolute paths or NONE)
  bool version = false;
  bool help = false;
  bool usage = false;
};

// Errors are the text after "sbcast: error: ".
Result<SbcastCommand> parseSbcastArgs(const std::vector<std::string>& args);

struct SbcastFiles {
  std::string source;
  std::string dest;
};

// The command's two file names; else the reference's complaint ("Need two file names, have 1
// names"), which it printed as usage, without "sbcast: error: ".
Result<SbcastFiles> sbcastFiles(const SbcastCommand& cmd);

int runSbcast(int argc, char** argv);

}  // namespace drover::cli
