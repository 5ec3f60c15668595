#pragma once
// What one sacctmgr command line asks for ("show assoc user=alice format=account%20,user"),
// read as Slurm's sacctmgr reads it: a verb, an entity (any unambiguous beginning), then
// conditions `key=value[,value...]`, bare flags (tree, withassoc, where) and, for entities
// named by name, bare names. Drover keeps its associations in cluster.conf, so only the
// listing verbs run; the others are refused with where to make the change instead.
#include <map>
#include <string>
#include <vector>

#include "cli/field_table.h"
#include "drover/result.h"

namespace drover::cli {

enum class SacctmgrEntity { kAssociation, kAccount, kUser, kCluster, kQos, kTres, kEvent };

struct SacctmgrList {
  SacctmgrEntity entity = SacctmgrEntity::kAssociation;
  // Condition -> the values any of which a row must show; keys are the header of the field
  // compared ("Account", "User", "Cluster", ...).
  std::map<std::string, std::vector<std::string>> filters;
  std::vector<FieldWidthChoice> format;   // empty = the entity's default columns
  bool with_assoc = false;                // withassoc or -s: one row per association
  bool tree = false;                      // assoc: accounts indented by depth
  // kEvent: the words after the entity, read by sacctmgr_events.h (times need `now`).
  std::vector<std::string> event_conditions;
};

enum class SacctmgrVerb { kList, kChange, kHelp, kVersion, kQuit, kNothing };

struct SacctmgrAction {
  SacctmgrVerb verb = SacctmgrVerb::kNothing;
  SacctmgrList list;        // kList
  std::string change_verb;  // kChange: the verb as written ("add", "modify", ...)
};

// `words` is the command after sacctmgr's options; `with_assoc` is -s.
Result<SacctmgrAction> parseSacctmgrWords(const std::vector<std::string>& words, bool with_assoc);

}  // namespace drover::cli
