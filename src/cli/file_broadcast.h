#pragma once
// sbcast's and srun --bcast's sending side: reads SOURCE in blocks and sends each to the
// controller (BroadcastFile), which writes it on every node of the job through their agents.
// One block in flight at a time, each at most kMaxBroadcastBlock bytes, so a file of any size
// streams through a fixed amount of memory.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "cli/controller_client.h"
#include "common/bcast_compress.h"

namespace drover::cli {

struct BroadcastPlan {
  std::uint64_t job_id = 0;
  std::optional<std::int64_t> step_id;   // only this step's nodes
  std::string source;
  std::string dest;                      // absolute; a directory when it ends in '/'
  std::string name_step;                 // the step in slurm_bcast_<job>.<step>_<node>
  bool force = false;
  bool preserve = false;
  bool reserve_step = false;             // srun --bcast: name the copies for the next step
  std::size_t block_size = 0;            // 0 = the largest block
  int timeout_ms = 0;                    // each node's time per block; 0 = message timeout
  BcastCodec codec = BcastCodec::kNone;  // -C: each block compressed so (when it shrinks)
  std::uint32_t fanout = 0;              // -F: agents written at once; 0 = the controller's
  // --send-libs: SOURCE is a library of the executable sent to `dest`, named so on the nodes
  // (<each node's copy>_libs/<library>).
  std::string library;
};

struct BroadcastResult {
  std::vector<std::string> nodes;        // where the file went
  std::vector<std::string> paths;        // each node's file
  std::int64_t reserved_step_id = -1;
  std::uint64_t bytes = 0;
  std::uint64_t wire_bytes = 0;          // what the blocks carried (less with -C)
  std::size_t blocks = 0;
  std::uint32_t peak_parallel_writes = 0;   // the most agents any block was written to at once
};

// Why a broadcast failed.
struct BroadcastFailure {
  // The lines to print after "<prog>: error: " (one or more, '\n'-separated):
  // "Slurm job 12 lookup error: Invalid user id",
  // "REQUEST_FILE_BCAST(node2): File exists", "Can't open `x`: No such file or directory".
  std::string lines;
  // sbcast's exit code, as the reference's: 255 for a job it could not use or a SOURCE it
  // could not open, the errno of the first node's failure (17 for `File exists`, 13 for
  // `Permission denied`), else 1.
  int exit_code = 1;
};

using BroadcastOutcome = std::variant<BroadcastResult, BroadcastFailure>;

BroadcastOutcome broadcastFile(ControllerClient& client, const BroadcastPlan& plan);

// Each line of a broadcast failure as "<prog>: error: <line>".
void printBroadcastError(std::string_view prog, const std::string& lines);

// The block size sbcast -s asks for, bounded to what one message may carry (at least 1 KiB).
std::size_t boundedBlockSize(std::uint64_t asked);

}  // namespace drover::cli
