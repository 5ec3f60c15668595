#pragma once
// sacct's output, pure: records in, text out. Field names, default widths, alignment,
// truncation ("CANCELLED+"), parsable modes and --json follow Slurm 22.05 as captured in
// slurm-reference/golden (003, 109-120).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "acct/value_text.h"  // formatSizeKb, formatSacctDuration: the records use them too
#include "drover/accounting.h"

namespace drover::acct::report {

// What a value longer than its column becomes, as the reference's sacct printed them
// (`-o Elapsed%2,Priority%2,Start%5,State%3`: `00:00:01 10232 2026- FA+`).
enum class Cut {
  kPlus,    // text: width-1 characters and '+'
  kNone,    // numbers and durations: printed whole, the column widened
  kSilent,  // dates: cut to the width, no '+'
};

struct SacctField {
  std::string_view name;  // as `sacct --helpformat` prints it
  int width;              // default width
  bool left;              // left-aligned (JobID, JobIDRaw); all others right-aligned
  Cut cut = Cut::kPlus;
};

// Every field, in --helpformat order.
const std::vector<SacctField>& sacctFields();
// Case-insensitive lookup ("jobidraw" finds JobIDRaw); nullptr if unknown.
const SacctField* findSacctField(std::string_view name);

struct Column {
  const SacctField* field;
  int width;
  bool left;
};

// "-o JobID,JobName%30,State": names separated by commas (or spaces), each optionally with
// %N (N>0 right-aligned, N<0 left-aligned width |N|).
Result<std::vector<Column>> parseFormat(std::string_view spec);
std::vector<Column> defaultColumns();  // JobID JobName Partition Account AllocCPUS State ExitCode
std::vector<Column> briefColumns();    // -b: JobID State ExitCode
std::vector<Column> longColumns();     // -l

enum class Parsable {
  kNone,
  kTrailing,    // -p: every field followed by '|'
  kNoTrailing,  // -P: fields separated by '|'
};

struct RenderOptions {
  Parsable parsable = Parsable::kNone;
  bool header = true;     // false = -n
  std::int64_t now = 0;   // for Elapsed of jobs still running
  std::string delimiter = "|";  // --delimiter: what separates -p/-P fields
};

// The rows sacct prints: each job (unless !show_job), then its steps.
std::string renderSacct(const std::vector<JobWithSteps>& jobs, const std::vector<Column>& columns,
                        const RenderOptions& options);
// `sacct --json`, shaped as Slurm 22.05's dbv0.0.38 output.
std::string renderSacctJson(const std::vector<JobWithSteps>& jobs, std::int64_t now);
// sacct -B (`batch_script`) or --env-vars: for each job, the reference's block: "Batch Script
// for ID" (or "Environment used for ID (must be batch to display)"), 80 dashes, what was kept
// or NONE, an empty line.
std::string renderKeptSubmission(const std::vector<JobWithSteps>& jobs, bool batch_script);
// `sacct --helpformat`.
std::string renderHelpFormat();

// Formatting helpers, exposed for tests and other commands.
std::string formatSacctTime(std::int64_t unix_seconds);       // 2026-11-30T12:29:05, Unknown
std::string formatCpuTime(std::int64_t usec);                 // 00:00.001, 01:02:03
std::string jobIdText(const JobRecord& job);                  // 16, 12_0, 29_[0-9%2]
// AveCPUFreq: kHz, scaled by 1000 with two decimals unless whole (324K, 2.30G, 0).
std::string formatCpuFreqKhz(std::int64_t khz);
// MaxDiskRead and friends: MB; under 1 with two decimals (0.01M, 0.00M), above scaled by 1024
// (5M, 1.50G), exactly 0 as "0".
std::string formatDiskMb(double mb);

}  // namespace drover::acct::report
