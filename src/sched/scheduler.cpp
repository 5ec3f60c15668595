#include "sched/scheduler.h"

#include "sched/pass.h"

namespace drover::sched {

using detail::Pass;

Plan schedule(const Snapshot& snapshot, const SchedulerParams& params, int64_t now) {
  ClusterIndex index(snapshot.nodes, snapshot.partitions);
  return Pass(index, snapshot, params, now).run();
}

Plan schedule(const ClusterIndex& index, const Snapshot& snapshot, const SchedulerParams& params,
              int64_t now) {
  return Pass(index, snapshot, params, now).run();
}

Plan scheduleWithMemo(const ClusterIndex& index, const Snapshot& snapshot,
                      const SchedulerParams& params, int64_t now, PassMemo& memo) {
  return Pass(index, snapshot, params, now).run(&memo);
}

std::optional<PendingInfo> judgeSubmission(const ClusterIndex& index, const Snapshot& snapshot,
                                           const SchedulerParams& params, int64_t now,
                                           const PassMemo& memo, const Job& job,
                                           bool& skippedSameShape, OwnedShape* shape,
                                           int64_t* duration) {
  return Pass(index, snapshot, params, now).judge(memo, job, skippedSameShape, shape, duration);
}

std::optional<std::vector<Start>> judgeStartingSubmissions(
    const ClusterIndex& index, const Snapshot& snapshot, const SchedulerParams& params,
    int64_t now, const PassMemo& memo, const std::vector<const Job*>& starting, const Plan& last,
    const std::vector<RankKey>& ranks, const std::vector<int>& jobs) {
  return Pass(index, snapshot, params, now).judgeStarts(memo, starting, last, ranks, jobs);
}

std::optional<PlanDelta> replayAfterCompletion(const ClusterIndex& index, const Snapshot& snapshot,
                                               const SchedulerParams& params, int64_t now,
                                               const PassMemo& memo, const std::vector<int>& freed,
                                               const Plan& last, const std::vector<RankKey>& ranks,
                                               const std::vector<int>& jobs) {
  return Pass(index, snapshot, params, now).replay(memo, freed, last, ranks, jobs);
}

bool reservationsStand(const ClusterIndex& index, const Snapshot& snapshot,
                       const SchedulerParams& params, int64_t now,
                       const std::vector<std::pair<int, const PendingInfo*>>& holders,
                       const std::vector<std::vector<int>>& nodesBehind) {
  return Pass(index, snapshot, params, now).reservationsStand(holders, nodesBehind);
}

bool appendLastRanked(const ClusterIndex& index, const Snapshot& snapshot,
                      const SchedulerParams& params, int64_t now, PassMemo& memo,
                      const std::vector<int>& jobs, Plan& plan) {
  return Pass(index, snapshot, params, now).appendLast(memo, jobs, plan);
}

RankKey rankOf(const ClusterIndex& index, const Snapshot& snapshot, const Job& job) {
  int p = index.partition(job.request.partition);
  int tier = p < 0 ? 0 : snapshot.partitions[p].priorityTier;
  return RankKey{-tier, -job.priority, job.request.submitTime, rankIdOf(job), job.id};
}

}  // namespace drover::sched

