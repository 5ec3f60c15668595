#pragma once
// Why a pending job is not running, with Slurm's names for squeue's REASON column.
#include <string_view>

namespace drover::sched {

enum class Reason {
  None,
  Priority,
  Resources,
  Dependency,
  DependencyNeverSatisfied,
  JobHeldUser,
  JobHeldAdmin,
  BeginTime,
  PartitionTimeLimit,
  PartitionNodeLimit,
  PartitionDown,
  PartitionInactive,
  ReqNodeNotAvail,
  Reservation,
  BadConstraints,
};

std::string_view reasonName(Reason reason);

}  // namespace drover::sched
