#include "cli/scontrol_reservation.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <iostream>

#include "cli/cli_common.h"
#include "cli/controller_client.h"
#include "cli/scontrol_view.h"
#include "cli/node_values.h"
#include "common/ascii_case.h"
#include "drover/hostlist.h"
#include "drover/time_spec.h"
#include "jobspec/begin_time.h"

namespace drover::cli {
namespace {

constexpr const char* kProg = "scontrol";


bool isNameKey(const std::string& key) {
  const std::string k = toLowerAscii(key);
  return k == "reservationname" || k == "reservation" || k == "resvname";
}

std::string keyOf(const std::string& word) {
  auto eq = word.find('=');
  std::string key = eq == std::string::npos ? word : word.substr(0, eq);
  if (!key.empty() && (key.back() == '+' || key.back() == '-')) key.pop_back();
  return key;
}

// The reference's lines for a time it cannot read: the spec's own, then which time of the
// reservation (the word as typed), and for an update the controller's refusal it went on to get.
Result<std::int64_t> parseTime(std::string_view which, const std::string& word,
                               const std::string& value, bool updating, std::int64_t now) {
  auto t = jobspec::parseBeginTime(value, now);
  if (t) return *t;
  // An empty time reached the reference's controller, which refused it.
  if (value.empty()) {
    return makeError(std::string(kBareMark) + (updating ? "slurm_update error" : "Error creating the reservation") +
                     ": Invalid time specified");
  }
  std::string message = std::string(kBareMark) + t.error() + "\n" + kProg + ": error: Invalid " +
                        std::string(which) + " time " + word + ".  No reservation " +
                        (updating ? "update." : "created.");
  if (updating) message += "\nslurm_update error: Invalid time specified";
  return makeError(message);
}

}  // namespace

Result<v1::ReservationSpec> parseReservationArgs(const std::vector<std::string>& args,
                                                 bool updating, std::int64_t now) {
  v1::ReservationSpec spec;
  for (const std::string& word : args) {
    const auto eq = word.find('=');
    if (eq == std::string::npos || eq == 0) {
      return makeError("Invalid input: " + word + "\nRequest aborted");
    }
    std::string key = word.substr(0, eq);
    std::string value = word.substr(eq + 1);
    // Users+=bob / Users-=bob: add to or remove from the list.
    char sign = 0;
    if (key.back() == '+' || key.back() == '-') {
      sign = key.back();
      key.pop_back();
    }
    const std::string k = toLowerAscii(key);
    if (sign != 0 && k != "users" && k != "accounts" && k != "flags") {
      return makeError("Invalid input: " + word + " ('" + std::string(1, sign) +
                       "=' is accepted for Users, Accounts and Flags)\nRequest aborted");
    }
    if (isNameKey(key)) {
      spec.set_name(value);
    } else if (k == "starttime") {
      auto t = parseTime("start", word, value, updating, now);
      if (!t) return makeError(t.error());
      spec.set_start_time(*t);
    } else if (k == "endtime") {
      auto t = parseTime("end", word, value, updating, now);
      if (!t) return makeError(t.error());
      spec.set_end_time(*t);
    } else if (k == "duration") {
      auto d = parseTimeSpecSeconds(value);
      if (!d) return makeError("Invalid duration: " + value + " (" + d.error() + ")");
      spec.set_duration_s(*d);
    } else if (k == "nodes" || k == "nodelist") {
      if (value.empty()) return makeError("Invalid node list: Nodes= needs a hostlist or ALL");
      spec.set_nodes(value);
    } else if (k == "nodecnt" || k == "nodecount") {
      std::uint32_t n = 0;
      bool digits = !value.empty();
      for (char c : value) digits = digits && std::isdigit(static_cast<unsigned char>(c));
      if (digits && value.size() <= 9) n = static_cast<std::uint32_t>(std::stoul(value));
      if (!digits || n == 0) return makeError("Invalid node count: " + value);
      spec.set_node_count(n);
    } else if (k == "users" || k == "user") {
      spec.set_users(sign != 0 ? std::string(1, sign) + value : value);
    } else if (k == "accounts" || k == "account") {
      spec.set_accounts(sign != 0 ? std::string(1, sign) + value : value);
    } else if (k == "partitionname" || k == "partition") {
      spec.set_partition(value);
    } else if (k == "flags") {
      // Flags+=DAILY / Flags-=DAILY add or remove on update (the controller checks).
      spec.set_flags(sign != 0 ? std::string(1, sign) + value : value);
    } else if (k == "corecnt") {
      return makeError(key + "= is not supported by Drover reservations: they reserve whole "
                             "nodes (give Nodes= or NodeCnt=)");
    } else if (k == "licenses") {
      return makeError(key + "= is not supported by Drover reservations: cluster.conf has no "
                             "licenses to reserve");
    } else if (k == "features" || k == "burstbuffer" ||
               k == "tres" || k == "groups" || k == "watts" || k == "maxstartdelay") {
      return makeError(key + "= is not supported by Drover reservations (supported: "
                             "ReservationName, StartTime, EndTime, Duration, Nodes, NodeCnt, "
                             "Users, Accounts, PartitionName, Flags)");
    } else {
      return makeError("Invalid input: " + word + "\nRequest aborted");
    }
  }
  if (updating) {
    if (spec.name().empty()) {
      return makeError("Reservation must be given.  No reservation update.");
    }
    return spec;
  }
  if (!spec.has_start_time()) {
    return makeError("A start time must be specified.  No reservation created.");
  }
  if (!spec.has_end_time() && !spec.has_duration_s()) {
    return makeError("An end time or duration must be specified.  No reservation created.");
  }
  if (!spec.has_nodes() && !spec.has_node_count()) {
    return makeError("Nodes or NodeCnt must be specified.  No reservation created.");
  }
  if (!spec.has_users() && !spec.has_accounts()) {
    return makeError("Either Users and/or Accounts must be specified.  No reservation created.");
  }
  return spec;
}

std::string formatReservationRecord(const v1::ReservationInfo& r, bool oneliner) {
  auto join = [](const auto& items) {
    std::string out;
    for (const auto& s : items) out += (out.empty() ? "" : ",") + s;
    return out.empty() ? std::string("(null)") : out;
  };
  std::vector<std::string> flags(r.flags().begin(), r.flags().end());
  if (r.node_list_given()) flags.push_back("SPEC_NODES");
  const std::int64_t length = r.end_time() - r.start_time();
  std::vector<std::string> lines = {
      "ReservationName=" + r.name() + " StartTime=" + formatIsoTime(r.start_time()) +
          " EndTime=" + formatIsoTime(r.end_time()) + " Duration=" + formatDuration(length),
      "Nodes=" + (r.nodes().empty() ? std::string("(null)")
                            : hostlist::compressSorted({r.nodes().begin(), r.nodes().end()})) +
          " NodeCnt=" + std::to_string(r.nodes_size()) +
          " CoreCnt=" + std::to_string(r.core_count()) + " Features=(null) PartitionName=" +
          (r.partition().empty() ? std::string("(null)") : r.partition()) +
          " Flags=" + join(flags),
      "TRES=cpu=" + std::to_string(r.core_count()),
      "Users=" + join(r.users()) + " Groups=(null) Accounts=" + join(r.accounts()) +
          " Licenses=(null) State=" + (r.active() ? "ACTIVE" : "INACTIVE") +
          " BurstBuffer=(null) Watts=n/a",
      "MaxStartDelay=(null)",
  };
  return joinRecord(lines, oneliner);
}

bool isReservationCommand(const std::vector<std::string>& words) {
  if (words.size() < 2) {
    return !words.empty() && (abbrev(words[0], "create", 2) || abbrev(words[0], "delete", 3));
  }
  const std::string& verb = words[0];
  const std::string entity = keyOf(words[1]);
  const bool resv_word = abbrev(entity, "reservations", 3) || isNameKey(entity);
  if (abbrev(verb, "create", 2) || abbrev(verb, "delete", 3)) return true;
  if (abbrev(verb, "show", 3)) return resv_word;
  if (abbrev(verb, "update", 1)) {
    for (std::size_t i = 1; i < words.size(); ++i) {
      if (isNameKey(keyOf(words[i])) && words[i].find('=') != std::string::npos) return true;
    }
  }
  return false;
}

namespace {

// One call on a client made from the configuration; errors worded as for every CLI (the
// controller's refusals as it gave them).
template <typename Reply, typename Request>
Result<Reply> callController(Result<Reply> (ControllerClient::*method)(const Request&),
                             const Request& request) {
  auto client = ControllerClient::fromConfig();
  if (!client) return makeError(client.error());
  return ((*client).*method)(request);
}

// Words after the verb that are not the entity word ("reservation"), e.g. for
// `create reservation a=b` or `create a=b`.
std::vector<std::string> argsAfterEntity(const std::vector<std::string>& words) {
  std::size_t first = 1;
  if (words.size() > 1 && words[1].find('=') == std::string::npos &&
      abbrev(words[1], "reservations", 3)) {
    first = 2;
  }
  return {words.begin() + static_cast<std::ptrdiff_t>(first), words.end()};
}

int cmdCreate(const std::vector<std::string>& words) {
  if (words.size() < 2) {
    std::cerr << "too few arguments for create keyword\n";  // the reference's, bare
    return 1;
  }
  // As the reference: `create reservation ...` (a name made up when none is given), or
  // ReservationName= among the words; anything else names no entity.
  const bool named = std::any_of(words.begin() + 1, words.end(), [](const std::string& w) {
    return w.find('=') != std::string::npos && isNameKey(keyOf(w));
  });
  const bool reservation_word =
      words[1].find('=') == std::string::npos && abbrev(words[1], "reservations", 3);
  if (!reservation_word && !named) {
    printError(kProg, "Invalid creation entity: " + words[1]);
    return 1;
  }
  auto spec = parseReservationArgs(argsAfterEntity(words), false, std::time(nullptr));
  if (!spec) {
    printParseError(kProg, spec.error());
    return 1;
  }
  v1::CreateReservationRequest req;
  *req.mutable_spec() = std::move(*spec);
  auto reply = callController(&ControllerClient::createReservation, req);
  if (!reply) {
    std::cerr << "Error creating the reservation: " << reply.error() << "\n";
    return 1;
  }
  std::cout << "Reservation created: " << reply->name() << "\n";
  return 0;
}

int cmdUpdate(const std::vector<std::string>& words) {
  auto spec = parseReservationArgs({words.begin() + 1, words.end()}, true, std::time(nullptr));
  if (!spec) {
    printParseError(kProg, spec.error());
    return 1;
  }
  v1::UpdateReservationRequest req;
  *req.mutable_spec() = std::move(*spec);
  auto reply = callController(&ControllerClient::updateReservation, req);
  if (!reply) {
    std::cerr << "Error updating the reservation: " << reply.error() << "\n";
    return 1;
  }
  std::cout << "Reservation updated.\n";
  return 0;
}

int cmdDelete(const std::vector<std::string>& words) {
  // delete reservation NAME | delete ReservationName=NAME
  std::string name;
  std::string arg;
  if (words.size() >= 2) {
    arg = words[1];
    const auto eq = words[1].find('=');
    if (eq != std::string::npos && isNameKey(words[1].substr(0, eq))) {
      name = words[1].substr(eq + 1);
    } else if (eq == std::string::npos && abbrev(words[1], "reservations", 3)) {
      if (words.size() >= 3) {
        name = words[2];
        arg = words[1] + " " + words[2];
      }
    } else if (eq == std::string::npos) {
      printError(kProg, "Proper format is 'delete <ENTITY>=<ID>' or 'delete <ENTITY> <ID>'");
      return 1;
    } else {
      std::cerr << "Invalid deletion entity: " << words[1] << "\n";  // the reference's, bare
      return 1;
    }
    // More words are refused whole, naming the first, as the reference refused
    // `delete ReservationName=r x=1` (it deleted nothing).
    if (words.size() > (eq == std::string::npos ? 3u : 2u)) {
      std::cerr << "Invalid deletion entity: " << words[1] << "\n";
      return 1;
    }
  }
  if (name.empty()) {
    std::cerr << "too few arguments for delete keyword\n";  // the reference's, bare
    return 1;
  }
  v1::DeleteReservationRequest req;
  req.set_name(name);
  auto reply = callController(&ControllerClient::deleteReservation, req);
  if (!reply) {
    std::cerr << "delete_reservation " << arg << ": " << reply.error() << "\n";
    return 1;
  }
  return 0;
}

int cmdShow(const std::vector<std::string>& words, bool oneliner) {
  std::string name = words.size() > 2 ? words[2] : "";
  if (auto eq = words[1].find('='); eq != std::string::npos) name = words[1].substr(eq + 1);
  v1::GetReservationsRequest req;
  if (!name.empty()) req.add_names(name);
  auto reply = callController(&ControllerClient::getReservations, req);
  if (!reply) {
    if (reply.error().rfind("Reservation ", 0) == 0) {
      std::cout << reply.error() << "\n";
    } else {
      printError(kProg, reply.error());
    }
    return 1;
  }
  if (reply->reservations().empty()) {
    std::cout << "No reservations in the system\n";
    return 0;
  }
  for (const auto& r : reply->reservations()) std::cout << formatReservationRecord(r, oneliner);
  return 0;
}

}  // namespace

int runReservationCommand(const std::vector<std::string>& words, bool oneliner) {
  const std::string& verb = words.front();
  if (abbrev(verb, "create", 2)) return cmdCreate(words);
  if (abbrev(verb, "delete", 3)) return cmdDelete(words);
  if (abbrev(verb, "show", 3)) return cmdShow(words, oneliner);
  return cmdUpdate(words);
}

}  // namespace drover::cli
