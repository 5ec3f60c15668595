#include "cli/scontrol.h"

#include <getopt.h>
#include <strings.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <optional>
#include <iostream>
#include <sstream>

#include "cli/array_update_lines.h"
#include "cli/batch_script_write.h"
#include "cli/cli_common.h"
#include "cli/controller_client.h"
#include "cli/config_show.h"
#include "cli/job_show.h"
#include "cli/job_values.h"
#include "cli/scontrol_interactive.h"
#include "cli/scontrol_partition_update.h"
#include "cli/scontrol_pids.h"
#include "cli/scontrol_reservation.h"
#include "cli/scontrol_site_show.h"
#include "cli/scontrol_view.h"
#include "cli/scontrol_wait_notify.h"
#include "cli/shown_job_id.h"
#include "cli/step_rows.h"
#include "cli/step_show.h"
#include "common/ascii_case.h"
#include "common/debug_level.h"
#include "drover/hostlist.h"
#include "drover/time_spec.h"
#include "jobspec/begin_time.h"
#include "jobstate/job_update_keys.h"

namespace drover::cli {
namespace {

constexpr const char* kProg = "scontrol";

enum LongOnly { kOptUsage = 1000, kOptLocal, kOptFederation, kOptHide, kOptSibling };

constexpr const char* kHelp =
    "scontrol [<OPTION>] [<COMMAND>]\n"
    "    Valid <OPTION> values are:\n"
    "     -a or --all: equivalent to \"all\" command\n"
    "     -d or --details: equivalent to \"details\" command\n"
    "     -h or --help: equivalent to \"help\" command\n"
    "     -o or --oneliner: equivalent to \"oneliner\" command\n"
    "     -Q or --quiet: equivalent to \"quiet\" command\n"
    "     -v or --verbose: equivalent to \"verbose\" command\n"
    "     -V or --version: equivalent to \"version\" command\n"
    "\n"
    "    Valid <COMMAND> values are:\n"
    "     create <SPECIFICATIONS>  create a reservation (ReservationName= StartTime=\n"
    "                              Duration= Nodes= Users= ...) or a partition\n"
    "                              (PartitionName=<name> Nodes= MaxTime= ...).\n"
    "     delete <SPECIFICATIONS>  delete a reservation (ReservationName=<name>) or a\n"
    "                              partition (PartitionName=<name>).\n"
    "     ping                     print status of the drover controller.\n"
    "     reconfigure              re-read cluster.conf in the controller.\n"
    "     setdebug <LEVEL>         set the controller's log level (quiet, fatal, error, info,\n"
    "                              verbose, debug, debug2 ... debug5, or 0-9).\n"
    "     show <ENTITY> [<ID>]     display state of identified entity, default is all records.\n"
    "                              <ENTITY> is config, job, step, node, partition, reservation,\n"
    "                              hostnames, hostlist, hostlistsorted, daemons, aliases,\n"
    "                              licenses, topology, frontend, federation or burstbuffer.\n"
    "     update <SPECIFICATIONS>  update job (JobId=<id> TimeLimit= Partition= NumNodes=\n"
    "                              Dependency= Nice= ...) or node state (NodeName=<name>\n"
    "                              State=<state> Reason=<text>), partition\n"
    "                              (PartitionName=<name> State= MaxTime= ...) or\n"
    "                              reservation (ReservationName=<name> ...).\n"
    "     hold <job_list>          prevent a pending job from being started (admin hold).\n"
    "     uhold <job_list>         place a user hold on a pending job.\n"
    "     release <job_list>       permit a held job to be started.\n"
    "     requeue <job_list>       requeue a batch job.\n"
    "     requeuehold <job_list>   requeue a batch job and hold it.\n"
    "     suspend <job_list>       suspend a running job (SIGSTOP).\n"
    "     resume <job_list>        resume a suspended job (SIGCONT).\n"
    "     top <job_list>           put a job at the top of its user's queue.\n"
    "     wait_job <job_id>        wait until a job's nodes are ready (it runs).\n"
    "     notify <job_id> <message>  send a message to the job's salloc or srun.\n"
    "     listpids [<job_id>[.<step_id>]] [<NodeName>]\n"
    "                              list the processes of the job steps on this host's\n"
    "                              node (or NodeName).\n"
    "     pidinfo <pid>            the job of a process on this host, and its end time.\n"
    "     write batch_script <job_id> <optional_filename>\n"
    "                              write the batch script for a given job_id to a\n"
    "                              file or to stdout (filename \"-\").\n"
    "     version                  display tool version number.\n"
    "\n"
    "    With no <COMMAND>, scontrol reads commands from stdin, one a line, until\n"
    "    \"quit\", \"exit\" or the end of input. These are taken there too:\n"
    "     oneliner                 show one record per line from now on.\n"
    "     details                  show more details from now on.\n"
    "     quiet                    print no informational messages from now on.\n"
    "     all, hide, verbose       accepted; no effect in Drover.\n"
    "     !!                       run the last command again.\n"
    "     quit, exit               end the session.\n";


struct Globals {
  bool oneliner = false;
  bool quiet = false;
  bool details = false;
};

Result<std::vector<std::string>> readHostFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return makeError("cannot read host file " + path);
  std::vector<std::string> hosts;
  std::string word;
  while (in >> word) {
    for (const auto& item : splitCommas(word)) {
      auto expanded = hostlist::expand(item);
      if (!expanded.ok()) return makeError(expanded.error());
      for (auto& h : *expanded) hosts.push_back(std::move(h));
    }
  }
  return hosts;
}

int showNodes(ControllerClient& client, const std::string& id, const Globals& g) {
  v1::GetNodesRequest req;
  std::vector<std::string> wanted;
  if (!id.empty()) {
    auto names = hostlist::expand(id);
    if (!names.ok()) {
      if (!g.quiet) std::cout << "Node " << id << " not found\n";
      return 1;
    }
    wanted = *names;
    for (const auto& n : wanted) req.add_names(n);
  }
  auto reply = client.getNodes(req);
  if (!reply.ok()) {
    if (client.lastFailure() == FailureKind::kNotFound) {
      if (!g.quiet) std::cout << "Node " << id << " not found\n";
      return 1;
    }
    printError(kProg, reply.error());
    return 1;
  }
  std::string out;
  std::size_t shown = 0;
  for (const auto& node : reply->nodes()) {
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), node.name()) == wanted.end()) continue;
    out += formatNodeRecord(node, g.oneliner);
    ++shown;
  }
  std::cout << out;
  if (!id.empty() && shown == 0) {
    if (!g.quiet) std::cout << "Node " << id << " not found\n";
    return 1;
  }
  return 0;
}

int showPartitions(ControllerClient& client, const std::string& id, const Globals& g) {
  v1::GetPartitionsRequest req;
  if (!id.empty()) req.add_names(id);
  auto reply = client.getPartitions(req);
  if (!reply.ok()) {
    if (client.lastFailure() == FailureKind::kNotFound) {
      if (!g.quiet) std::cout << "Partition " << id << " not found\n";
      return 1;
    }
    printError(kProg, reply.error());
    return 1;
  }
  std::string out;
  std::size_t shown = 0;
  for (const auto& part : reply->partitions()) {
    if (!id.empty() && part.name() != id) continue;
    out += formatPartitionRecord(part, g.oneliner);
    ++shown;
  }
  if (shown == 0) {
    if (id.empty()) {
      std::cout << "No partitions in the system\n";
      return 0;
    }
    if (!g.quiet) std::cout << "Partition " << id << " not found\n";
    return 1;
  }
  std::cout << out;
  return 0;
}

Result<ControllerClient> connect() { return ControllerClient::fromConfig(); }

// show config: the cluster.conf this scontrol reads (the controller's since its start or last
// reconfigure), with the controller's boot time and whether it answers.
int showConfig() {
  const std::string path = config::defaultConfigPath();
  auto config = config::loadClusterConfig(path);
  if (!config.ok()) {
    printError(kProg, config.error());
    return 1;
  }
  std::optional<v1::PingReply> ping;
  auto client = ControllerClient::fromSettings({config->controller, config->munge_socket, config->timeouts, {}});
  if (auto reply = client.ping(); reply.ok()) ping = std::move(*reply);
  std::cout << renderConfig(*config, path, std::time(nullptr), ping);
  return 0;
}

// Whether the controller knows a job of this id at all (an array's tasks included).
bool jobExists(ControllerClient& client, std::uint32_t job) {
  v1::GetJobsRequest req;
  req.add_job_ids(std::to_string(job));
  req.set_include_finished(true);
  req.add_fields(v1::JobInfo::kJobIdFieldNumber);
  auto reply = client.getJobs(req);
  return reply.ok() && reply->jobs_size() > 0;
}

int showJobs(const std::string& text, const Globals& g) {
  // scontrol reads the id itself, in the reference's words (shown_job_id.h); a job the controller
  // does not know is its "slurm_load_jobs error" below.
  std::optional<ShownJobId> id;
  if (!text.empty()) {
    id = parseShownJobId(text);
    if (!id) {
      if (!g.quiet) std::cerr << "scontrol_print_job error: Invalid job id specified\n";
      return 1;
    }
  }
  auto client = connect();
  if (!client.ok()) {
    printError(kProg, client.error());
    return 1;
  }
  v1::GetJobsRequest req;
  if (id) req.add_job_ids(controllerJobId(*id));
  req.set_include_finished(true);
  req.set_array_tasks_expanded(false);
  auto reply = client->getJobs(req);
  const bool refused = !reply.ok() && (client->lastFailure() == FailureKind::kNotFound ||
                                       client->lastFailure() == FailureKind::kInvalid);
  if (!reply.ok() && !refused) {
    printError(kProg, reply.error());
    return 1;
  }
  const std::int64_t now =
      reply.ok() && reply->time() != 0 ? reply->time() : static_cast<std::int64_t>(std::time(nullptr));
  std::string out;
  std::size_t shown = 0;
  // A component other than +0 is never shown: Drover has no heterogeneous jobs.
  if (reply.ok() && !(id && id->offset.value_or(0) != 0)) {
    for (const auto& job : reply->jobs()) {
      if (id && !jobMatchesId(job, controllerJobId(*id))) continue;
      out += formatJobRecord(job, now, g.oneliner, g.details);
      ++shown;
    }
  }
  if (shown > 0) {
    std::cout << out;
    return 0;
  }
  if (!id && reply.ok()) {
    std::cout << "No jobs in the system\n";
    return 0;
  }
  if (g.quiet) return 1;
  // The job is there but not that task or component: the reference's "Job ... not found".
  if (id && (id->task || id->offset) && jobExists(*client, id->job)) {
    std::cout << "Job " << shownJobIdText(*id) << " not found\n";
  } else {
    std::cerr << "slurm_load_jobs error: Invalid job id specified\n";
  }
  return 1;
}

// show step [JOB[.STEP]]: the running steps of every job, of one job, or one step.
int showSteps(const std::string& id, const Globals& g) {
  std::optional<StepIdFilter> filter;
  if (!id.empty()) {
    auto parsed = parseStepId(id, true);
    if (!parsed.ok()) {
      if (!g.quiet) std::cerr << "slurm_get_job_steps error: Invalid job id specified\n";
      return 1;
    }
    filter = *parsed;
  }
  auto client = connect();
  if (!client.ok()) {
    printError(kProg, client.error());
    return 1;
  }
  v1::GetJobsRequest req;
  using J = v1::JobInfo;
  for (auto n : {J::kJobIdFieldNumber, J::kArrayJobIdFieldNumber, J::kArrayTaskIdFieldNumber,
                 J::kStateFieldNumber, J::kUidFieldNumber, J::kPartitionFieldNumber,
                 J::kBatchFieldNumber, J::kBatchHostFieldNumber, J::kStartTimeFieldNumber,
                 J::kAllocationFieldNumber, J::kStepsFieldNumber})
    req.add_fields(n);
  // One job: whatever its state, to tell a job without that step from no job at all.
  if (filter) {
    req.add_job_ids(filter->job);
  } else {
    requestJobsHoldingSteps(&req);
  }
  auto reply = client->getJobs(req);
  if (!reply.ok()) {
    printError(kProg, reply.error());
    return 1;
  }
  std::vector<const v1::JobInfo*> jobs;
  for (const auto& job : reply->jobs())
    if (!filter || jobMatchesId(job, filter->job)) jobs.push_back(&job);
  if (filter && jobs.empty()) {
    if (!g.quiet) std::cerr << "slurm_get_job_steps error: Invalid job id specified\n";
    return 1;
  }
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const v1::JobInfo* a, const v1::JobInfo* b) { return a->job_id() < b->job_id(); });
  std::string out;
  for (const v1::JobInfo* job : jobs) {
    for (const StepRow& row : jobStepRows(*job))
      if (!filter || stepMatches(row, *filter)) out += formatStepRecord(row, g.oneliner);
  }
  if (out.empty()) {
    if (!filter) {
      std::cout << "No job steps in the system\n";
      return 0;
    }
    // Slurm names the step as "JOB.STEP", a job alone as "JOB." (nothing after the dot).
    if (!g.quiet) std::cout << "Job step " << id << (id.find('.') == std::string::npos ? "." : "") << " not found\n";
    return 1;
  }
  std::cout << out;
  return 0;
}

// How Slurm's scontrol reports a job the controller refused to change: "<why> for job <id>",
// an array task's answer "<id>: <why>". A refusal of the whole request (every one of top's, a
// user's suspend or resume: the reference's controller answered those before looking at any
// task) is always the first form.
void printJobError(const std::string& id, const std::string& why, bool whole_request = false) {
  if (!whole_request && id.find('_') != std::string::npos) std::cerr << id << ": " << why << "\n";
  else std::cerr << why << " for job " << id << "\n";
}

// hold, uhold, release, requeue, requeuehold, suspend, resume, top: one JobControl call.
int cmdJobControl(const std::string& action, const std::vector<std::string>& words) {
  std::vector<std::string> ids;
  for (std::size_t i = 1; i < words.size(); ++i) {
    std::string w = words[i];
    if (auto eq = w.find('='); eq != std::string::npos && toLowerAscii(w.substr(0, eq)) == "jobid") w = w.substr(eq + 1);
    for (auto& id : splitCommas(w)) ids.push_back(id);
  }
  if (ids.empty()) {
    std::cerr << "too few arguments for keyword:" << action << "\n";  // the reference's, bare
    return 1;
  }
  auto client = connect();
  if (!client.ok()) {
    printError(kProg, client.error());
    return 1;
  }
  v1::JobControlRequest req;
  req.set_action(action);
  for (const auto& id : ids) req.add_job_ids(id);
  auto reply = client->jobControl(req);
  if (!reply.ok()) {
    printError(kProg, reply.error());
    return 1;
  }
  // As Slurm 22.05's scontrol (printJobError). Its quirks are not copied: hold and release add
  // a line "slurm_suspend error: <why>", and suspend of an unknown job says "Unexpected message
  // received".
  const bool suspends = action == "suspend" || action == "resume";
  int rc = 0;
  for (const auto& r : reply->results()) {
    if (r.ok()) continue;
    rc = 1;
    // A user's suspend or resume is refused whole (a controller's answer for an operator names
    // the task it looked at).
    const bool whole = action == "top" || (suspends && r.error() == "Access/permission denied");
    printJobError(r.job_id(), r.error(), whole);
  }
  return rc;
}

// Slurm 22.05's scontrol loads the job itself before sending NumNodes= for a job id without a
// task: a job the controller does not know is "Could not load state information", and an
// array that answers as more than one record (a task running or ended besides the pending
// ones) is "Job resizing not supported for job arrays"; nothing is sent (the reference, exit 1).
// An array whose tasks are all pending (one folded record) or of one task goes on.
std::optional<std::string> refuseArrayResize(ControllerClient& client, const std::string& id) {
  if (id.empty() || !std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  v1::GetJobsRequest req;
  req.add_job_ids(id);
  req.set_include_finished(true);
  req.set_array_tasks_expanded(false);
  using J = v1::JobInfo;
  for (auto n : {J::kJobIdFieldNumber, J::kArrayJobIdFieldNumber, J::kArrayTaskIdFieldNumber})
    req.add_fields(n);
  auto reply = client.getJobs(req);
  std::size_t records = 0;
  if (reply.ok()) {
    for (const auto& job : reply->jobs()) records += jobMatchesId(job, id) ? 1 : 0;
  } else if (client.lastFailure() != FailureKind::kNotFound && client.lastFailure() != FailureKind::kInvalid) {
    return std::nullopt;  // the update itself will say what is wrong
  }
  if (records == 0) return "Could not load state information for job " + id + ": Invalid job id specified";
  if (records > 1) return std::string("Job resizing not supported for job arrays");
  return std::nullopt;
}

int cmdUpdateJob(const std::vector<std::string>& specs) {
  v1::UpdateJobRequest req;
  for (const auto& w : specs) {
    const auto eq = w.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::cerr << "Invalid input: " << w << "\nRequest aborted\n";
      return 1;
    }
    const std::string key = w.substr(0, eq);
    if (toLowerAscii(key) == "jobid") {
      req.set_job_id(w.substr(eq + 1));
      continue;
    }
    if (!isUpdatableJobKey(toLowerAscii(key))) {
      std::cerr << "Update of this parameter is not supported: " << w << "\nRequest aborted\n";
      return 1;
    }
    std::string value = w.substr(eq + 1);
    // Read here first, as Slurm's scontrol does: a bad value sends nothing.
    const std::string lower = toLowerAscii(key);
    if ((lower == "timelimit" || lower == "timemin") && !parseTimeLimitMinutes(value).ok()) {
      printError(kProg, "Invalid " + std::string(lower == "timemin" ? "TimeMin" : "TimeLimit") + " value");
      return 1;
    }
    // Memory in whole megabytes: the reference refused `MinMemoryNode=2G` here.
    if ((lower == "minmemorycpu" || lower == "minmemorynode") &&
        (value.empty() || value.find_first_not_of("0123456789") != std::string::npos)) {
      printError(kProg, "Invalid " + key + " value: " + value);
      return 1;
    }
    // StartTime (and Deadline) take sbatch --begin's forms (now+1hour, 16:00, ISO); like
    // --begin they are read against this host's clock and sent as seconds since the epoch.
    if (lower == "starttime" || lower == "begintime" || lower == "eligibletime" ||
        lower == "deadline") {
      auto t = jobspec::parseBeginTime(value, static_cast<std::int64_t>(std::time(nullptr)));
      if (!t.ok()) {
        // As Slurm's: the spec's error, then nothing is sent.
        if (!t.error().empty()) std::cerr << t.error() << "\n";
        std::cerr << "No changes specified\n";
        return 1;
      }
      value = std::to_string(*t);
    }
    (*req.mutable_fields())[key] = value;
  }
  if (req.fields().empty()) {
    std::cerr << "No changes specified\n";
    return 1;
  }
  auto client = connect();
  if (!client.ok()) {
    printError(kProg, client.error());
    return 1;
  }
  const bool resizes = std::any_of(req.fields().begin(), req.fields().end(),
                                   [](const auto& kv) { return toLowerAscii(kv.first) == "numnodes"; });
  if (resizes) {
    if (auto why = refuseArrayResize(*client, req.job_id())) {
      printError(kProg, *why);
      return 1;
    }
  }
  auto reply = client->updateJob(req);
  if (!reply.ok()) {
    if (client->lastFailure() == FailureKind::kUnreachable) printError(kProg, reply.error());
    else printJobError(req.job_id(), reply.error());
    return 1;
  }
  // An array's tasks answer one by one: a line per group once any task refused.
  const std::vector<std::string> lines = arrayUpdateLines(*reply);
  for (const auto& line : lines) std::cerr << line << "\n";
  return lines.empty() ? 0 : 1;
}

int cmdShow(const std::vector<std::string>& words, const Globals& g) {
  if (words.size() < 2) {
    std::cerr << "too few arguments for keyword:show\n";
    return 1;
  }
  if (words.size() > 3) {
    std::cerr << "too many arguments for keyword:show\n";
    return 1;
  }
  // "show ENTITY ID" or "show ENTITY=ID".
  std::string entity = words[1];
  std::string id = words.size() > 2 ? words[2] : "";
  if (auto eq = entity.find('='); eq != std::string::npos) {
    id = entity.substr(eq + 1);
    entity = entity.substr(0, eq);
  }
  const std::string e = toLowerAscii(entity);
  if (e == "hostnames" || e == "hostlist" || e == "hostlistsorted") {
    if (id.empty() && e == "hostnames") {
      if (const char* env = std::getenv("SLURM_JOB_NODELIST")) id = env;
    }
    if (id.empty()) {
      printError(kProg, "Hostlist is empty");
      return 1;
    }
    auto text = hostlistCommand(e, id);
    if (!text.ok()) {
      printError(kProg, text.error());
      return 1;
    }
    std::cout << *text;
    return 0;
  }
  if (abbrev(entity, "config", 1)) return showConfig();
  if (abbrev(entity, "jobs", 1) || toLowerAscii(entity) == "jobid") return showJobs(id, g);
  if (abbrev(entity, "steps", 2)) return showSteps(id, g);
  if (auto rc = showSiteEntity(entity, id, g.quiet)) return *rc;
  const bool is_node = abbrev(entity, "nodes", 1);
  const bool is_part = abbrev(entity, "partitions", 1) || abbrev(entity, "partitionname", 1);
  if (!is_node && !is_part) {
    // The reference's words exactly, its trailing space included, without scontrol's name.
    std::cerr << "invalid entity:" << entity << " for keyword:show \n";
    return 1;
  }
  auto client = connect();
  if (!client.ok()) {
    printError(kProg, client.error());
    return 1;
  }
  return is_node ? showNodes(*client, id, g) : showPartitions(*client, id, g);
}

int cmdUpdate(const std::vector<std::string>& words) {
  const std::vector<std::string> specs(words.begin() + 1, words.end());
  if (specs.empty()) {
    std::cerr << "too few arguments for update keyword\n";  // sic, the reference's
    return 1;
  }
  for (const auto& w : specs) {
    if (toLowerAscii(w.substr(0, w.find('='))) == "jobid") return cmdUpdateJob(specs);
  }
  if (updatesPartition(specs)) return cmdUpdatePartition(specs);
  auto req = parseUpdateNode(specs);
  if (!req.ok()) {
    std::cerr << req.error() << "\n";
    return 1;
  }
  auto client = connect();
  if (!client.ok()) {
    printError(kProg, client.error());
    return 1;
  }
  auto reply = client->updateNode(*req);
  if (!reply.ok()) {
    std::cerr << "slurm_update error: "
              << (client->lastFailure() == FailureKind::kNotFound ? "Invalid node name specified"
                                                                  : reply.error())
              << "\n";
    return 1;
  }
  return 0;
}

int cmdReconfigure() {
  auto client = connect();
  if (!client.ok()) {
    printError(kProg, client.error());
    return 1;
  }
  auto reply = client->reconfigure(v1::ReconfigureRequest{});
  if (!reply.ok()) {
    std::cerr << "slurm_reconfigure error: " << reply.error() << "\n";
    return 1;
  }
  return 0;
}

// setdebug LEVEL: the controller's log level from now on (Slurm's names or 0-9), checked here
// first as the reference's scontrol did: a bad level sends nothing.
int cmdSetDebug(const std::vector<std::string>& words) {
  if (words.size() != 2) {
    std::cerr << (words.size() < 2 ? "too few" : "too many") << " arguments for keyword:setdebug\n";
    return 1;
  }
  // -1 puts back the level the controller started at (the reference took it without a word).
  const std::optional<int> level = words[1] == "-1" ? std::optional<int>(-1) : parseDebugLevel(words[1]);
  if (!level) {
    std::cerr << "invalid debug level: " << words[1] << "\n";
    return 1;
  }
  auto client = connect();
  if (!client.ok()) {
    printError(kProg, client.error());
    return 1;
  }
  v1::SetDebugLevelRequest req;
  req.set_level(*level);
  if (auto reply = client->setDebugLevel(req); !reply.ok()) {
    std::cerr << "slurm_set_debug_level error: " << reply.error() << "\n";
    return 1;
  }
  return 0;
}

int cmdPing() {
  auto client = connect();
  if (!client.ok()) {
    printError(kProg, client.error());
    return 1;
  }
  auto reply = client->ping();
  const std::string host = reply.ok() && !reply->controller_host().empty() ? reply->controller_host()
                                                                            : client->address().host;
  if (reply.ok()) {
    std::cout << "Droverctld(primary) at " << host << " is UP\n";
    return 0;
  }
  if (client->lastFailure() == FailureKind::kUnreachable) {
    std::cout << "Droverctld(primary) at " << host << " is DOWN\n";
    return 1;
  }
  printError(kProg, reply.error());
  return 1;
}

// The settings man scontrol lists under INTERACTIVE COMMANDS (oneliner, details, quiet, and
// all, hide, verbose, which change nothing in Drover), and quit/exit, which end a session before
// they reach here: the reference's scontrol also took each on its command line, doing nothing,
// exit 0. Words past the first are refused as the reference did, the setting still made.
// Returns nullopt for any other verb.
std::optional<int> sessionSetting(const std::vector<std::string>& words, Globals& g) {
  const std::string& verb = words.front();
  if (abbrev(verb, "oneliner", 1)) g.oneliner = true;
  else if (abbrev(verb, "details", 1)) g.details = true;
  else if (abbrev(verb, "quiet", 4)) g.quiet = true;
  else if (!(abbrev(verb, "all", 2) || abbrev(verb, "hide", 2) || abbrev(verb, "verbose", 4) ||
             abbrev(verb, "exit", 2) || abbrev(verb, "quit", 4)))
    return std::nullopt;
  return keywordArgumentsOk(words, 1, 1) ? 0 : 1;
}

int dispatch(const std::vector<std::string>& words, Globals& g) {
  if (auto rc = sessionSetting(words, g)) return *rc;
  if (isPartitionCreateOrDelete(words)) return runCreateDeletePartition(words);
  if (isReservationCommand(words)) return runReservationCommand(words, g.oneliner);
  const std::string& verb = words.front();
  if (abbrev(verb, "show", 3)) return cmdShow(words, g);
  if (abbrev(verb, "update", 1)) return cmdUpdate(words);
  if (abbrev(verb, "reconfigure", 3)) return cmdReconfigure();
  if (abbrev(verb, "ping", 2)) return cmdPing();
  if (abbrev(verb, "setdebug", 4)) return cmdSetDebug(words);
  if (abbrev(verb, "write", 2)) return writeBatchScript(words);
  if (abbrev(verb, "wait_job", 2)) return cmdWaitJob(words);
  if (abbrev(verb, "notify", 2)) return cmdNotify(words);
  if (abbrev(verb, "listpids", 2)) return cmdListPids(words);
  if (abbrev(verb, "pidinfo", 3)) return cmdPidInfo(words);
  for (const char* action : {"hold", "uhold", "release", "requeue", "requeuehold", "suspend", "resume", "top"}) {
    if (toLowerAscii(verb) == action) return cmdJobControl(action, words);
  }
  if (abbrev(verb, "version", 4)) {  // "ve", "ver" are also verbose: the reference refused them
    std::cout << kVersionLine << "\n";
    return 0;
  }
  if (abbrev(verb, "help", 2)) {  // "h" is also hide and hold: the reference refused it
    std::cout << kHelp;
    return 0;
  }
  std::cerr << "invalid keyword: " << verb << "\n";  // the reference's words, without scontrol's name
  return 1;
}

int runSession(std::istream& in, bool echo, Globals& g) {
  return runInteractiveSession(in, std::cout, std::cerr, echo,
                               [&g](const std::vector<std::string>& line) { return dispatch(line, g); });
}

}  // namespace

int runScontrolLines(std::istream& in, bool echo) {
  Globals g;
  return runSession(in, echo, g);
}

Result<std::string> hostlistCommand(const std::string& verb, const std::string& arg) {
  std::vector<std::string> hosts;
  if (verb != "hostnames" && !arg.empty() && arg.front() == '/') {
    auto from_file = readHostFile(arg);
    if (!from_file.ok()) return makeError(from_file.error());
    hosts = std::move(*from_file);
  } else {
    auto expanded = hostlist::expand(arg);
    if (!expanded.ok()) return makeError(expanded.error());
    hosts = std::move(*expanded);
  }
  if (verb == "hostnames") {
    std::string out;
    for (const auto& h : hosts) out += h + "\n";
    return out;
  }
  if (verb == "hostlistsorted") return hostlist::compressSorted(std::move(hosts)) + "\n";
  return hostlist::compress(hosts) + "\n";
}

Result<v1::UpdateNodeRequest> parseUpdateNode(const std::vector<std::string>& words) {
  static constexpr std::string_view kStates[] = {"DRAIN", "DOWN", "IDLE", "RESUME", "UNDRAIN"};
  // The entity first, as the reference: `update State=UP` names none.
  const bool names_node = std::any_of(words.begin(), words.end(), [](const std::string& w) {
    const std::string key = toLowerAscii(w.substr(0, w.find('=')));
    return w.find('=') != std::string::npos && (key == "nodename" || key == "node" || key == "nodes");
  });
  if (!names_node) {
    return makeError("No valid entity in update command\nInput line must include \"NodeName\", "
                     "\"PartitionName\", \"Reservation\", \"JobId\", or \"SlurmctldDebug\"");
  }
  v1::UpdateNodeRequest req;
  bool have_reason = false;
  for (const auto& w : words) {
    const auto eq = w.find('=');
    if (eq == std::string::npos || eq == 0) {
      return makeError("Invalid input: " + w + "\nRequest aborted");
    }
    const std::string key = toLowerAscii(w.substr(0, eq));
    const std::string val = w.substr(eq + 1);
    if (key == "nodename" || key == "node" || key == "nodes") {
      req.set_nodes(val);
    } else if (key == "state") {
      std::string state;
      const std::string up = toUpperAscii(val);
      for (const auto s : kStates) {
        if (up.size() >= 3 && up.size() <= s.size() && s.substr(0, up.size()) == up) state = s;
      }
      if (state.empty()) {
        return makeError("Invalid input: " + w + "\nRequest aborted\nValid states are: DRAIN DOWN IDLE RESUME UNDRAIN");
      }
      req.set_state(state);
    } else if (key == "reason") {
      // As the reference: a leading and a trailing double quote are dropped, each on its own
      // (single quotes stay), so interactive mode's `Reason="a b"` is `a b` as from a shell.
      std::string reason = val;
      if (!reason.empty() && reason.front() == '"') reason.erase(0, 1);
      if (!reason.empty() && reason.back() == '"') reason.pop_back();
      req.set_reason(reason);
      have_reason = true;
    } else {
      return makeError("Update of " + w.substr(0, eq) +
                       " is not supported by Drover yet (supported: NodeName, State, Reason)\nRequest aborted");
    }
  }
  if (req.nodes().empty()) return makeError("No node name specified (NodeName=)\nRequest aborted");
  if ((req.state() == "DOWN" || req.state() == "DRAIN") && (!have_reason || req.reason().empty())) {
    return makeError("You must specify a reason when DOWNING or DRAINING a node. Request denied");
  }
  return req;
}

int runScontrol(int argc, char** argv) {
  static const option kLong[] = {
      {"all", no_argument, nullptr, 'a'},       {"details", no_argument, nullptr, 'd'},
      {"help", no_argument, nullptr, 'h'},      {"oneliner", no_argument, nullptr, 'o'},
      {"quiet", no_argument, nullptr, 'Q'},     {"verbose", no_argument, nullptr, 'v'},
      {"version", no_argument, nullptr, 'V'},   {"future", no_argument, nullptr, 'F'},
      {"cluster", required_argument, nullptr, 'M'}, {"clusters", required_argument, nullptr, 'M'},
      {"uid", required_argument, nullptr, 'u'}, {"usage", no_argument, nullptr, kOptUsage},
      {"local", no_argument, nullptr, kOptLocal}, {"federation", no_argument, nullptr, kOptFederation},
      {"hide", no_argument, nullptr, kOptHide}, {"sibling", no_argument, nullptr, kOptSibling},
      {nullptr, 0, nullptr, 0},
  };
  Globals g;
  opterr = 0;
  // setdebug's level may look like an option (-1, -x): the reference read it as the level, so
  // options are looked for only before that verb.
  int option_argc = argc;
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-') continue;
    if (abbrev(argv[i], "setdebug", 4)) option_argc = i + 1;
    break;
  }
  int c;
  while ((c = getopt_long(option_argc, argv, ":adhoQvVFM:u:", kLong, nullptr)) != -1) {
    switch (c) {
      case 'd': g.details = true; break;
      case 'a': case 'v': case 'F': case kOptLocal: case kOptFederation: case kOptHide:
      case kOptSibling:
        break;  // accepted; no effect with a single cluster and no hidden partitions
      case 'o': g.oneliner = true; break;
      case 'Q': g.quiet = true; break;
      case 'V':
        std::cout << kVersionLine << "\n";
        return 0;
      case 'h': case kOptUsage:
        std::cout << kHelp;
        return 0;
      case 'M':
        printError(kProg, kClustersUnsupported);
        return 1;
      case 'u':
        printError(kProg, "--uid is not supported: the controller takes identity from MUNGE");
        return 1;
      default:
        printError(kProg, unrecognizedOption(kProg, c, argv[optind - 1], kLong));
        return 1;
    }
  }
  std::vector<std::string> words(argv + optind, argv + argc);
  if (words.empty()) {
    // Interactive mode: each line through the same dispatcher, its settings kept in g. The
    // line read is echoed where stdin is no terminal, as the reference's readline did.
    return runSession(std::cin, isatty(STDIN_FILENO) == 0, g);
  }
  const int rc = dispatch(words, g);
  std::cout.flush();
  return rc;
}

}  // namespace drover::cli
