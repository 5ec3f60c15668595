#pragma once
// scontrol's reservation commands: `create reservation KEY=VALUE...`, `update
// ReservationName=NAME KEY=VALUE...`, `delete reservation NAME` (or `delete ReservationName=NAME`),
// `show reservation [NAME]`, with Slurm's keywords, messages and record layout. The pure pieces
// (argument parsing, record printing) are exposed for tests.
#include <cstdint>
#include <string>
#include <vector>

#include "drover/result.h"
#include "drover/v1/reservations.pb.h"

namespace drover::cli {

// The keyword arguments of create (`updating` false) or update (true), without the leading
// verb and entity words. Keys are case-insensitive: ReservationName (or Reservation),
// StartTime, EndTime, Duration, Nodes, NodeCnt, Users, Accounts, PartitionName (or Partition),
// Flags; `Users+=x` / `Users-=x` (and Accounts) add or remove on update. Times as sbatch
// --begin (now, now+1hour, 2026-12-01T08:00), Duration as a time limit (minutes, H:M:S,
// D-H:M:S, UNLIMITED), relative to `now`. Errors are the text scontrol prints after
// "scontrol: error: ".
Result<v1::ReservationSpec> parseReservationArgs(const std::vector<std::string>& args,
                                                 bool updating, std::int64_t now);

// One reservation as `scontrol show reservation` prints it (a blank line after each record),
// or on one line with -o.
std::string formatReservationRecord(const v1::ReservationInfo& info, bool oneliner);

// Whether the command line (verb first) is a reservation command this file handles.
bool isReservationCommand(const std::vector<std::string>& words);
// Runs it against the controller; returns scontrol's exit code.
int runReservationCommand(const std::vector<std::string>& words, bool oneliner);

}  // namespace drover::cli
