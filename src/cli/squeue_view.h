#pragma once
// squeue's output, pure: jobs in, text out (default, -o, -O, -l, --start, -r, -h, -S, --json),
// as Slurm 22.05 prints them (slurm-reference/golden 068-079).
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "cli/step_rows.h"
#include "drover/result.h"
#include "drover/v1/jobs.pb.h"

namespace drover::cli {

struct SqueueOptions {
  std::string format;        // -o; empty = default (or -l / --start)
  std::string format_long;   // -O
  bool no_header = false;    // -h
  bool long_format = false;  // -l
  bool start = false;        // --start
  bool expand_arrays = false;  // -r
  bool steps = false;          // -s/--steps: steps instead of jobs (squeue_steps.h)
  std::vector<StepIdFilter> step_ids;  // -sLIST / --steps=LIST: "28.0", "28.batch"
  bool json = false;
  bool yaml = false;         // --yaml (json is set too)
  std::string cluster_name;  // --json's "cluster"
  std::string sort;          // -S
  int iterate_s = 0;         // -i: report again every this many seconds; 0 = once
  // Filters (applied here too, so results hold whatever the controller returned).
  std::vector<std::string> job_ids, users, partitions, names, accounts, states;
  std::vector<std::string> qos;       // -q, names in any case, as the reference matched them
  std::vector<std::string> licenses;  // -L: no Drover job asks for one, so none matches
  std::string reservation;            // -R: the jobs submitted into this reservation
  std::vector<std::string> nodes;  // expanded host names
};

// Whether the report starts with the date line: with -l or -i, above the header (so not
// with -h), whatever the format, as Slurm's squeue.
inline bool printsDateLine(const SqueueOptions& options) {
  return (options.long_format || options.iterate_s > 0) && !options.no_header;
}

// The JobInfo / JobSpec fields (by number) that the output for these options reads, for
// GetJobsRequest.fields / spec_fields; `info` empty = every field (--json prints them all).
struct SqueueFields {
  std::vector<std::uint32_t> info, spec;
};
SqueueFields squeueFields(const SqueueOptions& options);

// The reference's warning for each -O name squeue does not know ("Invalid job format
// specification: Bogus"); the name is left out and the report goes on (exit 0).
std::vector<std::string> squeueFormatWarnings(const SqueueOptions& options);

// -S checked as the reference's squeue checks it: every character is a key, read from the
// last (',', '+' and '-' aside). The last one that is no key is returned (squeue prints the
// header, then "Invalid sort specification: C", exit 1); 'b' is no key either but only warned
// about (added to `warnings`, without "error:").
std::optional<char> invalidSortKey(std::string_view spec, std::vector<std::string>* warnings);

// Every field name -O takes, in lower case.
std::vector<std::string_view> squeueLongFieldNames();

// The rows squeue prints, in order: pointers into the caller's jobs, or into `expanded` for the
// tasks -r splits out of an array's pending remainder.
struct SqueueRows {
  std::vector<const v1::JobInfo*> rows;
  std::deque<v1::JobInfo> expanded;
};
Result<SqueueRows> selectSqueueRows(const SqueueOptions& options,
                                    const std::vector<const v1::JobInfo*>& jobs);

// Appends the output to *out (one buffer, written once by the caller).
Status renderSqueueTo(const SqueueOptions& options, const std::vector<const v1::JobInfo*>& jobs,
                      std::int64_t now, std::string* out);

Result<std::string> renderSqueue(const SqueueOptions& options, std::vector<v1::JobInfo> jobs,
                                 std::int64_t now);

// The jobs squeue would show (filters, -r expansion, sort), exposed for tests.
Result<std::vector<v1::JobInfo>> selectSqueueJobs(const SqueueOptions& options,
                                                  std::vector<v1::JobInfo> jobs);

}  // namespace drover::cli
