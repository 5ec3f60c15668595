#pragma once
// sreport's command line: its options (-P -p -n -t -T ...), its command words (a report type
// and name, or help/version/parsable/time ... as interactive mode reads them), and each
// report's conditions (start= end= accounts= users= clusters= format= tree group topcount=
// grouping= printjobcount flatview). Pure: `now` is a parameter, for tests and the fuzzer.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/field_table.h"
#include "drover/accounting.h"
#include "drover/result.h"

namespace drover::cli::sreport {

enum class TimeUnit { kSeconds, kMinutes, kHours };

// -t / `time`: a unit, a percentage of the total, or both ("MinPer": 89(16.29%)).
struct TimeFormat {
  TimeUnit unit = TimeUnit::kMinutes;
  bool value = true;
  bool percent = false;
};
// Case-insensitive, abbreviations allowed ("h", "minp"); nullopt when it names none.
std::optional<TimeFormat> parseTimeFormat(const std::string& text);

struct Options {
  TableStyle style;
  TimeFormat time;
  std::vector<std::string> tres{"cpu"};   // -T, checked against knownTres()
  bool tres_given = false;                // -T prints a TRES Name column and "TRES Minutes"
  bool quiet = false;
};

// What the command line asked for before any command ran.
struct Invocation {
  Options options;
  bool help = false, version = false, usage = false;
  std::vector<std::string> words;          // empty: interactive mode
  std::vector<std::string> warnings;       // printed on stderr, not fatal ("unknown time format")
};
// argv[0] excluded. Errors are Slurm's texts; the caller prints them and exits 1.
Result<Invocation> parseSreportArgs(const std::vector<std::string>& args);
// -T's list: the known TRES it names ("ALL" = all), or Slurm's fatal error when none.
Result<std::vector<std::string>> parseTresList(const std::string& text);

enum class ReportKind { kAccountUtilizationByUser, kUserUtilizationByAccount, kUtilization, kTopUsage,
                        kSizesByAccount };

struct ReportRequest {
  ReportKind kind = ReportKind::kAccountUtilizationByUser;
  std::optional<std::int64_t> start, end;
  std::vector<std::string> accounts, users, clusters;
  // Job reports only (man sreport): jobs that ran in these partitions, on these nodes (a
  // hostlist, expanded), or these jobs.
  std::vector<std::string> partitions, nodes;
  std::vector<acct::JobSelector> jobs;
  std::vector<std::uint32_t> gids;         // job reports' GID= (ids or group names)
  // The TRES the job report sizes jobs by (its one -T), as the controller must know it to
  // group them; set from the options before the report is loaded.
  std::string size_tres = "cpu";
  std::vector<FieldWidthChoice> format;    // empty: the report's default fields
  bool tree = false, group = false, print_job_count = false, flat_view = false, acct_as_parent = false;
  int top_count = 10;
  std::vector<std::uint64_t> grouping{50, 250, 500, 1000};
  bool individual = false;
  // Slurm reports a bad condition or time on stderr and still runs the report; a bad
  // condition makes the exit code 1.
  std::vector<std::string> warnings;
  bool bad_condition = false;
};

// One command as words: a report, or one of the interactive commands.
enum class Verb { kNothing, kReport, kHelp, kVersion, kQuit, kParsable, kParsable2, kNonParsable,
                  kTime, kQuiet, kVerbose };
struct Command {
  Verb verb = Verb::kNothing;
  ReportRequest report;
  TimeFormat time;   // kTime
  std::vector<std::string> warnings;   // kTime: a bad format, printed with no newline
};
// Errors are Slurm's texts ("invalid keyword: x", "Not valid report x\nValid ...").
Result<Command> parseCommandWords(const std::vector<std::string>& words, std::int64_t now);

}  // namespace drover::cli::sreport
