// How a pass sees one pending job: its reasons not to run now and the JobCtx it is
// scheduled by (sched/pass.h).
#include "sched/pass.h"

namespace drover::sched::detail {

Reason Pass::waitReason(const JobRequest& r) const {
  if (r.hold == Hold::Admin) return Reason::JobHeldAdmin;
  if (r.hold == Hold::User) return Reason::JobHeldUser;
  if (r.unrunnable) return Reason::BadConstraints;
  if (r.dependency == DependencyState::NeverSatisfied) return Reason::DependencyNeverSatisfied;
  if (r.dependency == DependencyState::Pending) return Reason::Dependency;
  if (r.beginTime > now_) return Reason::BeginTime;
  return Reason::None;
}

Reason Pass::staticReason(const Job& job, JobCtx& ctx, const std::string& partition) {
  if (Reason why = waitReason(job.request); why != Reason::None) return why;
  // Queues are mostly one or two partitions: remember the last lookup.
  if (partition != lastPartName_) {
    lastPartName_ = partition;
    lastPart_ = index_.partition(partition);
  }
  int pidx = lastPart_;
  if (pidx < 0) return Reason::PartitionInactive;
  const Partition& part = snap_.partitions[pidx];
  if (part.state == PartitionState::Down) return Reason::PartitionDown;
  if (part.state == PartitionState::Inactive) return Reason::PartitionInactive;
  ctx.partition = pidx;
  return Reason::None;
}

Reason Pass::shapeReason(const Job& job, JobCtx& ctx) {
  const JobRequest& r = job.request;
  const Partition& part = snap_.partitions[ctx.partition];
  if (!r.reservation.empty()) {
    auto it = std::find_if(resv_.begin(), resv_.end(),
                           [&](const ReservationState& rs) { return rs.res->name == r.reservation; });
    if (it == resv_.end()) return Reason::Reservation;  // unknown or already over
    const AdvanceReservation& res = *it->res;
    auto listed = [](const std::vector<std::string>& list, const std::string& v) {
      return std::find(list.begin(), list.end(), v) != list.end();
    };
    bool open = res.users.empty() && res.accounts.empty();
    if (!open && !listed(res.users, r.user) && !listed(res.accounts, r.account)) {
      return Reason::Reservation;
    }
    ctx.reservation = static_cast<int>(it - resv_.begin());
  }
  ctx.duration = r.timeLimitS > 0      ? r.timeLimitS
                 : part.defaultTimeS > 0 ? part.defaultTimeS
                 : part.maxTimeS > 0     ? part.maxTimeS
                                         : params_.defaultTimeLimitS;
  if (part.maxTimeS > 0 && ctx.duration > part.maxTimeS) return Reason::PartitionTimeLimit;
  ctx.demand = computeDemand(r, index_.largestCpus());
  if (part.exclusive) ctx.demand.wholeNode = true;
  if (part.maxNodes > 0 && ctx.demand.nodes > part.maxNodes) return Reason::PartitionNodeLimit;
  // -N min-max: sbatch(1) allocates "as many nodes as possible within the range specified and
  // without delaying the initiation of the job". With -n, at most one node per task, and the
  // tasks are laid out over the nodes taken (task_layout.h), as Slurm does (-N1-3 -n 2 on an
  // idle cluster: 2 nodes, one task each). Not with --ntasks-per-node and -n together, nor a
  // per-job GPU count, whose per-node share depends on the node count (Slurm also ran
  // -N 1-3 --gpus=2 on one node); reservations plan for the minimum.
  ctx.maxNodes = ctx.demand.nodes;
  if (r.maxNodes > ctx.demand.nodes && r.gpusPerJob == 0 &&
      !(r.ntasksGiven && r.ntasksPerNode > 0)) {
    ctx.maxNodes = part.maxNodes > 0 ? std::min(r.maxNodes, part.maxNodes) : r.maxNodes;
    if (r.ntasksGiven) ctx.maxNodes = std::max(ctx.demand.nodes, std::min(ctx.maxNodes, r.ntasks));
  }
  if (!r.constraint.empty()) {
    ctx.constraint = constraintFor(r.constraint);
    if (!ctx.constraint) return Reason::ReqNodeNotAvail;
  }
  for (const std::string& name : r.requiredNodes) {
    int node = index_.node(name);
    if (node < 0 || !snap_.nodes[node].usable) return Reason::ReqNodeNotAvail;
    ctx.required.push_back(node);
  }
  for (const std::string& name : r.excludedNodes) {
    int node = index_.node(name);
    if (node >= 0) ctx.excluded.push_back(node);
  }
  std::sort(ctx.excluded.begin(), ctx.excluded.end());
  if (r.minNodes > 0) {
    ctx.walkMaxNodes = ctx.maxNodes;
  } else if (r.gpusPerJob == 0) {  // a per-job GPU share depends on the node count: kept fixed
    ctx.walkMaxNodes = part.maxNodes > 0 ? std::min(r.ntasks, part.maxNodes) : r.ntasks;
    ctx.walkFewest = true;
  } else {
    ctx.walkMaxNodes = ctx.demand.nodes;
  }
  ctx.walked = ctx.required.empty() && laysOutTasks(r, ctx.walkMaxNodes, ctx.demand.wholeNode);
  if (ctx.walked) {
    ctx.oneTask = shareForTasks(r, 1, ctx.demand.nodes);
  } else {
    ctx.walkFewest = false;
  }
  return Reason::None;
}

const Constraint* Pass::constraintFor(const std::string& text) {
  auto it = constraints_.find(text);
  if (it == constraints_.end()) {
    auto parsed = Constraint::parse(text);
    if (!parsed) return nullptr;
    it = constraints_.emplace(text, std::move(*parsed)).first;
  }
  return &it->second;
}

ShapeKey Pass::shapeKey(const JobCtx& ctx) const {
  const Demand& d = ctx.demand;
  const JobRequest& r = ctx.job->request;
  TaskShape task;
  if (ctx.walked) {
    task = TaskShape{r.ntasks,      ctx.walkMaxNodes, r.cpusPerTask, r.cpusPerGpu,
                     r.gpusPerTask, r.memPerCpuMb, r.memPerGpuMb};
  }
  // Pointers into the job (which outlives the pass), never into the short-lived ctx.
  return ShapeKey{ctx.partition, d.nodes,     d.perNode.cpus, d.perNode.gpus, d.perNode.memoryMb,
                  d.wholeNode,   d.allMemory, &r.gpuType,     &r.constraint,  task};
}

}  // namespace drover::sched::detail
