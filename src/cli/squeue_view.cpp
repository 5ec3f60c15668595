#include "cli/squeue_view.h"

#include <algorithm>
#include <limits>
#include <cctype>
#include <charconv>
#include <ctime>
#include <map>

#include "cli/cli_common.h"
#include "cli/format_spec.h"
#include "cli/job_values.h"
#include "cli/node_values.h"
#include "cli/sort_keys.h"
#include "cli/slurm_json.h"
#include "cli/squeue_json.h"
#include "common/ascii_case.h"
#include "common/comma_list.h"
#include "drover/hostlist.h"
#include "jobstate/eligible_time.h"
#include "jobstate/gres_text.h"
#include "jobstate/wait_status.h"

namespace drover::cli {
namespace {

// What the reference's squeue listed after "Invalid job state specified" (its whole list).
constexpr std::string_view kSqueueValidStates =
    "PENDING,RUNNING,SUSPENDED,COMPLETED,CANCELLED,FAILED,TIMEOUT,NODE_FAIL,PREEMPTED,BOOT_FAIL,"
    "DEADLINE,OUT_OF_MEMORY,COMPLETING,CONFIGURING,RESIZING,RESV_DEL_HOLD,REQUEUED,REQUEUE_FED,"
    "REQUEUE_HOLD,REVOKED,SIGNALING,SPECIAL_EXIT,STAGE_OUT,STOPPED";

// States in that list that no Drover job enters (no node boot, resize, federation, burst
// buffer or stop): `-t` accepts them, as Slurm's squeue, and they select nothing.
bool isSlurmOnlyJobState(std::string_view text) {
  static constexpr std::string_view kNames[] = {
      "CONFIGURING", "CF", "RESIZING", "RS", "RESV_DEL_HOLD", "RD", "REQUEUE_FED", "RF",
      "REQUEUE_HOLD", "RH", "REVOKED", "RV", "SIGNALING", "SI", "SPECIAL_EXIT", "SE",
      "STAGE_OUT", "SO", "STOPPED", "ST"};
  for (auto name : kNames)
    if (equalsIgnoreCase(text, name)) return true;
  return false;
}

constexpr const char* kDefaultFormat = "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R";
constexpr const char* kLongFormat = "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R";
constexpr const char* kStartFormat = "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R";

// Codes used internally for -O fields that have no -o letter (below ' ', so no -o letter
// can be one).
enum NamedOnly : char {
  kRawJobId = 1, kAccrueTime, kEligibleTime, kLastSchedEval, kPendingTime, kStdOut, kStdErr,
  kStdIn, kNumTasks, kRequeue, kRestartCount, kMaxNodes, kMaxCpus, kMinTime, kExitStatus,
  kDerivedExitStatus, kTresAlloc, kCpusPerTask, kBatchFlag, kReboot, kTasksPerNode, kAllocNode,
  kTresPerJob, kTresPerTask, kCpusPerTres, kMemPerTres, kTresBind, kDeadline, kPrefer,
  kTresFreq, kPreemptTime,
};
static_assert(kPreemptTime < ' ');

// -O fields of what Drover has no notion of (burst buffers, federation, heterogeneous jobs,
// switches, boards, MCS labels, ...): the header and the value the reference printed for a job
// that asked for none of it. Their codes are negative: -1 - the row's index.
struct FixedField {
  std::string_view name, header, value;
};
constexpr FixedField kFixedFields[] = {
    {"allocsid", "ALLOC_SID", "0"},             {"associd", "ASSOC_ID", "0"},
    {"boardspernode", "BOARDS_PER_NODE", "0"},  {"burstbuffer", "BURST_BUFFER", "(null)"},
    {"burstbufferstate", "BURST_BUFFER_STATE", "(null)"},
    {"clusterfeature", "CLUSTER_FEATURES", "(null)"},
    {"container", "CONTAINER", "(null)"},
    {"delayboot", "DELAY_BOOT", "0:00"},        {"hetjobid", "HET_JOB_ID", "N/A"},
    {"hetjobidset", "HET_JOB_ID_SET", "N/A"},   {"hetjoboffset", "HET_JOB_OFFSET", "N/A"},
    {"mcslabel", "MCSLABEL", "(null)"},         {"network", "NETWORK", "(null)"},
    {"ntperboard", "NTASKS_PER_BOARD", "0"},    {"ntpercore", "NTASKS_PER_CORE", "N/A"},
    {"ntpersocket", "NTASKS_PER_SOCKET", "N/A"},
    {"origin", "ORIGIN", "NA"},                 {"originraw", "ORIGIN_RAW", "NA"},
    {"profile", "PROFILE", "NotSet"},
    {"reqswitch", "REQ_SWITCH", "0"},
    {"resizetime", "RESIZE_TIME", "N/A"},       {"selectjobinfo", "", ""},
    {"siblingsactive", "ACTIVE_SIBLINGS", "NA"},
    {"siblingsactiveraw", "ACTIVE_SIBLINGS_RAW", "NA"},
    {"siblingsviable", "VIABLE_SIBLINGS", "NA"},
    {"siblingsviableraw", "VIALBLE_SIBLINGS_RAW", "NA"},  // sic, the reference's header
    {"sperboard", "SOCKETS_PER_BOARD", "0"},    {"wait4switch", "WAIT4SWITCH", "0:00"},
    {"admin_comment", "ADMIN_COMMENT", "(null)"},
    {"system_comment", "SYSTEM_COMMENT", "(null)"},
    {"tres-per-socket", "TRES_PER_SOCKET", "N/A"},
};
constexpr char fixedCode(std::size_t index) { return static_cast<char>(-1 - static_cast<int>(index)); }
const FixedField* fixedField(char code) {
  const int index = -1 - code;
  if (code >= 0 || index >= static_cast<int>(std::size(kFixedFields))) return nullptr;
  return &kFixedFields[index];
}

std::string header(char code) {
  if (const FixedField* fixed = fixedField(code)) return std::string(fixed->header);
  switch (code) {
    case kRawJobId: case 'i': case 'A': return "JOBID";
    case 'F': return "ARRAY_JOB_ID";
    case 'K': return "ARRAY_TASK_ID";
    case 'j': return "NAME";
    case 'u': return "USER";
    case 'U': return "UID";
    case 'g': return "GROUP";
    case 'G': return "GROUP";  // as the reference's header for the group id
    case 'a': return "ACCOUNT";
    case 'P': return "PARTITION";
    case 'T': return "STATE";
    case 't': return "ST";
    case 'r': return "REASON";
    case 'R': return "NODELIST(REASON)";
    case 'S': return "START_TIME";
    case 'V': return "SUBMIT_TIME";
    case 'e': return "END_TIME";
    case 'L': return "TIME_LEFT";
    case 'M': return "TIME";
    case 'l': return "TIME_LIMIT";
    case 'N': return "NODELIST";
    case 'D': return "NODES";
    case 'c': return "MIN_CPUS";
    case 'C': return "CPUS";
    case 'Z': return "WORK_DIR";
    case 'o': return "COMMAND";
    case 'm': return "MIN_MEMORY";
    case 'b': return "TRES_PER_NODE";
    case 'Q': case 'p': return "PRIORITY";
    case 'q': return "QOS";
    case 'y': return "NICE";
    case 'E': return "DEPENDENCY";
    case 'k': return "COMMENT";
    case 'v': return "RESERVATION";
    case 'f': return "FEATURES";
    case 'B': return "EXEC_HOST";
    case 'Y': return "SCHEDNODES";
    case 'n': return "REQ_NODES";
    case 'x': return "EXC_NODES";
    case 'h': return "OVER_SUBSCRIBE";
    case 'I': return "CORES_PER_SOCKET";
    case 'H': return "SOCKETS_PER_NODE";
    case 'J': return "THREADS_PER_CORE";
    case 'z': return "S:C:T";
    case 'O': return "CONTIGUOUS";
    case 'w': return "WCKEY";
    case 'W': return "LICENSES";
    case 'X': return "CORE_SPEC";
    case 'd': return "MIN_TMP_DISK";
    case kAccrueTime: return "ACCRUE_TIME";
    case kEligibleTime: return "ELIGIBLE_TIME";
    case kLastSchedEval: return "LAST_SCHED_EVAL";
    case kPendingTime: return "PENDING_TIME";
    case kStdOut: return "STDOUT";
    case kStdErr: return "STDERR";
    case kStdIn: return "STDIN";
    case kNumTasks: return "TASKS";
    case kRequeue: return "REQUEUE";
    case kRestartCount: return "RESTART_COUNT";
    case kMaxNodes: return "MAX_NODES";
    case kMaxCpus: return "MAX_CPUS";
    case kMinTime: return "TIME_MIN";
    case kExitStatus: return "EXIT_CODE";
    case kDerivedExitStatus: return "DERIVED_EC";
    case kTresAlloc: return "TRES_ALLOC";
    case kCpusPerTask: return "CPUS_PER_TASK";
    case kBatchFlag: return "BATCH_FLAG";
    case kReboot: return "REBOOT";
    case kTasksPerNode: return "NTASKS_PER_NODE";
    case kAllocNode: return "ALLOC_NODES";
    case kTresPerJob: return "TRES_PER_JOB";
    case kTresPerTask: return "TRES_PER_TASK";
    case kCpusPerTres: return "CPUS_PER_TRES";
    case kMemPerTres: return "MEM_PER_TRES";
    case kTresBind: return "TRES_BIND";
    case kDeadline: return "DEADLINE";
    case kPrefer: return "PREFER";
    case kPreemptTime: return "PREEMPT_TIME";
    case kTresFreq: return "TRES_FREQ";
    default: return "";
  }
}

std::string timeOrNA(std::int64_t t) { return t > 0 ? formatIsoTime(t, "N/A") : "N/A"; }

std::string reasonText(const v1::JobInfo& j) { return jobReasonText(j); }

// squeue's %R: "For terminated jobs with failure: an explanation as to why the job failed is
// printed within parenthesis" (squeue(1)); the reference showed (NonZeroExitCode) and
// (JobLaunchFailure) for FAILED jobs and nothing for a job cancelled while it waited.
bool failedEnd(v1::JobState s) {
  return s == v1::JOB_FAILED || s == v1::JOB_NODE_FAIL || s == v1::JOB_BOOT_FAIL || s == v1::JOB_OUT_OF_MEMORY;
}

void setNumber(std::string& v, std::uint64_t n) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, n);
  v.assign(buf, r.ptr);
}
void setNumber(std::string& v, std::int64_t n) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, n);
  v.assign(buf, r.ptr);
}
void setOrNull(std::string& v, const std::string& s) {
  if (s.empty()) v.assign("(null)");
  else v.assign(s);
}

// squeue's STDOUT and STDERR: the path as asked for, unexpanded (the reference showed
// /tmp/o_%j.out for a pending job), relative ones under the work directory; without one,
// slurm-<id>.out there (an array's id alone, as the reference's /tmp/slurm-7041.out).
std::string outputPath(const v1::JobInfo& j, const std::string& asked) {
  if (asked.empty()) {
    std::string out = j.work_dir() + "/slurm-";
    out += std::to_string(j.array_job_id() != 0 ? j.array_job_id() : j.job_id());
    return out + ".out";
  }
  return asked.front() == '/' ? asked : j.work_dir() + "/" + asked;
}

void setOrNA(std::string& v, std::string s) {
  if (s.empty()) v.assign("N/A");
  else v = std::move(s);
}

// The text of one field, into `v` (reused from field to field: thousands of rows, few
// allocations). What each code reads is listed in fieldsOf(); the unit test
// (squeue_fields_test) holds the two together.
void value(const v1::JobInfo& j, char code, std::int64_t now, std::string& v) {
  const bool pending = j.state() == v1::JOB_PENDING;
  switch (code) {
    case 'i':
      if (j.array_job_id() == 0) setNumber(v, j.job_id());
      else v = jobIdText(j);
      return;
    case kRawJobId: case 'A': setNumber(v, j.job_id()); return;
    case 'F': setNumber(v, j.array_job_id() != 0 ? j.array_job_id() : j.job_id()); return;
    case 'K': v = arrayTaskText(j); return;
    case 'j': v.assign(j.name()); return;
    case 'u':
      if (j.user().empty()) setNumber(v, std::uint64_t{j.uid()});
      else v.assign(j.user());
      return;
    case 'U': setNumber(v, std::uint64_t{j.uid()}); return;
    case 'g':
      if (j.group().empty()) setNumber(v, std::uint64_t{j.gid()});
      else v.assign(j.group());
      return;
    case 'G': setNumber(v, std::uint64_t{j.gid()}); return;
    case 'a': setOrNull(v, j.account()); return;
    case 'P': v.assign(j.partition()); return;
    case 'T': v.assign(jobStateName(j.state())); return;
    case 't': v.assign(jobStateShortName(j.state())); return;
    case 'r': v.assign(reasonText(j)); return;
    case 'R':
      if (pending || failedEnd(j.state())) {
        v.assign("(");
        v.append(reasonText(j));
        v.push_back(')');
      } else {
        v.assign(j.nodes());
      }
      return;
    case 'S': v = timeOrNA(j.start_time()); return;
    case 'V': v = timeOrNA(j.submit_time()); return;
    case 'e': v = timeOrNA(jobEndTime(j)); return;
    case 'L': {
      if (j.time_limit_min() < 0) {
        v.assign("UNLIMITED");
        return;
      }
      const std::int64_t left = j.time_limit_min() * 60 - (pending ? 0 : jobRunTime(j, now));
      v = formatSqueueDuration(std::max<std::int64_t>(left, 0));
      return;
    }
    case 'M':
      if (pending) v.assign("0:00");
      else v = formatSqueueDuration(jobRunTime(j, now));
      return;
    case 'l': v = formatSqueueLimit(j.time_limit_min()); return;
    case 'N':
      if (pending) v.clear();
      else v.assign(j.nodes());
      return;
    case 'D': setNumber(v, std::uint64_t{j.num_nodes() > 0 ? j.num_nodes() : std::max(1u, j.spec().min_nodes())}); return;
    case 'c': setNumber(v, std::uint64_t{std::max(1u, j.spec().cpus_per_task())}); return;
    case 'C': setNumber(v, std::uint64_t{j.num_cpus()}); return;
    case 'Z': v.assign(j.work_dir()); return;
    case 'o': setOrNull(v, j.command()); return;
    case 'm': v = minMemory(j).text; return;
    case 'b': {
      v = tresPerNode(j);
      if (v.empty()) v.assign("N/A");
      return;
    }
    case 'Q': setNumber(v, shownPriority(j)); return;
    case 'p': v = normalizedPriority(j); return;
    case 'q':
      if (j.qos().empty()) v.assign("normal");
      else v.assign(j.qos());
      return;
    case 'y': setNumber(v, std::int64_t{j.nice()}); return;
    // Each item with its state, as scontrol's Dependency= (Slurm keeps one string for both);
    // empty (NULL) once the dependency is met.
    case 'E': setOrNull(v, j.dependency_status()); return;
    case 'k': setOrNull(v, j.spec().comment()); return;
    case 'v': setOrNull(v, j.spec().reservation()); return;
    case 'f': setOrNull(v, j.features()); return;
    case 'B':
      if (j.batch_host().empty()) v.assign("n/a");
      else v.assign(j.batch_host());
      return;
    case 'Y': setOrNull(v, j.sched_nodes()); return;
    case 'n': v.assign(j.req_nodes()); return;
    case 'x': v.assign(j.exc_nodes()); return;
    case 'h': v.assign(j.spec().exclusive() ? "NO" : "OK"); return;
    // Requests Drover's jobs cannot make (sockets/cores/threads per node, contiguous nodes,
    // wckeys, licenses, core specialisation, temporary disk): the reference's values for a job
    // that made none.
    case 'I': case 'H': case 'J': v.assign("*"); return;
    case 'z': v.assign("*:*:*"); return;
    case 'O': case 'd': v.assign("0"); return;
    case 'w': case 'W': v.assign("(null)"); return;
    case 'X': v.assign("N/A"); return;
    case kAccrueTime: case kEligibleTime: v = timeOrNA(shownEligibleTime(j)); return;
    // Drover's scheduler looks at every pending job on each pass, so the last evaluation is
    // when the job was last seen pending: its submission, or its start once it started.
    case kLastSchedEval: v = timeOrNA(pending || j.start_time() <= 0 ? j.submit_time() : j.start_time()); return;
    case kPendingTime: {
      const std::int64_t until = pending || j.start_time() <= 0 ? now : j.start_time();
      setNumber(v, std::max<std::int64_t>(0, until - j.submit_time()));
      return;
    }
    case kStdOut: v = outputPath(j, j.spec().std_out()); return;
    case kStdErr: v = outputPath(j, j.spec().std_err().empty() ? j.spec().std_out() : j.spec().std_err()); return;
    case kStdIn: v.assign(j.spec().std_in().empty() ? "/dev/null" : j.spec().std_in()); return;
    case kNumTasks: {
      std::uint32_t tasks = j.num_tasks() > 0 ? j.num_tasks() : j.spec().ntasks();
      setNumber(v, std::uint64_t{std::max({1u, tasks, j.spec().min_nodes()})});
      return;
    }
    case kRequeue: v.assign(j.requeue() ? "1" : "0"); return;
    case kRestartCount: setNumber(v, std::uint64_t{j.restart_count()}); return;
    case kMaxNodes: setNumber(v, std::uint64_t{std::max({1u, j.spec().min_nodes(), j.spec().max_nodes()})}); return;
    case kMaxCpus: setNumber(v, std::uint64_t{j.num_cpus()}); return;
    case kMinTime: v = formatSqueueDuration(j.spec().time_min_min() * 60); return;
    // The wait status, as the reference's 768 for `exit 3` and 9 for a SIGKILL.
    case kExitStatus: setNumber(v, std::uint64_t{waitStatus(j.exit_code(), j.exit_signal())}); return;
    case kDerivedExitStatus:
      setNumber(v, std::uint64_t{waitStatus(j.derived_exit_code(), j.derived_exit_signal())});
      return;
    case kTresAlloc: v.assign(j.alloc_tres().empty() ? j.req_tres() : j.alloc_tres()); return;
    case kCpusPerTask: setNumber(v, std::uint64_t{std::max(1u, j.spec().cpus_per_task())}); return;
    case kBatchFlag: v.assign(j.batch() ? "1" : "0"); return;
    case kReboot: v.assign(j.spec().reboot() ? "1" : "0"); return;
    case kTasksPerNode: setNumber(v, std::uint64_t{j.spec().ntasks_per_node()}); return;
    case kAllocNode: setOrNull(v, j.spec().submit_host()); return;
    case kTresPerJob: setOrNA(v, tresPerJobText(j.spec())); return;
    case kTresPerTask: setOrNA(v, tresPerTaskText(j.spec())); return;
    case kCpusPerTres: setOrNA(v, cpusPerTresText(j.spec())); return;
    case kMemPerTres: setOrNA(v, memPerTresText(j.spec())); return;
    case kTresBind: setOrNA(v, tresBindText(j.spec())); return;
    case kDeadline: v = timeOrNA(j.spec().deadline()); return;
    case kPrefer: setOrNull(v, j.spec().prefer()); return;
    case kPreemptTime: v = timeOrNA(j.preempt_time()); return;
    case kTresFreq: setOrNA(v, tresFreqText(j.spec())); return;
    default:
      if (const FixedField* fixed = fixedField(code)) v.assign(fixed->value);
      else v.clear();
      return;
  }
}

// The JobInfo (and JobSpec) fields value() reads for a code, by field number.
struct CodeFields {
  std::vector<std::uint32_t> info, spec;
};
CodeFields fieldsOf(char code) {
  using J = v1::JobInfo;
  using S = v1::JobSpec;
  constexpr std::uint32_t kSpec = J::kSpecFieldNumber;
  // jobRunTime(): state, start time, recorded run time.
  const std::vector<std::uint32_t> run = {J::kStateFieldNumber, J::kStartTimeFieldNumber,
                                          J::kRunTimeSFieldNumber};
  auto with = [](std::vector<std::uint32_t> a, std::initializer_list<std::uint32_t> more) {
    a.insert(a.end(), more);
    return a;
  };
  switch (code) {
    case 'i': case 'K':
      return {{J::kJobIdFieldNumber, J::kArrayJobIdFieldNumber, J::kArrayTaskIdFieldNumber,
               J::kArrayTaskPendingFieldNumber}, {}};
    case kRawJobId: case 'A': return {{J::kJobIdFieldNumber}, {}};
    case 'F': return {{J::kJobIdFieldNumber, J::kArrayJobIdFieldNumber}, {}};
    case 'j': return {{J::kNameFieldNumber}, {}};
    case 'u': return {{J::kUserFieldNumber, J::kUidFieldNumber}, {}};
    case 'U': return {{J::kUidFieldNumber}, {}};
    case 'g': return {{J::kGroupFieldNumber, J::kGidFieldNumber}, {}};
    case 'G': return {{J::kGidFieldNumber}, {}};
    case 'a': return {{J::kAccountFieldNumber}, {}};
    case 'P': return {{J::kPartitionFieldNumber}, {}};
    case 'T': case 't': return {{J::kStateFieldNumber}, {}};
    case 'r':
      return {{J::kStateFieldNumber, J::kReasonFieldNumber, J::kReasonDescriptionFieldNumber,
               J::kHeldUserFieldNumber, J::kHeldAdminFieldNumber, J::kExitCodeFieldNumber,
               J::kExitSignalFieldNumber}, {}};
    case 'R':
      return {{J::kStateFieldNumber, J::kReasonFieldNumber, J::kReasonDescriptionFieldNumber,
               J::kNodesFieldNumber, J::kHeldUserFieldNumber, J::kHeldAdminFieldNumber,
               J::kExitCodeFieldNumber, J::kExitSignalFieldNumber}, {}};
    case 'S': return {{J::kStartTimeFieldNumber}, {}};
    case 'V': return {{J::kSubmitTimeFieldNumber}, {}};
    case 'e':
      return {{J::kEndTimeFieldNumber, J::kStateFieldNumber, J::kStartTimeFieldNumber,
               J::kTimeLimitMinFieldNumber}, {}};
    case 'L': return {with(run, {J::kTimeLimitMinFieldNumber}), {}};
    case 'M': return {run, {}};
    case 'l': return {{J::kTimeLimitMinFieldNumber}, {}};
    case 'N': return {{J::kStateFieldNumber, J::kNodesFieldNumber}, {}};
    case 'D': return {{J::kNumNodesFieldNumber, kSpec}, {S::kMinNodesFieldNumber}};
    case 'c': return {{kSpec}, {S::kCpusPerTaskFieldNumber}};
    case 'C': return {{J::kNumCpusFieldNumber}, {}};
    case 'Z': return {{J::kWorkDirFieldNumber}, {}};
    case 'o': return {{J::kCommandFieldNumber}, {}};
    case 'm': return {{kSpec}, {S::kMemPerCpuMbFieldNumber, S::kMemPerNodeMbFieldNumber}};
    case 'b': return {{kSpec}, {S::kGresFieldNumber, S::kGpusPerNodeFieldNumber}};
    case 'Q': case 'p': return {{J::kPriorityFieldNumber, J::kHeldUserFieldNumber, J::kHeldAdminFieldNumber}, {}};
    case 'q': return {{J::kQosFieldNumber}, {}};
    case 'y': return {{J::kNiceFieldNumber}, {}};
    case 'E': return {{J::kDependencyStatusFieldNumber}, {}};
    case 'k': return {{kSpec}, {S::kCommentFieldNumber}};
    case 'v': return {{kSpec}, {S::kReservationFieldNumber}};
    case 'f': return {{J::kFeaturesFieldNumber}, {}};
    case 'B': return {{J::kBatchHostFieldNumber}, {}};
    case 'Y': return {{J::kSchedNodesFieldNumber}, {}};
    case 'n': return {{J::kReqNodesFieldNumber}, {}};
    case 'x': return {{J::kExcNodesFieldNumber}, {}};
    case 'h': return {{kSpec}, {S::kExclusiveFieldNumber}};
    case kAccrueTime: case kEligibleTime:
      return {{J::kEligibleTimeFieldNumber, J::kStateFieldNumber, kSpec}, {S::kBeginTimeFieldNumber}};
    case kLastSchedEval: case kPendingTime:
      return {{J::kStateFieldNumber, J::kStartTimeFieldNumber, J::kSubmitTimeFieldNumber}, {}};
    case kStdOut:
      return {{J::kWorkDirFieldNumber, J::kJobIdFieldNumber, J::kArrayJobIdFieldNumber, kSpec}, {S::kStdOutFieldNumber}};
    case kStdErr:
      return {{J::kWorkDirFieldNumber, J::kJobIdFieldNumber, J::kArrayJobIdFieldNumber, kSpec},
              {S::kStdOutFieldNumber, S::kStdErrFieldNumber}};
    case kStdIn: return {{kSpec}, {S::kStdInFieldNumber}};
    case kNumTasks: return {{J::kNumTasksFieldNumber, kSpec}, {S::kNtasksFieldNumber, S::kMinNodesFieldNumber}};
    case kRequeue: return {{J::kRequeueFieldNumber}, {}};
    case kRestartCount: return {{J::kRestartCountFieldNumber}, {}};
    case kMaxNodes: return {{kSpec}, {S::kMinNodesFieldNumber, S::kMaxNodesFieldNumber}};
    case kMaxCpus: return {{J::kNumCpusFieldNumber}, {}};
    case kMinTime: return {{kSpec}, {S::kTimeMinMinFieldNumber}};
    case kExitStatus: return {{J::kExitCodeFieldNumber, J::kExitSignalFieldNumber}, {}};
    case kDerivedExitStatus: return {{J::kDerivedExitCodeFieldNumber, J::kDerivedExitSignalFieldNumber}, {}};
    case kTresAlloc: return {{J::kAllocTresFieldNumber, J::kReqTresFieldNumber}, {}};
    case kCpusPerTask: return {{kSpec}, {S::kCpusPerTaskFieldNumber}};
    case kBatchFlag: return {{J::kBatchFieldNumber}, {}};
    case kReboot: return {{kSpec}, {S::kRebootFieldNumber}};
    case kTasksPerNode: return {{kSpec}, {S::kNtasksPerNodeFieldNumber}};
    case kAllocNode: return {{kSpec}, {S::kSubmitHostFieldNumber}};
    case kTresPerJob: return {{kSpec}, {S::kGpusFieldNumber}};
    case kTresPerTask: return {{kSpec}, {S::kGpusPerTaskFieldNumber}};
    case kCpusPerTres: return {{kSpec}, {S::kCpusPerGpuFieldNumber}};
    case kMemPerTres: return {{kSpec}, {S::kMemPerGpuMbFieldNumber}};
    case kTresBind: return {{kSpec}, {S::kGpuBindFieldNumber}};
    case kDeadline: return {{kSpec}, {S::kDeadlineFieldNumber}};
    case kPrefer: return {{kSpec}, {S::kPreferFieldNumber}};
    case kTresFreq: return {{kSpec}, {S::kGpuFreqFieldNumber}};
    case kPreemptTime: return {{J::kPreemptTimeFieldNumber}, {}};
    default: return {};
  }
}

constexpr NamedField kOFields[] = {
    {"jobid", kRawJobId}, {"jobarrayid", 'i'}, {"arrayjobid", 'F'}, {"arraytaskid", 'K'},
    {"name", 'j'}, {"username", 'u'}, {"userid", 'U'}, {"groupname", 'g'}, {"groupid", 'G'},
    {"account", 'a'}, {"partition", 'P'}, {"state", 'T'}, {"statecompact", 't'}, {"reason", 'r'},
    {"reasonlist", 'R'}, {"starttime", 'S'}, {"submittime", 'V'}, {"endtime", 'e'},
    {"timeleft", 'L'}, {"timeused", 'M'}, {"timelimit", 'l'}, {"nodelist", 'N'}, {"numnodes", 'D'},
    {"mincpus", 'c'}, {"numcpus", 'C'}, {"workdir", 'Z'}, {"command", 'o'}, {"minmemory", 'm'},
    {"tres-per-node", 'b'}, {"priority", 'p'}, {"prioritylong", 'Q'}, {"qos", 'q'}, {"nice", 'y'},
    {"dependency", 'E'}, {"comment", 'k'}, {"feature", 'f'}, {"batchhost", 'B'},
    {"schednodes", 'Y'}, {"reqnodes", 'n'}, {"excnodes", 'x'}, {"oversubscribe", 'h'},
    {"reservation", 'v'}, {"cores", 'I'}, {"corespec", 'X'}, {"contiguous", 'O'},
    {"licenses", 'W'}, {"mintmpdisk", 'd'}, {"sct", 'z'}, {"sockets", 'H'}, {"threads", 'J'},
    {"wckey", 'w'}, {"accruetime", kAccrueTime}, {"eligibletime", kEligibleTime},
    {"lastschedeval", kLastSchedEval}, {"pendingtime", kPendingTime}, {"stdout", kStdOut},
    {"stderr", kStdErr}, {"stdin", kStdIn}, {"numtasks", kNumTasks}, {"requeue", kRequeue},
    {"restartcnt", kRestartCount}, {"maxnodes", kMaxNodes}, {"maxcpus", kMaxCpus},
    {"mintime", kMinTime}, {"exit_code", kExitStatus}, {"derivedec", kDerivedExitStatus},
    {"tres-alloc", kTresAlloc}, {"cpus-per-task", kCpusPerTask}, {"batchflag", kBatchFlag},
    {"reboot", kReboot}, {"ntpernode", kTasksPerNode}, {"allocnodes", kAllocNode},
    {"tres-per-job", kTresPerJob}, {"tres-per-task", kTresPerTask},
    {"cpus-per-tres", kCpusPerTres}, {"mem-per-tres", kMemPerTres}, {"tres-bind", kTresBind},
    {"deadline", kDeadline}, {"prefer", kPrefer}, {"tres-freq", kTresFreq},
    {"preempttime", kPreemptTime},
};


// kOFields and the fixed ones, in one list for namedFieldFormat.
const std::vector<NamedField>& allOFields() {
  static const std::vector<NamedField> all = [] {
    std::vector<NamedField> out(std::begin(kOFields), std::end(kOFields));
    for (std::size_t i = 0; i < std::size(kFixedFields); ++i) out.push_back({kFixedFields[i].name, fixedCode(i)});
    return out;
  }();
  return all;
}

// An unknown name is left out with the reference's warning, added to `warnings` when given
// (squeueFormatWarnings), exit 0.
Result<Format> parseLongFormat(const std::string& text, std::vector<std::string>* warnings) {
  return namedFieldFormat(text, allOFields(), [warnings](const std::string& name) {
    if (warnings) warnings->push_back("Invalid job format specification: " + name);
    return std::string();
  });
}

}  // namespace

std::optional<char> invalidSortKey(std::string_view spec, std::vector<std::string>* warnings) {
  // The keys the reference's squeue 22.05 took, each tried alone (2026-12-03).
  constexpr std::string_view kKeys = "bcdefghijlmnptuvzBCDGHIJLMNOPQSTUV";
  for (auto it = spec.rbegin(); it != spec.rend(); ++it) {
    const char c = *it;
    if (c == ',' || c == '+' || c == '-') continue;
    if (c == 'b') {
      if (warnings) warnings->push_back("Invalid sort specification: b");
      continue;
    }
    if (kKeys.find(c) == std::string_view::npos) return c;
  }
  return std::nullopt;
}

std::vector<std::string_view> squeueLongFieldNames() {
  std::vector<std::string_view> out;
  for (const auto& f : allOFields()) out.push_back(f.name);
  return out;
}

namespace {

// One row's value for one -S letter, read from the row once before the sort. Letters that order
// by more than one thing ('i', 'S') fill the numbers in turn; a letter that orders by text fills
// `text`, which the sort replaces by its rank among the column's texts, so the n log n
// comparisons compare integers only (reading both rows for each was a quarter of squeue's
// instructions at 5,000 jobs).
struct SortValue {
  std::string_view text;
  std::int64_t first = 0;
  std::int64_t second = 0;
  std::int64_t third = 0;

  int compare(const SortValue& o) const {
    if (int c = threeWay(first, o.first); c != 0) return c;
    if (int c = threeWay(second, o.second); c != 0) return c;
    return threeWay(third, o.third);
  }
  bool operator==(const SortValue& o) const { return compare(o) == 0; }
};

// Replaces each text in a column of values by its rank in byte order (equal texts, equal ranks);
// a column of numbers has no text and is left as it is.
void rankTexts(std::vector<SortValue>& values, std::size_t column, std::size_t stride) {
  std::map<std::string_view, std::int64_t> ranks;
  for (std::size_t i = column; i < values.size(); i += stride) ranks.emplace(values[i].text, 0);
  if (ranks.size() == 1 && ranks.begin()->first.empty()) return;
  std::int64_t next = 0;
  for (auto& [text, rank] : ranks) rank = next++;
  for (std::size_t i = column; i < values.size(); i += stride) values[i].first = ranks[values[i].text];
}

SortValue sortValue(const v1::JobInfo& j, char code) {
  const auto id = [](std::uint64_t v) { return static_cast<std::int64_t>(v); };
  switch (code) {
    case 'P': return {j.partition()};
    // By the state's name, as the reference's squeue -t all listed CANCELLED, FAILED, PENDING, RUNNING.
    case 't': case 'T': return {jobStateName(j.state())};
    case 'p': case 'Q': return {{}, shownPriority(j)};
    // An array's tasks by the array's id, then by task, the waiting remainder above (below
    // with -i) its started tasks: the reference's `-S -i` listed 3_[2-7%2], 3_1, 3_0, 2.
    case 'i':
      return {{},
              id(j.array_job_id() != 0 ? j.array_job_id() : j.job_id()),
              !j.array_task_pending().empty() ? std::numeric_limits<std::int64_t>::max()
                                              : std::int64_t{j.array_task_id()}};
    case 'A': return {{}, id(j.job_id())};
    case 'j': return {j.name()};
    case 'u': return {j.user()};
    // Unknown start times last, those by job id with an array's pending remainder after
    // single jobs (as Slurm's --start lists them).
    case 'S':
      if (j.start_time() > 0) return {{}, j.start_time()};
      return {{}, std::numeric_limits<std::int64_t>::max(), !j.array_task_pending().empty(), id(j.job_id())};
    case 'V': return {{}, j.submit_time()};
    case 'M': return {{}, j.run_time_s()};
    case 'l': return {{}, j.time_limit_min()};
    case 'D': return {{}, j.num_nodes()};
    case 'C': return {{}, j.num_cpus()};
    case 'N': return {j.nodes()};
    default: return {};
  }
}

// -S (sort_keys.h); default "P,t,-p" (partition, state, priority descending). Stable over the
// controller's order, as sortByKeys; rows are pointers, so the sort moves no message. A key on
// which every row agrees cannot change the order and is left out of the comparisons.
void sortJobs(std::vector<const v1::JobInfo*>& jobs, const std::string& spec_text, bool start) {
  const std::string spec = spec_text.empty() ? (start ? "S" : "P,t,-p") : spec_text;
  const std::vector<SortKey> keys = parseSortKeys(spec);
  const std::size_t n = jobs.size();
  const std::size_t k = keys.size();
  if (k == 0 || n < 2) return;
  std::vector<SortValue> values(n * k);
  for (std::size_t column = 0; column < k; ++column) {
    for (std::size_t row = 0; row < n; ++row) values[row * k + column] = sortValue(*jobs[row], keys[column].code);
    rankTexts(values, column, k);
  }
  // Columns on which all rows agree order nothing.
  std::vector<std::size_t> live;
  for (std::size_t column = 0; column < k; ++column) {
    for (std::size_t row = 1; row < n; ++row) {
      if (!(values[row * k + column] == values[column])) {
        live.push_back(column);
        break;
      }
    }
  }
  if (live.empty()) return;
  std::vector<std::uint32_t> order(n);
  for (std::uint32_t row = 0; row < n; ++row) order[row] = row;
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    for (std::size_t column : live) {
      const int c = values[a * k + column].compare(values[b * k + column]);
      if (c != 0) return keys[column].descending ? c > 0 : c < 0;
    }
    return false;
  });
  std::vector<const v1::JobInfo*> sorted(n);
  for (std::size_t i = 0; i < n; ++i) sorted[i] = jobs[order[i]];
  jobs.swap(sorted);
}

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// The output's format: -O, -o, or the built-in one -l / --start / neither selects.
Result<Format> outputFormat(const SqueueOptions& options) {
  if (!options.format_long.empty()) return parseLongFormat(options.format_long, nullptr);
  const std::string text = !options.format.empty() ? options.format
                           : options.start          ? kStartFormat
                           : options.long_format    ? kLongFormat
                                                    : kDefaultFormat;
  std::vector<std::string> invalid;  // printed as written; squeueFormatWarnings says so
  return parseFormat(text, &invalid);
}

// Pads (and truncates) as format_spec's applyWidth, appending in place.
void appendField(std::string& out, std::string_view value, const FieldSpec& spec) {
  if (spec.width <= 0) {
    out.append(value);
    return;
  }
  const auto width = static_cast<std::size_t>(spec.width);
  if (value.size() >= width) {
    out.append(value.substr(0, width));
    return;
  }
  if (spec.right) out.append(width - value.size(), ' ');
  out.append(value);
  if (!spec.right) out.append(width - value.size(), ' ');
}

}  // namespace

std::vector<std::string> squeueFormatWarnings(const SqueueOptions& options) {
  std::vector<std::string> out;
  if (options.json) return out;
  if (!options.format_long.empty()) {
    (void)parseLongFormat(options.format_long, &out);
  } else if (!options.format.empty()) {
    // The reference printed `%!` as written and named the character (exit 0).
    std::vector<std::string> invalid;
    (void)parseFormat(options.format, &invalid);
    for (const auto& c : invalid) out.push_back("Invalid job format specification: " + c);
  }
  return out;
}

SqueueFields squeueFields(const SqueueOptions& options) {
  SqueueFields out;
  if (options.json) return out;  // --json prints every key Slurm has
  auto format = outputFormat(options);
  if (!format.ok()) return out;  // rendering reports the error
  using J = v1::JobInfo;
  // What selection (filters, -r, -j) and every -S key read.
  out.info = {J::kJobIdFieldNumber,         J::kArrayJobIdFieldNumber,  J::kArrayTaskIdFieldNumber,
              J::kArrayTaskPendingFieldNumber, J::kStateFieldNumber,  J::kUserFieldNumber,
              J::kUidFieldNumber,           J::kPartitionFieldNumber,   J::kNameFieldNumber,
              J::kNodesFieldNumber,         J::kPriorityFieldNumber,    J::kStartTimeFieldNumber,
              J::kSubmitTimeFieldNumber,    J::kRunTimeSFieldNumber,    J::kTimeLimitMinFieldNumber,
              J::kNumNodesFieldNumber,      J::kNumCpusFieldNumber,     J::kHeldUserFieldNumber,
              J::kHeldAdminFieldNumber};  // the held flags: a held job sorts as priority 0
  if (!options.accounts.empty()) out.info.push_back(J::kAccountFieldNumber);
  if (!options.qos.empty()) out.info.push_back(J::kQosFieldNumber);
  if (!options.reservation.empty()) {
    out.info.push_back(J::kSpecFieldNumber);
    out.spec.push_back(v1::JobSpec::kReservationFieldNumber);
  }
  auto add = [](std::vector<std::uint32_t>& to, const std::vector<std::uint32_t>& more) {
    for (auto n : more)
      if (std::find(to.begin(), to.end(), n) == to.end()) to.push_back(n);
  };
  for (const auto& item : *format) {
    if (!item.is_field) continue;
    const CodeFields f = fieldsOf(item.field.code);
    add(out.info, f.info);
    add(out.spec, f.spec);
  }
  return out;
}

Result<SqueueRows> selectSqueueRows(const SqueueOptions& options,
                                    const std::vector<const v1::JobInfo*>& jobs) {
  std::vector<v1::JobState> states;
  bool all_states = false, state_filter = false;
  for (const auto& s : options.states) {
    if (toLowerAscii(s) == "all") {
      all_states = true;
      continue;
    }
    state_filter = true;
    if (isSlurmOnlyJobState(s)) continue;  // valid, and no Drover job is ever in it
    auto st = parseJobStateName(s);
    if (!st) {
      return makeError("Invalid job state specified: " + s + "\nsqueue: error: Valid job states include: " +
                       std::string(kSqueueValidStates) + "\n");
    }
    states.push_back(*st);
  }
  SqueueRows out;
  out.rows.reserve(jobs.size());
  for (const v1::JobInfo* job : jobs) {
    const v1::JobInfo& j = *job;
    if (!options.job_ids.empty() &&
        std::none_of(options.job_ids.begin(), options.job_ids.end(),
                     [&j](const std::string& id) { return jobMatchesId(j, id); }))
      continue;
    if (!options.users.empty() && !contains(options.users, j.user()) &&
        !contains(options.users, std::to_string(j.uid())))
      continue;
    // A waiting job of several partitions ("gpu,debug") is listed under each of them.
    if (!options.partitions.empty() &&
        std::none_of(options.partitions.begin(), options.partitions.end(),
                     [listed = splitCommas(j.partition())](const std::string& p) {
                       return std::find(listed.begin(), listed.end(), p) != listed.end();
                     }))
      continue;
    if (!options.names.empty() && !contains(options.names, j.name())) continue;
    if (!options.accounts.empty() && !contains(options.accounts, j.account())) continue;
    if (!options.qos.empty() &&
        std::none_of(options.qos.begin(), options.qos.end(), [&j](const std::string& q) {
          return equalsIgnoreCase(q, j.qos().empty() ? std::string_view("normal") : j.qos());
        }))
      continue;
    if (!options.licenses.empty()) continue;
    if (!options.reservation.empty() && j.spec().reservation() != options.reservation) continue;
    if (!all_states) {
      if (!state_filter) {
        // Without -t only jobs still in the system (pending, running, completing...), -j or
        // not: the reference's `squeue -j ID` of a finished job printed the header alone (its
        // man page: -t defaults to PENDING,RUNNING,COMPLETING); `-t all -j ID` shows it.
        // --json with -j keeps listing a finished job (the reference's --json listed every job).
        if (!isActiveState(j.state()) && !(options.json && !options.job_ids.empty())) continue;
      } else if (std::find(states.begin(), states.end(), j.state()) == states.end()) {
        continue;
      }
    }
    if (!options.nodes.empty()) {
      auto hosts = hostlist::expand(j.nodes());
      if (!hosts.ok() || std::none_of(hosts->begin(), hosts->end(), [&](const std::string& h) {
            return contains(options.nodes, h);
          }))
        continue;
    }
    if (options.start && j.state() != v1::JOB_PENDING) continue;
    if (options.expand_arrays && !j.array_task_pending().empty()) {
      for (auto task : expandArrayTasks(j.array_task_pending())) {
        v1::JobInfo& t = out.expanded.emplace_back(j);
        t.clear_array_task_pending();
        t.set_array_task_id(task);
        out.rows.push_back(&t);
      }
      continue;
    }
    out.rows.push_back(job);
  }
  sortJobs(out.rows, options.sort, options.start);
  return out;
}

Result<std::vector<v1::JobInfo>> selectSqueueJobs(const SqueueOptions& options,
                                                  std::vector<v1::JobInfo> jobs) {
  std::vector<const v1::JobInfo*> in;
  in.reserve(jobs.size());
  for (const auto& j : jobs) in.push_back(&j);
  auto selected = selectSqueueRows(options, in);
  if (!selected.ok()) return makeError(selected.error());
  std::vector<v1::JobInfo> out;
  out.reserve(selected->rows.size());
  for (const v1::JobInfo* j : selected->rows) out.push_back(*j);
  return out;
}

Status renderSqueueTo(const SqueueOptions& options, const std::vector<const v1::JobInfo*>& jobs,
                      std::int64_t now, std::string* out) {
  auto selected = selectSqueueRows(options, jobs);
  if (!selected.ok()) return makeError(selected.error());
  if (options.json) {
    json::Array arr;
    for (const v1::JobInfo* j : selected->rows) arr.push_back(squeueJobJson(*j, now, options.cluster_name));
    json::Object root;
    root.emplace_back("meta", json::slurmMeta());
    root.emplace_back("errors", json::Array{});
    root.emplace_back("jobs", json::Value(std::move(arr)));
    const json::Value doc(std::move(root));
    out->append(options.yaml ? json::dumpYaml(doc) : json::dump(doc));
    return okStatus();
  }
  auto format = outputFormat(options);
  if (!format.ok()) return makeError(format.error());
  if (printsDateLine(options)) out->append(dateLine(now)).push_back('\n');
  // Fixed-width rows: reserving by the first row's width keeps the buffer from regrowing.
  std::size_t line = 1;
  for (const auto& item : *format)
    line += item.is_field ? static_cast<std::size_t>(std::max(item.field.width, 8)) : item.literal.size();
  out->reserve(out->size() + line * (selected->rows.size() + 1));
  if (!options.no_header) {
    for (const auto& item : *format) {
      if (item.is_field) appendField(*out, header(item.field.code), item.field);
      else out->append(item.literal);
    }
    out->push_back('\n');
  }
  std::string v;
  for (const v1::JobInfo* j : selected->rows) {
    for (const auto& item : *format) {
      if (item.is_field) {
        value(*j, item.field.code, now, v);
        appendField(*out, v, item.field);
      } else {
        out->append(item.literal);
      }
    }
    out->push_back('\n');
  }
  return okStatus();
}

Result<std::string> renderSqueue(const SqueueOptions& options, std::vector<v1::JobInfo> jobs,
                                 std::int64_t now) {
  std::vector<const v1::JobInfo*> rows;
  rows.reserve(jobs.size());
  for (const auto& j : jobs) rows.push_back(&j);
  std::string out;
  Status s = renderSqueueTo(options, rows, now, &out);
  if (!s) return makeError(s.error());
  return out;
}

}  // namespace drover::cli
