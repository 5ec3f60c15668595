#include "sched/reason.h"

namespace drover::sched {

std::string_view reasonName(Reason reason) {
  switch (reason) {
    case Reason::None: return "None";
    case Reason::Priority: return "Priority";
    case Reason::Resources: return "Resources";
    case Reason::Dependency: return "Dependency";
    case Reason::DependencyNeverSatisfied: return "DependencyNeverSatisfied";
    case Reason::JobHeldUser: return "JobHeldUser";
    case Reason::JobHeldAdmin: return "JobHeldAdmin";
    case Reason::BeginTime: return "BeginTime";
    case Reason::PartitionTimeLimit: return "PartitionTimeLimit";
    case Reason::PartitionNodeLimit: return "PartitionNodeLimit";
    case Reason::PartitionDown: return "PartitionDown";
    case Reason::PartitionInactive: return "PartitionInactive";
    case Reason::ReqNodeNotAvail: return "ReqNodeNotAvail";
    case Reason::Reservation: return "Reservation";
    case Reason::BadConstraints: return "BadConstraints";
  }
  return "None";
}

}  // namespace drover::sched
