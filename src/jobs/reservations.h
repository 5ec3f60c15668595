#pragma once
// Advance reservations as the controller holds them: validated creation, update and deletion
// with Slurm's messages, the list scontrol shows, what the scheduler's snapshot gets, who may
// submit into one, and the pending reason of jobs kept out of a maintenance reservation.
//
// Pure: no storage and no clock; `now` is a parameter and what the book cannot know (does a
// user exist, which nodes run jobs until when) comes in a ReservationContext. The controller
// persists each change it accepts (src/ctld/reservation_store.h).
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "drover/config.h"
#include "drover/result.h"
#include "drover/v1/reservations.pb.h"
#include "sched/types.h"

namespace drover::jobs {

// Slurm's texts for refused reservation requests and submissions.
inline constexpr const char* kResvInvalid = "Requested reservation is invalid";
inline constexpr const char* kResvAccess = "Access denied to requested reservation";
inline constexpr const char* kResvOverlap = "Requested reservation overlaps with another reservation";
inline constexpr const char* kResvDuplicate = "Duplicate reservation name";
inline constexpr const char* kResvEmpty = "Reservation request lacks users, accounts or groups";
inline constexpr const char* kResvNodesBusy = "Requested nodes are busy";
inline constexpr const char* kResvBadNode = "Invalid node name specified";
inline constexpr const char* kResvBadTime = "Invalid time specified";
inline constexpr const char* kResvBadPartition = "Invalid partition name specified";
inline constexpr const char* kResvBadAccount =
    "Invalid account or account/partition combination specified";
inline constexpr const char* kResvBadUser = "Invalid user id";
inline constexpr const char* kResvBadNodeCount = "Node count specification invalid";
inline constexpr const char* kResvBadFlags = "Invalid reservation flags";
inline constexpr const char* kReservedForMaintenance = "ReqNodeNotAvail, Reserved for maintenance";

// Flags a reservation may carry (scontrol's Flags=), in the order Slurm prints them.
const std::vector<std::string>& knownReservationFlags();

// A node that runs work until `end` (jobs holding resources now).
struct BusyNode {
  std::string node;
  std::int64_t end = 0;
};

struct ReservationContext {
  std::int64_t now = 0;
  std::vector<BusyNode> busy;
  // Whether a name in Users= is a user of this system; null = every name is accepted.
  std::function<bool(const std::string&)> user_exists;
};

class ReservationBook {
 public:
  // `config` must outlive the book (the controller's configuration, reloaded in place).
  explicit ReservationBook(const config::ClusterConfig& config) : config_(config) {}

  // The new reservation, or Slurm's message for why it was refused.
  Result<v1::ReservationInfo> create(const v1::ReservationSpec& spec,
                                     const ReservationContext& ctx);
  // Changes the fields present in `spec` of the reservation it names.
  Result<v1::ReservationInfo> update(const v1::ReservationSpec& spec,
                                     const ReservationContext& ctx);
  Status remove(const std::string& name);
  // After a restart: reservations as stored, without validation.
  void restore(v1::ReservationInfo info);

  // Reservations named (all when `names` is empty) that have not ended, by start time, with
  // `active` filled in; a named one that does not exist is an error ("Reservation X not found").
  Result<std::vector<v1::ReservationInfo>> list(const std::vector<std::string>& names,
                                                std::int64_t now) const;
  // What ended at or before `now`: a recurring reservation (HOURLY, DAILY, WEEKLY) moves on to
  // its next occurrence after `now`; any other is forgotten once `keep_s` more have passed
  // (ResvOverRun: its jobs are still ended from its times). Returns what changed, to persist.
  struct Expiry {
    std::vector<std::string> dropped;
    std::vector<v1::ReservationInfo> moved;
  };
  Expiry expire(std::int64_t now, std::int64_t keep_s);
  // The next time expire() has something to do (0 = nothing held).
  std::int64_t nextExpiry(std::int64_t keep_s) const;

  // What the scheduler keeps other work out of.
  std::vector<sched::AdvanceReservation> forSnapshot(std::int64_t now) const;

  // Whether `user` (charging `account`) may submit into reservation `name`: nothing, or
  // Slurm's refusal (kResvInvalid, kResvAccess).
  std::optional<std::string> checkAccess(const std::string& name, const std::string& user,
                                         const std::string& account, std::int64_t now) const;

  // The reason squeue shows for a pending job the scheduler left waiting with `reason`, when a
  // reservation explains it better: a job outside a MAINT reservation whose run would overlap
  // it on nodes it could use waits with "ReqNodeNotAvail, Reserved for maintenance".
  std::optional<std::string> pendingReason(const sched::JobRequest& request, sched::Reason reason,
                                           std::int64_t now) const;

  const v1::ReservationInfo* find(const std::string& name) const;
  std::size_t size() const { return resv_.size(); }

 private:
  Status validate(v1::ReservationInfo& info, bool nodes_changed, const ReservationContext& ctx,
                  const std::string& replacing) const;
  Result<std::vector<std::string>> pickNodes(const v1::ReservationInfo& info, std::uint32_t count,
                                             const ReservationContext& ctx,
                                             const std::string& replacing) const;
  bool overlapsOther(const v1::ReservationInfo& info, const std::string& node,
                     const std::string& replacing) const;
  std::string generatedName(const v1::ReservationInfo& info) const;
  std::uint32_t coresOf(const std::vector<std::string>& nodes) const;
  std::vector<std::string> partitionNodes(const std::string& partition) const;

  const config::ClusterConfig& config_;
  std::map<std::string, v1::ReservationInfo> resv_;
};

// "MAINT,IGNORE_JOBS" -> the flags in Slurm's order, upper case; an unknown flag is an error
// naming it and the accepted ones.
Result<std::vector<std::string>> parseReservationFlags(const std::string& text);
bool hasFlag(const v1::ReservationInfo& info, const std::string& flag);

// Seconds between occurrences of a recurring reservation (HOURLY 3600, DAILY 86400, WEEKLY
// 604800), 0 for a one-off.
std::int64_t recurrencePeriod(const v1::ReservationInfo& info);
// The end of the occurrence of `info` that a job started at `job_start` ran in: the current
// one, or an earlier one of a recurring reservation that has moved on since.
std::int64_t occurrenceEnd(const v1::ReservationInfo& info, std::int64_t job_start);
// When a job started at `job_start` in `info` must be ended: the end of its occurrence plus
// ResvOverRun (`over_run_s`), as Slurm; never (nullopt) for FLEX reservations, whose jobs may
// run past the end, or when ResvOverRun is UNLIMITED (-1).
std::optional<std::int64_t> reservationKillTime(const v1::ReservationInfo& info,
                                                std::int64_t job_start, std::int64_t over_run_s);

}  // namespace drover::jobs
