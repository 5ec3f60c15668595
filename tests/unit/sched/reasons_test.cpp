// Every pending reason the core reports, one case each.
#include <gtest/gtest.h>

#include "builders.h"
#include "sched/scheduler.h"

namespace drover::sched {
namespace {
using namespace testing;

TEST(Reasons, EachReason) {
  struct Case {
    std::string name;
    Job job;
    Reason want;
    std::function<void(Snapshot&)> tweak = nullptr;
  };
  std::vector<Case> cases = {
      {"user hold", JobBuilder(1).hold(Hold::User), Reason::JobHeldUser},
      {"admin hold", JobBuilder(1).hold(Hold::Admin), Reason::JobHeldAdmin},
      {"dependency", JobBuilder(1).dependency(DependencyState::Pending), Reason::Dependency},
      {"dependency never", JobBuilder(1).dependency(DependencyState::NeverSatisfied),
       Reason::DependencyNeverSatisfied},
      {"begin time", JobBuilder(1).begin(5000), Reason::BeginTime},
      {"partition time limit", JobBuilder(1).time(7200), Reason::PartitionTimeLimit,
       [](Snapshot& s) { s.partitions[0].maxTimeS = 3600; }},
      {"partition node limit", JobBuilder(1).nodes(2), Reason::PartitionNodeLimit,
       [](Snapshot& s) { s.partitions[0].maxNodes = 1; }},
      {"partition down", JobBuilder(1), Reason::PartitionDown,
       [](Snapshot& s) { s.partitions[0].state = PartitionState::Down; }},
      {"partition inactive", JobBuilder(1), Reason::PartitionInactive,
       [](Snapshot& s) { s.partitions[0].state = PartitionState::Inactive; }},
      {"required node down", JobBuilder(1).require({"gpu002"}), Reason::ReqNodeNotAvail,
       [](Snapshot& s) { s.nodes[1].usable = false; }},
      {"resources", JobBuilder(1).gpusPerNode(8), Reason::Resources,
       [](Snapshot& s) { s.running = {running(90, "gpu001", 1, {0}, 100), running(91, "gpu002", 1, {0}, 100)}; }},
      {"priority behind a blocked job", JobBuilder(2).gpusPerNode(8), Reason::Priority,
       [](Snapshot& s) {
         s.running = {running(90, "gpu001", 1, {0}, 100), running(91, "gpu002", 1, {0}, 100)};
         s.pending.push_back(JobBuilder(1).gpusPerNode(8).priority(10));
       }},
  };
  for (const auto& c : cases) {
    Snapshot s;
    s.nodes = gpuNodes(2);
    s.partitions = {partition()};
    s.pending = {c.job};
    if (c.tweak) c.tweak(s);
    Plan plan = schedule(s, SchedulerParams{}, 1000);
    const PendingInfo* p = pendingOf(plan, c.job.id);
    ASSERT_NE(p, nullptr) << c.name;
    EXPECT_EQ(reasonName(p->reason), reasonName(c.want)) << c.name;
  }
}

TEST(Reasons, NamesAreSlurms) {
  EXPECT_EQ(reasonName(Reason::ReqNodeNotAvail), "ReqNodeNotAvail");
  EXPECT_EQ(reasonName(Reason::JobHeldAdmin), "JobHeldAdmin");
  EXPECT_EQ(reasonName(Reason::PartitionTimeLimit), "PartitionTimeLimit");
}

}  // namespace
}  // namespace drover::sched
