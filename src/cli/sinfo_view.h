#pragma once
// sinfo's output, as a pure function of the controller's node and partition lists: the default
// partition view, -N, -l, -s, -o/--format, -h, the -p/-n/-t/-r/-d filters, and --json.
#include <cstdint>
#include <string>
#include <vector>

#include "cli/node_state.h"
#include "drover/result.h"
#include "drover/v1/types.pb.h"

namespace drover::cli {

struct SinfoOptions {
  bool node_oriented = false;   // -N
  bool long_format = false;     // -l
  bool summarize = false;       // -s
  bool no_header = false;       // -h
  bool exact = false;           // -e
  bool responding_only = false; // -r
  bool dead_only = false;       // -d
  bool json = false;            // --json
  bool yaml = false;            // --yaml (json is set too)
  bool list_reasons = false;    // -R: down/drained nodes grouped by reason
  int iterate_s = 0;            // -i: report again every this many seconds; 0 = once
  bool reservations = false;    // -T: the reservations (sinfo_reservations.h) instead
  std::string sort;             // -S: format letters, [+|-] each, "#P" = configured order
  std::string format;           // -o; empty = the built-in format for the other flags
  std::string format_long;      // -O: field names, "NodeList:20,CPUs:.5"; wins over -o
  std::vector<std::string> partitions;  // -p, empty = all
  std::vector<std::string> nodes;       // -n, expanded, empty = all
  StateFilter states;                   // -t
};

// Whether a report starts with the date line: with -l or -i, above the header (so not with
// -h), whatever the format, as Slurm's sinfo (squeue's rule too: squeue_view.h).
inline bool printsDateLine(const SinfoOptions& options) {
  return (options.long_format || options.iterate_s > 0) && !options.no_header;
}

// The format string sinfo uses when -o is not given (see `man sinfo`, -o).
std::string builtinSinfoFormat(const SinfoOptions& opts);

// The table (with its header unless -h, and above it the date line for -l or -i). `now` only
// feeds the date line, printed in local time as "Mon Nov 30 12:29:05 2026". An unknown -o
// letter or -O name is not an error (the reference's sinfo went on): its warning line, as
// the caller prints it to stderr, is added to `warnings`.
Result<std::string> renderSinfo(const SinfoOptions& opts, const std::vector<v1::NodeInfo>& nodes,
                                const std::vector<v1::PartitionInfo>& partitions,
                                std::int64_t now, std::vector<std::string>* warnings = nullptr);

// sinfo --json (22.05 shape: meta, errors, nodes); no trailing newline, as Slurm.
std::string renderSinfoJson(const std::vector<v1::NodeInfo>& nodes, bool yaml = false);

}  // namespace drover::cli
