// Which steps sstat's GetStepStats names (Slurm 22.05's choice, checked on the reference
// cluster) and how the nodes' answers fold into one row per step.
#include <gtest/gtest.h>

#include "ctld/acct_wire.h"
#include "ctld/step_stats.h"

namespace drover::ctld {
namespace {

v1::JobInfo runningJob(std::vector<std::int64_t> step_ids) {
  v1::JobInfo job;
  job.set_job_id(12);
  job.set_state(v1::JOB_RUNNING);
  job.set_batch(true);
  job.set_batch_host("n1");
  for (auto id : step_ids) {
    auto* s = job.add_steps();
    s->set_step_id(id);
    s->set_ntasks(3);
    s->add_nodes()->set_node("n1");
    s->add_nodes()->set_node("n2");
  }
  return job;
}

v1::GetStepStatsRequest request(std::optional<std::int64_t> step, bool all = false) {
  v1::GetStepStatsRequest r;
  r.set_job_id(12);
  if (step) r.set_step_id(*step);
  r.set_all_steps(all);
  return r;
}

std::vector<std::int64_t> ids(const std::vector<StatStep>& steps) {
  std::vector<std::int64_t> out;
  for (const auto& s : steps) out.push_back(s.step_id);
  return out;
}

TEST(SelectStatSteps, AsSlurmsSstat) {
  const auto job = runningJob({3, 1});
  // A bare job id: its lowest numbered step, not the batch step.
  auto lowest = selectStatSteps(job, request(std::nullopt));
  ASSERT_TRUE(lowest.ok());
  EXPECT_EQ(ids(*lowest), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(lowest->front().nodes, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(lowest->front().ntasks, 3u);
  // -a: the batch step, then every numbered step.
  auto all = selectStatSteps(job, request(std::nullopt, true));
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(ids(*all), (std::vector<std::int64_t>{-5, 1, 3}));
  EXPECT_EQ((*all)[0].nodes, (std::vector<std::string>{"n1"}));
  // Named steps, the batch step among them.
  EXPECT_EQ(ids(*selectStatSteps(job, request(3))), (std::vector<std::int64_t>{3}));
  EXPECT_EQ(ids(*selectStatSteps(job, request(-5))), (std::vector<std::int64_t>{-5}));
  auto missing = selectStatSteps(job, request(7));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error(), "StepId=12.7 not found running.");
  auto no_extern = selectStatSteps(job, request(-4));
  ASSERT_FALSE(no_extern.ok());
  EXPECT_EQ(no_extern.error(), "StepId=12.extern not found running.");
}

TEST(SelectStatSteps, OnlyTheBatchStepRunningGivesNoRowAndNoError) {
  auto none = selectStatSteps(runningJob({}), request(std::nullopt));
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(SelectStatSteps, AJobThatRunsNoStepIsRefused) {
  for (auto state : {v1::JOB_PENDING, v1::JOB_COMPLETED, v1::JOB_CANCELLED}) {
    auto job = runningJob({0});
    job.set_state(state);
    auto r = selectStatSteps(job, request(std::nullopt));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error(), "No steps running for job 12");
  }
  EXPECT_EQ(unknownJobText(99), "couldn't get steps for job 99");
}

v1::TaskUsage task(std::uint32_t rank, const std::string& node, std::uint64_t rss_kb,
                   std::uint64_t cpu_ms) {
  v1::TaskUsage t;
  t.set_task(rank);
  t.set_node(node);
  t.set_rss_kb(rss_kb);
  t.set_vmsize_kb(rss_kb * 2);
  t.set_cpu_ms(cpu_ms);
  return t;
}

TEST(FoldStepStats, EveryNodesTasksMakeOneRow) {
  StatStep step{2, {"n1", "n2", "n3"}, 3};
  std::vector<NodeAnswer> answers(3);
  answers[0].node = "n1";
  *answers[0].usage.add_tasks() = task(0, "n1", 1000, 4000);
  answers[0].usage.add_pids(100);
  answers[1].node = "n2";
  *answers[1].usage.add_tasks() = task(1, "n2", 65536, 2000);
  answers[1].usage.add_pids(200);
  answers[1].usage.add_pids(201);
  answers[2].node = "n3";
  answers[2].error = "agent unreachable";
  const v1::StepStats stats = foldStepStats(12, step, answers);
  EXPECT_FALSE(stats.permission_denied());
  ASSERT_EQ(stats.node_errors_size(), 1);
  EXPECT_EQ(stats.node_errors(0), "n3: agent unreachable");
  EXPECT_EQ(std::vector<int>(stats.pids().begin(), stats.pids().end()),
            (std::vector<int>{100, 200, 201}));
  const acct::StepRecord r = fromWire(stats.step());
  EXPECT_EQ(r.job_id, 12u);
  EXPECT_EQ(r.step_id, 2);
  EXPECT_EQ(r.ntasks, 3u);
  EXPECT_EQ(r.nnodes, 3u);
  EXPECT_EQ(r.node_list, "n[1-3]");
  EXPECT_EQ(*r.usage.max_rss_kb, 65536);
  EXPECT_EQ(r.usage.max_rss_node, "n2");
  EXPECT_EQ(*r.usage.max_rss_task, 1);
  EXPECT_EQ(*r.usage.ave_rss_kb, (1000 + 65536) / 2);
  EXPECT_EQ(*r.usage.min_cpu_sec, 2);
  EXPECT_EQ(r.usage.min_cpu_node, "n2");
  EXPECT_EQ(*r.usage.ave_cpu_sec, 3);
  // TRESUsageOutMin*: both wrote nothing; the lowest task wins the tie.
  EXPECT_EQ(stats.tres_usage_out_min(), "energy=0,fs/disk=0");
  EXPECT_EQ(stats.tres_usage_out_min_node(), "energy=n1,fs/disk=n1");
  EXPECT_EQ(stats.tres_usage_out_min_task(), "fs/disk=0");
  // An srun step's requested frequencies are Unknown (unset), the batch step's 0.
  EXPECT_FALSE(r.req_cpu_freq_min);
  const acct::StepRecord batch = fromWire(foldStepStats(12, StatStep{-5, {"n1"}, 1}, {}).step());
  EXPECT_EQ(batch.req_cpu_freq_min, 0u);
  EXPECT_FALSE(batch.usage.max_rss_kb);   // nobody answered: nothing measured
  EXPECT_EQ(foldStepStats(12, StatStep{-5, {"n1"}, 1}, {}).tres_usage_out_min(), "");
}

TEST(FoldStepStats, ADeniedStepCarriesItsIdAndNodesOnly) {
  const v1::StepStats denied = deniedStepStats(12, StatStep{0, {"n1"}, 2});
  EXPECT_TRUE(denied.permission_denied());
  const acct::StepRecord r = fromWire(denied.step());
  EXPECT_EQ(r.step_id, 0);
  EXPECT_EQ(r.node_list, "n1");
  EXPECT_FALSE(r.usage.max_rss_kb);
}

}  // namespace
}  // namespace drover::ctld
