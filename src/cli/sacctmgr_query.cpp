#include "cli/sacctmgr_query.h"

#include <algorithm>
#include <string_view>

#include "cli/cli_common.h"

namespace drover::cli {

namespace {

// Slurm's text for a list command with no entity it knows.
constexpr std::string_view kNoEntity =
    "No valid entity in list command\n"
    "Input line must include \"Account\", \"Association\", \"Cluster\", \"Configuration\",\n"
    "\"Event\", \"Federation\", \"Problem\", \"QOS\", \"Resource\", \"Reservation\",\n"
    "\"RunAwayJobs\", \"Stats\", \"Transaction\", \"TRES\", \"User\", or \"WCKey\"";

struct EntityName {
  std::string_view name;
  std::size_t min;   // letters needed to tell it from the others
  SacctmgrEntity entity;
};
constexpr EntityName kEntities[] = {
    {"associations", 2, SacctmgrEntity::kAssociation},
    {"accounts", 2, SacctmgrEntity::kAccount},
    {"users", 1, SacctmgrEntity::kUser},
    {"clusters", 1, SacctmgrEntity::kCluster},
    {"qos", 1, SacctmgrEntity::kQos},
    {"tres", 2, SacctmgrEntity::kTres},
    {"events", 1, SacctmgrEntity::kEvent},
};

// A condition key (any case; singular or plural) and the field header it compares.
struct ConditionKey {
  std::string_view key;
  std::string_view field;
};

std::vector<ConditionKey> conditionsOf(SacctmgrEntity e) {
  switch (e) {
    case SacctmgrEntity::kAssociation:
      return {{"cluster", "Cluster"}, {"account", "Account"}, {"acct", "Account"},
              {"user", "User"},       {"partition", "Partition"}, {"parent", "ParentName"},
              {"id", "ID"}};
    case SacctmgrEntity::kAccount:
      return {{"name", "Account"},     {"account", "Account"}, {"acct", "Account"},
              {"cluster", "Cluster"},  {"parent", "ParentName"}, {"description", "Descr"},
              {"organization", "Org"}, {"user", "User"}};
    case SacctmgrEntity::kUser:
      return {{"name", "User"},    {"user", "User"},
              {"account", "Account"}, {"acct", "Account"},
              {"cluster", "Cluster"}, {"defaultaccount", "Def Acct"},
              {"adminlevel", "Admin"}};
    case SacctmgrEntity::kCluster:
      return {{"name", "Cluster"}, {"cluster", "Cluster"}};
    case SacctmgrEntity::kQos:
      return {{"name", "Name"}, {"id", "ID"}};
    case SacctmgrEntity::kTres:
      return {{"type", "Type"}, {"name", "Name"}, {"id", "ID"}};
    case SacctmgrEntity::kEvent:
      return {};   // sacctmgr_events.h reads them
  }
  return {};
}

// The field a bare word names, for entities listed by name; "" for associations (Slurm reads a
// bare word there as an association id).
std::string_view bareNameField(SacctmgrEntity e) {
  switch (e) {
    case SacctmgrEntity::kAccount: return "Account";
    case SacctmgrEntity::kUser: return "User";
    case SacctmgrEntity::kCluster: return "Cluster";
    case SacctmgrEntity::kQos: return "Name";
    default: return "";
  }
}

const ConditionKey* findCondition(const std::vector<ConditionKey>& keys, std::string_view key) {
  for (const ConditionKey& k : keys) {
    if (equalsIgnoreCase(key, k.key) ||
        (key.size() == k.key.size() + 1 && (key.back() == 's' || key.back() == 'S') &&
         equalsIgnoreCase(key.substr(0, k.key.size()), k.key))) {
      return &k;
    }
  }
  return nullptr;
}

bool isChangeVerb(std::string_view w) {
  for (std::string_view v : {"add", "create", "modify", "update", "delete", "remove", "archive",
                             "dump", "load", "reconfigure", "shutdown", "clear"}) {
    if (equalsIgnoreCase(w, v)) return true;
  }
  return false;
}

Result<SacctmgrList> parseList(const std::vector<std::string>& words, bool with_assoc) {
  if (words.size() < 2) return makeError(std::string(kNoEntity));
  SacctmgrList list;
  list.with_assoc = with_assoc;
  const EntityName* entity = nullptr;
  for (const EntityName& e : kEntities) {
    if (abbrev(words[1], e.name, e.min)) entity = &e;
  }
  if (entity == nullptr) {
    for (std::string_view other : {"configuration", "federations", "problems",
                                   "resources", "reservations", "runawayjobs", "stats",
                                   "transactions", "wckeys"}) {
      if (abbrev(words[1], other, 3)) {
        return makeError("Drover keeps no " + std::string(other) +
                         " records; sacctmgr lists accounts, associations, clusters, "
                         "events, qos, tres and users");
      }
    }
    return makeError(std::string(kNoEntity));
  }
  list.entity = entity->entity;
  if (list.entity == SacctmgrEntity::kEvent) {
    list.event_conditions.assign(words.begin() + 2, words.end());
    return list;
  }
  const std::vector<ConditionKey> keys = conditionsOf(list.entity);
  for (std::size_t i = 2; i < words.size(); ++i) {
    const std::string& w = words[i];
    const std::size_t eq = w.find('=');
    if (eq == std::string::npos) {
      if (equalsIgnoreCase(w, "where") || equalsIgnoreCase(w, "withdeleted")) continue;
      if (equalsIgnoreCase(w, "withassoc")) {
        list.with_assoc = true;
      } else if (equalsIgnoreCase(w, "tree") && list.entity == SacctmgrEntity::kAssociation) {
        list.tree = true;
      } else if (const std::string_view field = bareNameField(list.entity); !field.empty()) {
        for (auto& v : splitCommas(w)) list.filters[std::string(field)].push_back(v);
      } else {
        return makeError(" Unknown condition: " + w);
      }
      continue;
    }
    const std::string key = w.substr(0, eq);
    const std::string value = w.substr(eq + 1);
    if (equalsIgnoreCase(key, "format")) {
      for (const std::string& item : splitCommas(value)) {
        auto choice = splitFieldWidth(item);
        if (!choice.ok()) return makeError(choice.error());
        list.format.push_back(*choice);
      }
      if (list.format.empty()) return makeError("Unknown field ''");
      continue;
    }
    const ConditionKey* k = findCondition(keys, key);
    if (k == nullptr) {
      // Slurm adds the hint for the entities its modify command takes.
      const bool modifiable = list.entity != SacctmgrEntity::kAssociation &&
                              list.entity != SacctmgrEntity::kTres;
      return makeError(" Unknown condition: " + w +
                       (modifiable ? "\n Use keyword 'set' to modify value" : ""));
    }
    auto& values = list.filters[std::string(k->field)];
    for (auto& v : splitCommas(value)) values.push_back(v);
  }
  return list;
}

}  // namespace

Result<SacctmgrAction> parseSacctmgrWords(const std::vector<std::string>& words, bool with_assoc) {
  SacctmgrAction action;
  if (words.empty()) return action;
  const std::string& verb = words[0];
  if (equalsIgnoreCase(verb, "show") || equalsIgnoreCase(verb, "list")) {
    auto list = parseList(words, with_assoc);
    if (!list.ok()) return makeError(list.error());
    action.verb = SacctmgrVerb::kList;
    action.list = std::move(*list);
  } else if (isChangeVerb(verb)) {
    action.verb = SacctmgrVerb::kChange;
    action.change_verb = verb;
  } else if (equalsIgnoreCase(verb, "help")) {
    action.verb = SacctmgrVerb::kHelp;
  } else if (equalsIgnoreCase(verb, "version")) {
    action.verb = SacctmgrVerb::kVersion;
  } else if (equalsIgnoreCase(verb, "quit") || equalsIgnoreCase(verb, "exit")) {
    action.verb = SacctmgrVerb::kQuit;
  } else {
    return makeError("Invalid keyword: " + verb);
  }
  return action;
}

}  // namespace drover::cli
