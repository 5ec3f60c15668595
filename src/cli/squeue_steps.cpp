#include "cli/squeue_steps.h"

#include <algorithm>
#include <cctype>
#include <ctime>

#include "cli/cli_common.h"
#include "cli/format_spec.h"
#include "cli/job_values.h"
#include "cli/node_values.h"
#include "cli/sort_keys.h"
#include "cli/step_rows.h"

namespace drover::cli {
namespace {

constexpr const char* kStepFormat = "%.15i %.8j %.9P %.8u %.9M %N";
// What "%all" prints for steps: every valid code, small letters first, each followed by "|".
constexpr const char* kAllFormat = "%b|%i|%j|%l|%u|%A|%M|%N|%P|%S|%U|";
// The -o letters squeue(1) marks "valid for job steps".
constexpr std::string_view kStepCodes = "ijPuUMlNSAb";

// Codes only -O reaches (no -o letter for steps).
constexpr char kState = 1, kCpus = 2, kJobId = 3, kArrayJob = 4, kArrayTask = 5;

std::string header(char code) {
  switch (code) {
    case 'i': return "STEPID";
    case 'j': return "NAME";
    case 'P': return "PARTITION";
    case 'u': return "USER";
    case 'U': return "UID";
    case 'M': return "TIME";
    case 'l': return "TIME_LIMIT";
    case 'N': return "NODELIST";
    case 'S': return "START_TIME";
    case 'A': return "TASKS";
    case 'b': return "TRES_PER_JOB";  // sic: Slurm 22.05's header for the steps' %b
    case kState: return "STATE";
    case kCpus: return "NUM_CPUS";
    case kJobId: return "JOB_ID";
    case kArrayJob: return "ARRAY_JOB_ID";
    case kArrayTask: return "ARRAY_TASK_ID";
    default: return "";
  }
}

std::string value(const StepRow& row, char code, std::int64_t now) {
  const v1::JobInfo& j = *row.job;
  switch (code) {
    case 'i': return stepIdText(row);
    case 'j': return stepName(row);
    case 'P': return j.partition();
    case 'u': return j.user().empty() ? std::to_string(j.uid()) : j.user();
    case 'U': return std::to_string(j.uid());
    case 'M': return formatSqueueDuration(stepElapsed(row, now));
    case 'l': return formatSqueueLimit(stepTimeLimitMin(row));
    case 'N': return stepNodes(row);
    case 'S': return formatIsoTime(stepStartTime(row), "N/A");
    case 'A': return std::to_string(stepTasks(row));
    case 'b': return row.step && !row.step->tres_per_node().empty() ? row.step->tres_per_node() : "(null)";
    case kState: return stepStateName(row);
    case kCpus: return std::to_string(stepCpus(row));
    case kJobId: return std::to_string(j.job_id());
    case kArrayJob: return std::to_string(j.array_job_id());
    case kArrayTask: return j.array_job_id() != 0 ? std::to_string(j.array_task_id()) : "N/A";
    default: return "";
  }
}

// The -O fields squeue(1) marks valid for steps that Drover has values for.
constexpr NamedField kLongFields[] = {
    {"stepid", 'i'},    {"stepname", 'j'},      {"stepstate", kState},     {"nodes", 'N'},
    {"numtasks", 'A'},  {"numcpus", kCpus},     {"partition", 'P'},        {"starttime", 'S'},
    {"timelimit", 'l'}, {"timeused", 'M'},      {"username", 'u'},         {"userid", 'U'},
    {"jobid", kJobId},  {"arrayjobid", kArrayJob}, {"arraytaskid", kArrayTask},
};

Result<Format> longFormat(const std::string& text, std::vector<std::string>* warnings) {
  return namedFieldFormat(text, kLongFields, [warnings](const std::string& name) {
    warnings->push_back("Invalid job step format specification: " + name);
    return std::string();
  });
}

Result<Format> stepFormat(const SqueueOptions& options, std::vector<std::string>* warnings) {
  if (!options.format_long.empty()) return longFormat(options.format_long, warnings);
  const std::string text = options.format.empty() ? kStepFormat
                           : options.format == "%all" ? kAllFormat
                                                      : options.format;
  auto format = parseFormat(text);
  if (!format.ok()) return format;
  for (auto& item : *format) {
    if (!item.is_field || kStepCodes.find(item.field.code) != std::string_view::npos) continue;
    warnings->push_back(std::string("Invalid job step format specification: ") + item.field.code);
    // Printed as written, in the header and on every line.
    item.is_field = false;
    item.literal = std::string("%") + item.field.code;
  }
  return format;
}

bool listed(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

bool selected(const SqueueOptions& o, const StepRow& row) {
  const v1::JobInfo& j = *row.job;
  if (!o.job_ids.empty() && std::none_of(o.job_ids.begin(), o.job_ids.end(),
                                         [&j](const std::string& id) { return jobMatchesId(j, id); }))
    return false;
  if (!o.step_ids.empty() && std::none_of(o.step_ids.begin(), o.step_ids.end(),
                                   [&row](const StepIdFilter& f) { return stepMatches(row, f); }))
    return false;
  if (!o.users.empty() && !listed(o.users, j.user()) && !listed(o.users, std::to_string(j.uid())))
    return false;
  if (!o.partitions.empty() && !listed(o.partitions, j.partition())) return false;
  if (!o.nodes.empty()) {
    const auto names = stepNodeNames(row);
    if (std::none_of(names.begin(), names.end(), [&o](const std::string& n) { return listed(o.nodes, n); }))
      return false;
  }
  return true;
}

// -S for steps (sort_keys.h): Slurm's default "P,i" (partition, then step id: job id, numbered
// steps before the batch step).
void sortSteps(std::vector<StepRow>& rows, const std::string& spec_text, std::int64_t now) {
  sortByKeys(rows, parseSortKeys(spec_text.empty() ? "P,i" : spec_text),
             [now](const StepRow& a, const StepRow& b, char code) {
    switch (code) {
      case 'P': return a.job->partition().compare(b.job->partition());
      case 'i': {
        const int c = threeWay(a.job->job_id(), b.job->job_id());
        return c != 0 ? c : threeWay(stepSortKey(a), stepSortKey(b));
      }
      case 'j': return stepName(a).compare(stepName(b));
      case 'u': return a.job->user().compare(b.job->user());
      case 'U': return threeWay(a.job->uid(), b.job->uid());
      case 'M': return threeWay(stepElapsed(a, now), stepElapsed(b, now));
      case 'S': return threeWay(stepStartTime(a), stepStartTime(b));
      case 'l': return threeWay(stepTimeLimitMin(a), stepTimeLimitMin(b));
      case 'N': return stepNodes(a).compare(stepNodes(b));
      case 'A': return threeWay(stepTasks(a), stepTasks(b));
      default: return 0;
    }
  });
}

}  // namespace

SqueueFields squeueStepFields() {
  using J = v1::JobInfo;
  SqueueFields out;
  out.info = {J::kJobIdFieldNumber,    J::kArrayJobIdFieldNumber, J::kArrayTaskIdFieldNumber,
              J::kStateFieldNumber,    J::kUserFieldNumber,       J::kUidFieldNumber,
              J::kPartitionFieldNumber, J::kBatchFieldNumber,     J::kBatchHostFieldNumber,
              J::kStartTimeFieldNumber, J::kRunTimeSFieldNumber,  J::kStepsFieldNumber};
  return out;
}

Status renderSqueueStepsTo(const SqueueOptions& options, const std::vector<const v1::JobInfo*>& jobs,
                           std::int64_t now, std::string* out, std::vector<std::string>* warnings) {
  auto format = stepFormat(options, warnings);
  if (!format.ok()) return makeError(format.error());
  std::vector<StepRow> rows;
  for (const v1::JobInfo* job : jobs) {
    for (const StepRow& row : jobStepRows(*job))
      if (selected(options, row)) rows.push_back(row);
  }
  sortSteps(rows, options.sort, now);

  if (printsDateLine(options)) out->append(dateLine(now)).push_back('\n');
  if (!options.no_header) {
    out->append(renderLine(*format, [](const FieldSpec& f) { return header(f.code); }));
    out->push_back('\n');
  }
  for (const StepRow& row : rows) {
    out->append(renderLine(*format, [&row, now](const FieldSpec& f) { return value(row, f.code, now); }));
    out->push_back('\n');
  }
  return okStatus();
}

}  // namespace drover::cli
