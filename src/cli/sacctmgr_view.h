#pragma once
// sacctmgr's read-only reports (list/show user, account, association) over the account tree of
// cluster.conf: Drover keeps accounts and users there, not in a database, so this is all
// sacctmgr can show. Workflow engines ask it which accounts a user may charge (Snakemake's
// `sacctmgr -n -s list user $USER format=account%20`).
#include <string>
#include <string_view>
#include <vector>

#include "drover/config.h"
#include "drover/result.h"

namespace drover::cli {

enum class SacctmgrEntity { User, Account, Association };

// One format= field: its canonical name, width and side (%N right, %-N left, as Slurm's).
struct SacctmgrColumn {
  std::string field;
  int width = 10;
  bool left = false;
};

struct SacctmgrQuery {
  SacctmgrEntity entity = SacctmgrEntity::User;
  bool with_assoc = false;                // -s / withassoc: one row per association
  std::vector<std::string> users;         // names of `list user`, user= of the others
  std::vector<std::string> accounts;      // names of `list account`, account= of the others
  std::vector<std::string> clusters;      // cluster=
  std::vector<SacctmgrColumn> columns;    // empty: the entity's default columns
};

struct SacctmgrOutput {
  bool no_header = false;   // -n
  bool parsable = false;    // -p: '|' after every field
  bool parsable2 = false;   // -P: '|' between fields
};

// format=Name[%[-]W],...: any case; a name's beginning picks the field it begins, unless it
// begins more than one ("def": DefaultAccount, DefaultQOS), which is "Unknown field 'def'".
Result<std::vector<SacctmgrColumn>> parseSacctmgrFormat(std::string_view spec);

std::string renderSacctmgr(const config::ClusterConfig& config, const SacctmgrQuery& query,
                           const SacctmgrOutput& output);

}  // namespace drover::cli
