#pragma once
// `sacctmgr show event`: the conditions of sacctmgr's man page (Start=, End=, Nodes=,
// States=, Event=Node|Cluster, Reason=, User=, MinCPUs=, MaxCPUs=, Clusters=, CondFlags=Open,
// All_Time, format=) read into a QueryEvents request, and the controller's events printed in
// sacctmgr's table (default columns Cluster NodeName TimeStart TimeEnd State Reason User).
// Pure: `now` is a parameter.
#include <cstdint>
#include <string>
#include <vector>

#include "cli/field_table.h"
#include "drover/result.h"
#include "drover/v1/accounting.pb.h"

namespace drover::cli {

struct EventQuery {
  v1::QueryEventsRequest request;
  std::vector<FieldWidthChoice> format;   // empty: the default columns
  std::vector<std::string> clusters;      // Clusters=: only these clusters' events
  // Printed on stderr before the table: a Start=/End= that does not read keeps its default, as
  // the reference's ("Invalid time specification (pos=N): X").
  std::vector<std::string> warnings;
};

// `conditions` are the words after the entity ("start=now-1hour", "nodes=n[1-2]", ...).
// Without Start=, the window starts at 00:00 of the previous day, unless States= asks for the
// events open now in those states; End= defaults to now.
Result<EventQuery> parseEventConditions(const std::vector<std::string>& conditions, std::int64_t now);

// The table, or Slurm's `Unknown field 'X'` for a format naming no event field.
Result<std::string> renderEvents(const EventQuery& query, const v1::QueryEventsReply& reply,
                                 const TableStyle& style, std::int64_t now);

}  // namespace drover::cli
