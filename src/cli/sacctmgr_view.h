#pragma once
// What `sacctmgr show` prints: associations, accounts, users, the cluster, QOS and TRES as
// Slurm 22.05's sacctmgr lays them out (its columns, widths, headers and order), read from
// cluster.conf, where Drover keeps the account tree (docs/configuration.md, `accounts`).
// Limits Drover does not have (GrpTRES, MaxJobs, ...) are listed empty, as Slurm lists unset
// ones.
#include <string>

#include "cli/field_table.h"
#include "cli/sacctmgr_query.h"
#include "drover/config.h"
#include "drover/result.h"

namespace drover::cli {

// The table for `list`, or Slurm's `Unknown field 'X'` for a format naming no field of the
// entity.
Result<std::string> renderSacctmgrList(const SacctmgrList& list, const config::ClusterConfig& config,
                                       const TableStyle& style);

}  // namespace drover::cli
