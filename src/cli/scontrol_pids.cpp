#include "cli/scontrol_pids.h"

#include <cstdio>
#include <ctime>
#include <iostream>

#include "cli/cli_common.h"
#include "cli/controller_client.h"
#include "cli/scontrol_site_show.h"
#include "drover/accounting.h"

namespace drover::cli {
namespace {

constexpr const char* kProg = "scontrol";
constexpr const char* kHeader = "PID      JOBID    STEPID   LOCALID GLOBALID\n";

std::string row(std::int64_t pid, std::uint64_t job, const std::string& step,
                const std::string& local, const std::string& global) {
  char line[128];
  std::snprintf(line, sizeof line, "%-8lld %-8llu %-8s %-7s %-8s\n", static_cast<long long>(pid),
                static_cast<unsigned long long>(job), step.c_str(), local.c_str(), global.c_str());
  return line;
}

// The nodes whose agents registered from this host, in the controller's order; empty (after
// saying why) when there are none or the controller cannot be asked.
std::vector<std::string> localNodes(ControllerClient& client) {
  auto nodes = client.getNodes(v1::GetNodesRequest());
  if (!nodes.ok()) {
    printError(kProg, nodes.error());
    return {};
  }
  const std::string host = hostName();
  auto names = nodesOfHost(*nodes, host);
  if (names.empty()) printError(kProg, "no node of this cluster runs on host " + host);
  return names;
}

Result<v1::ListPidsReply> askNode(ControllerClient& client, const std::string& node,
                                  const PidsTarget& target) {
  v1::ListPidsRequest request;
  request.set_node(node);
  request.set_job_id(target.job_id);
  if (target.step_id) request.set_step_id(*target.step_id);
  return client.listPids(request);
}

// Steps whose supervisor did not answer are named on stderr; the others are listed.
void sayStepErrors(const v1::ListPidsReply& reply, const std::string& node) {
  for (const auto& s : reply.steps()) {
    if (s.error().empty()) continue;
    printError(kProg, "StepId=" + std::to_string(s.job_id()) + "." + acct::stepIdName(s.step_id()) +
                          " on node " + node + ": " + s.error());
  }
}

}  // namespace

std::variant<PidsTarget, PidsTargetError> parsePidsTarget(const std::string& word) {
  PidsTarget t;
  if (word.empty() || word == "*") return t;
  const auto dot = word.find('.');
  const std::string job = word.substr(0, dot);
  if (!allAsciiDigits(job) || job.size() > 19) {
    return PidsTargetError{"\"" + word + "\" does not look like a jobid", false};
  }
  t.job_id = std::stoull(job);
  if (dot == std::string::npos) return t;
  const std::string step = word.substr(dot + 1);
  if (step == "batch") t.step_id = acct::kBatchStep;
  else if (step == "extern") t.step_id = acct::kExternStep;
  else if (allAsciiDigits(step) && step.size() < 10) t.step_id = std::stoll(step);
  else return PidsTargetError{"\"" + word + "\" does not look like a stepid", true};
  return t;
}

std::string pidsTable(const v1::ListPidsReply& reply) {
  std::string out = kHeader;
  for (const auto& s : reply.steps()) {
    const std::string step = acct::stepIdName(s.step_id());
    for (int local = 0; local < s.tasks_size(); ++local) {
      const auto& task = s.tasks(local);
      for (int i = 0; i < task.pids_size(); ++i) {
        out += i == 0 ? row(task.pids(i), s.job_id(), step, std::to_string(local),
                            std::to_string(task.task()))
                      : row(task.pids(i), s.job_id(), step, "-", "-");
      }
    }
  }
  return out;
}

std::string pidInfoLines(std::uint64_t job_id, std::int64_t end_time, std::int64_t now) {
  const std::string id = std::to_string(job_id);
  if (end_time <= 0) return "Slurm job id " + id + " ends at Unknown\nslurm_get_rem_time is -1\n";
  const std::time_t t = static_cast<std::time_t>(end_time);
  std::tm local{};
  localtime_r(&t, &local);
  char when[64];
  std::strftime(when, sizeof when, "%a %b %e %H:%M:%S %Y", &local);
  return "Slurm job id " + id + " ends at " + when + "\nslurm_get_rem_time is " +
         std::to_string(std::max<std::int64_t>(0, end_time - now)) + "\n";
}

int cmdListPids(const std::vector<std::string>& words) {
  if (!keywordArgumentsOk(words, 1, 3)) return 1;
  const auto parsed = parsePidsTarget(words.size() > 1 ? words[1] : "");
  if (const auto* bad = std::get_if<PidsTargetError>(&parsed)) {
    std::cerr << bad->message << "\n";
    if (!bad->about_step) return 1;
    std::cout << kHeader;  // the reference's: an empty table, exit 0
    return 0;
  }
  const PidsTarget* target = &std::get<PidsTarget>(parsed);
  auto client = ControllerClient::fromConfig();
  if (!client.ok()) {
    printError(kProg, client.error());
    return 1;
  }
  std::string node;
  if (words.size() > 2) {
    node = words[2];
  } else {
    auto local = localNodes(*client);
    if (local.empty()) return 1;
    node = local.front();  // as Slurm's, the first node of this host
  }
  auto reply = askNode(*client, node, *target);
  if (!reply.ok()) {
    printError(kProg, reply.error());
    return 1;
  }
  if (!reply->node_known()) {
    printError(kProg, "Invalid node name specified: " + node);
    return 1;
  }
  sayStepErrors(*reply, node);
  if (reply->steps_size() == 0) {
    // The reference's words (its "(null)" where no node was named is the node asked here).
    if (target->job_id == 0) std::cerr << "No job steps exist on this node.\n";
    else if (target->step_id)
      std::cerr << "StepId=" << target->job_id << "." << acct::stepIdName(*target->step_id)
                << " does not exist on node " << node << ".\n";
    else std::cerr << "JobId=" << target->job_id << " does not exist on node " << node << ".\n";
    std::cout << kHeader;
    return 1;
  }
  std::cout << pidsTable(*reply);
  return 0;
}

int cmdPidInfo(const std::vector<std::string>& words) {
  if (words.size() < 2) {
    std::cerr << "missing argument for keyword:" << words.front() << "\n";
    return 1;
  }
  if (!keywordArgumentsOk(words, 2, 2)) return 1;
  constexpr const char* kNotFound = "Failed to locate job for requested pid\n";
  const std::string& text = words[1];
  if (!allAsciiDigits(text) || text.size() > 9) {
    std::cerr << kNotFound;
    return 1;
  }
  const std::int64_t pid = std::stoll(text);
  auto client = ControllerClient::fromConfig();
  if (!client.ok()) {
    printError(kProg, client.error());
    return 1;
  }
  // Every node of this host: a process of any of them is on this machine.
  for (const auto& node : localNodes(*client)) {
    auto reply = askNode(*client, node, PidsTarget{});
    if (!reply.ok()) {
      printError(kProg, reply.error());
      continue;
    }
    for (const auto& s : reply->steps()) {
      for (const auto& task : s.tasks()) {
        for (int p : task.pids()) {
          if (p != pid) continue;
          std::cout << pidInfoLines(s.job_id(), s.job_end_time(), std::time(nullptr));
          return 0;
        }
      }
    }
  }
  std::cerr << kNotFound;
  return 1;
}

}  // namespace drover::cli
