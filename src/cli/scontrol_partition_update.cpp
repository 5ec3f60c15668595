#include "cli/scontrol_partition_update.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <iostream>
#include <string_view>

#include "cli/cli_common.h"
#include "cli/controller_client.h"
#include "common/ascii_case.h"
#include "drover/config.h"
#include "drover/time_spec.h"

namespace drover::cli {
namespace {

constexpr const char* kProg = "scontrol";
// What the reference's scontrol added after most of its own refusals (it never sent them).
constexpr const char* kNoError = "slurm_update error: No error\n";
constexpr std::array<std::string_view, 4> kStates{"UP", "DOWN", "DRAIN", "INACTIVE"};
constexpr std::uint32_t kMaxPriority = 65533;  // scontrol(1): "may not exceed 65533"

// Keys the reference's scontrol takes for a partition that Drover's partitions do not have.
constexpr std::array<std::string_view, 22> kSlurmOnlyKeys{
    "allocnodes",    "allowqos",      "alternate",      "cpubind",      "defmempercpu",
    "defmempernode", "denyaccounts",  "denyqos",        "disablerootjobs", "exclusiveuser",
    "hidden",        "jobdefaults",   "lln",            "maxcpuspernode", "maxmempercpu",
    "maxmempernode", "minnodes",      "overtimelimit",  "qos",          "reqresv",
    "rootonly",      "tresbillingweights"};

std::string errorLine(const std::string& text) { return std::string(kProg) + ": error: " + text + "\n"; }

std::optional<std::string> stateNamed(const std::string& value) {
  if (value.empty()) return std::nullopt;
  const std::string up = toUpperAscii(value);
  for (const auto s : kStates) {
    if (up.size() <= s.size() && s.substr(0, up.size()) == up) return std::string(s);
  }
  return std::nullopt;
}

// Minutes, kUnlimitedMinutes for UNLIMITED/INFINITE/-1.
std::optional<std::int64_t> minutesOf(const std::string& value) {
  if (value == "-1") return kUnlimitedMinutes;
  auto m = parseTimeLimitMinutes(value);
  if (!m.ok()) return std::nullopt;
  return *m;
}

std::optional<std::uint64_t> countOf(const std::string& value) {
  if (!allAsciiDigits(value)) return std::nullopt;
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc{} || end != value.data() + value.size()) return std::nullopt;
  return n;
}

bool isUnlimited(const std::string& value) {
  const std::string up = toUpperAscii(value);
  return up == "UNLIMITED" || up == "INFINITE";
}

// PartitionName=NAME or Partition=NAME (the reference's update, create and delete took both).
bool isNameKey(const std::string& key) { return key == "partitionname" || key == "partition"; }

bool namesPartition(const std::string& word) {
  const auto eq = word.find('=');
  return eq != std::string::npos && isNameKey(toLowerAscii(word.substr(0, eq)));
}

}  // namespace

bool updatesPartition(const std::vector<std::string>& specs) {
  return std::any_of(specs.begin(), specs.end(),
                     [](const std::string& w) { return namesPartition(w); });
}

Result<v1::UpdatePartitionRequest> parseUpdatePartition(
    const std::vector<std::string>& specs, v1::UpdatePartitionRequest::Action action) {
  v1::UpdatePartitionRequest req;
  req.set_action(action);
  bool changed = false;
  for (const auto& w : specs) {
    const auto eq = w.find('=');
    if (eq == std::string::npos) {
      return makeError(errorLine("Invalid input: " + w + "  Request aborted") + kNoError);
    }
    const std::string key = toLowerAscii(w.substr(0, eq));
    const std::string value = w.substr(eq + 1);
    if (isNameKey(key)) {
      req.set_name(value);
      continue;
    }
    changed = true;
    if (key == "state") {
      auto s = stateNamed(value);
      if (!s) {
        return makeError(errorLine("Invalid input: " + w) +
                       errorLine("Acceptable State values are UP, DOWN, DRAIN and INACTIVE") +
                       kNoError);
      }
      req.set_state(*s);
    } else if (key == "maxtime" || key == "defaulttime") {
      auto m = minutesOf(value);
      if (!m) return makeError(errorLine("Invalid input " + w) + kNoError);
      if (key == "maxtime") req.set_max_time_min(*m);
      else req.set_default_time_min(*m);
    } else if (key == "maxnodes") {
      const auto n = countOf(value);
      // Drover's partitions take at least one node a job (cluster.conf's max_nodes).
      if (isUnlimited(value)) {
        req.set_max_nodes(-1);
      } else if (n && *n > 0) {
        req.set_max_nodes(static_cast<std::int64_t>(*n));
      } else {
        return makeError(errorLine("Invalid numeric value \"" + value + "\" for MaxNodes."));
      }
    } else if (key == "default") {
      const std::string up = toUpperAscii(value);
      if (up != "YES" && up != "NO") {
        return makeError(errorLine("Invalid input: " + w) +
                       errorLine("Acceptable Default values are YES and NO") + kNoError);
      }
      req.set_is_default(up == "YES");
    } else if (key == "prioritytier" || key == "priorityjobfactor" || key == "priority") {
      auto n = countOf(value);
      const std::string name = key == "prioritytier"        ? "PriorityTier"
                               : key == "priorityjobfactor" ? "PriorityJobFactor"
                                                            : "Priority";
      if (!n || *n > kMaxPriority) {
        return makeError(errorLine("Invalid " + name + " value: " + value) + kNoError);
      }
      // Priority= is the older name: it sets both, as the reference's did.
      if (key != "priorityjobfactor") req.set_priority_tier(static_cast<std::uint32_t>(*n));
      if (key != "prioritytier") req.set_priority_job_factor(static_cast<std::uint32_t>(*n));
    } else if (key == "allowaccounts") {
      req.set_allow_accounts(value);
    } else if (key == "allowgroups") {
      req.set_allow_groups(value);
    } else if (key == "nodes") {
      req.set_nodes(value);
    } else if (key == "oversubscribe" || key == "shared") {
      const std::string up = toUpperAscii(value);
      const std::string kind = up.substr(0, up.find(':'));
      if (kind != "NO" && kind != "EXCLUSIVE" && kind != "YES" && kind != "FORCE") {
        return makeError(
            errorLine("Invalid input: " + w) +
            errorLine("Acceptable OverSubscribe values are NO, EXCLUSIVE, YES:#, and FORCE:#") +
            kNoError);
      }
      if (kind == "YES" || kind == "FORCE") {
        return makeError(errorLine(
            "OverSubscribe=" + value +
            " is not supported by Drover: a partition's jobs share nodes without sharing CPUs "
            "(NO) or each job gets whole nodes (EXCLUSIVE)"));
      }
      req.set_exclusive(kind == "EXCLUSIVE");
    } else if (key == "preemptmode") {
      // The reference took a comma list (REQUEUE,GANG); Drover has no gang scheduler.
      if (config::needsGangScheduler(value)) {
        return makeError(errorLine("PreemptMode=" + value +
                                   " is not supported by Drover: it has no gang scheduler to "
                                   "suspend jobs with (OFF, CANCEL or REQUEUE)"));
      }
      const auto mode = config::preemptModeNamed(value);
      if (!mode) return makeError(errorLine("Invalid input: " + w) + kNoError);
      req.set_preempt_mode(std::string(config::preemptModeName(*mode)));
    } else if (key == "gracetime") {
      const auto n = countOf(value);
      if (!n || *n > config::kMaxGraceTimeS) {
        return makeError(errorLine("Invalid GraceTime value: " + value) + kNoError);
      }
      req.set_grace_time_s(static_cast<std::uint32_t>(*n));
    } else {
      for (const auto k : kSlurmOnlyKeys) {
        if (key == k) {
          return makeError(errorLine(
              "Update of " + w.substr(0, eq) +
              " is not supported by Drover (supported: State, MaxTime, DefaultTime, MaxNodes, "
              "Default, PriorityTier, PriorityJobFactor, Priority, AllowAccounts, AllowGroups, "
              "Nodes, OverSubscribe, PreemptMode, GraceTime)") + errorLine("Request aborted"));
        }
      }
      return makeError(errorLine("Update of this parameter is not supported: " + w) + "\n" +
                     errorLine("Request aborted") + kNoError);
    }
  }
  if (!changed && action == v1::UpdatePartitionRequest::UPDATE) {
    return makeError(errorLine("No changes specified"));
  }
  return req;
}

namespace {

// Sends `req`; on a refusal prints `failure` and the controller's reason.
int send(const v1::UpdatePartitionRequest& req, const std::string& failure) {
  auto client = ControllerClient::fromConfig();
  if (!client.ok()) {
    printError(kProg, client.error());
    return 1;
  }
  auto reply = client->updatePartition(req);
  if (!reply.ok()) {
    // A user is refused in the reference's words (the controller says who may).
    std::cerr << failure
              << (client->lastFailure() == FailureKind::kDenied ? "Invalid user id" : reply.error())
              << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

int cmdUpdatePartition(const std::vector<std::string>& specs) {
  auto req = parseUpdatePartition(specs);
  if (!req.ok()) {
    std::cerr << req.error();
    return 1;
  }
  return send(*req, "slurm_update error: ");
}

bool isPartitionCreateOrDelete(const std::vector<std::string>& words) {
  if (words.size() < 2) return false;
  return (abbrev(words[0], "create", 2) || abbrev(words[0], "delete", 3)) &&
         namesPartition(words[1]);
}

int runCreateDeletePartition(const std::vector<std::string>& words) {
  const std::vector<std::string> specs(words.begin() + 1, words.end());
  if (abbrev(words[0], "create", 2)) {
    auto req = parseUpdatePartition(specs, v1::UpdatePartitionRequest::CREATE);
    if (!req.ok()) {
      std::cerr << req.error();
      return 1;
    }
    return send(*req, "Error creating the partition: ");
  }
  if (specs.size() != 1) {  // the reference named the first word, not the extra one
    std::cerr << "Invalid deletion entity: " << specs.front() << "\n";
    return 1;
  }
  v1::UpdatePartitionRequest req;
  req.set_action(v1::UpdatePartitionRequest::DELETE);
  req.set_name(specs.front().substr(specs.front().find('=') + 1));
  return send(req, "delete_partition " + specs.front() + ": ");
}

}  // namespace drover::cli
