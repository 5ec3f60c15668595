#pragma once
// sacct's selectors that the accounting query does not take, applied to the records it returned:
// -q/--qos, -i/--nnodes, -I/--ncpus, -k/--timelimit-min with -K/--timelimit-max, -R/--reason,
// -W/--wckeys, -C/--constraints, -F/--flags, -x/--associations (sacct(1)).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drover/accounting.h"
#include "drover/result.h"

namespace drover::cli {

struct CountRange {
  std::uint32_t min = 0;
  std::uint32_t max = UINT32_MAX;
};

struct SacctRecordFilter {
  std::vector<std::string> qos, reasons, wckeys, constraints;
  std::optional<CountRange> nnodes, ncpus;
  std::optional<std::int64_t> timelimit_min, timelimit_max;  // minutes
  // -F: a job with any of these flags (recorded names, acct/job_flags.h); given empty, none.
  std::optional<std::vector<std::string>> flags;
  std::vector<std::uint32_t> associations;  // -x: ids (JobRecord::assoc_id); one that is no number matches none
  bool none = false;  // -s named only states no job enters: nothing is kept

  bool any() const;
  bool keeps(const acct::JobRecord& job) const;
};

// -T/--truncate: the job's and its steps' start and end cut to the window [start, end] (a
// running job's end is the window's end), so Elapsed and CPUTime count the time inside it, as
// the reference's sacct showed them.
void truncateToWindow(acct::JobWithSteps& job, std::optional<std::int64_t> window_start,
                      std::int64_t window_end);

// "4" or "2-8", as -i and -I take them; `what` names the range in the error ("node", "cpu"),
// the reference's text.
Result<CountRange> parseCountRange(std::string_view text, std::string_view what);

}  // namespace drover::cli
