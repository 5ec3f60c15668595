// scontrol listpids' choice of a node's steps and the rows made of its supervisors' answers
// (ctld/node_pids.h).
#include "ctld/node_pids.h"

#include <gtest/gtest.h>

#include "drover/accounting.h"

namespace drover::ctld {
namespace {

v1::JobInfo job(std::uint64_t id, v1::JobState state, const std::string& batch_host) {
  v1::JobInfo j;
  j.set_job_id(id);
  j.set_state(state);
  j.set_batch(!batch_host.empty());
  j.set_batch_host(batch_host);
  j.set_end_time(1000 + static_cast<std::int64_t>(id));
  j.set_restart_count(2);
  return j;
}

void addStep(v1::JobInfo& j, std::int64_t step, std::vector<std::string> nodes,
             std::vector<std::string> reported = {}) {
  auto* s = j.add_steps();
  s->set_step_id(step);
  for (const auto& n : nodes) s->add_nodes()->set_node(n);
  for (const auto& n : reported) s->add_reported_nodes(n);
}

std::vector<std::pair<std::uint64_t, std::int64_t>> ids(const std::vector<NodeStep>& steps) {
  std::vector<std::pair<std::uint64_t, std::int64_t>> out;
  for (const auto& s : steps) out.emplace_back(s.job_id, s.step_id);
  return out;
}

TEST(StepsOnNode, RunningStepsWithTasksThereBatchFirst) {
  auto a = job(12, v1::JOB_RUNNING, "node1");
  addStep(a, 1, {"node2", "node1"});
  addStep(a, 0, {"node1"});
  addStep(a, 2, {"node2"});                      // not on node1
  addStep(a, 3, {"node1", "node2"}, {"node1"});  // its node1 part is over
  auto b = job(11, v1::JOB_SUSPENDED, "node2");  // batch elsewhere
  addStep(b, 0, {"node1"});
  auto c = job(13, v1::JOB_COMPLETING, "node1");
  auto d = job(14, v1::JOB_RUNNING, "");          // an interactive allocation: no batch step
  addStep(d, 0, {"node1"});
  const std::vector<v1::JobInfo> jobs{a, b, c, d};

  v1::ListPidsRequest all;
  EXPECT_EQ(ids(stepsOnNode(jobs, "node1", all)),
            (std::vector<std::pair<std::uint64_t, std::int64_t>>{
                {11, 0}, {12, acct::kBatchStep}, {12, 0}, {12, 1}, {14, 0}}));

  v1::ListPidsRequest one_job;
  one_job.set_job_id(12);
  EXPECT_EQ(stepsOnNode(jobs, "node1", one_job).size(), 3u);
  v1::ListPidsRequest one_step = one_job;
  one_step.set_step_id(acct::kBatchStep);
  const auto batch = stepsOnNode(jobs, "node1", one_step);
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(batch[0].job_end_time, 1012);
  EXPECT_EQ(batch[0].restart_count, 2u);
  one_step.set_step_id(2);
  EXPECT_TRUE(stepsOnNode(jobs, "node1", one_step).empty());
}

TEST(StepPids, TasksInRankOrderOrTheError) {
  v1::StepUsage usage;
  auto* t3 = usage.add_task_processes();
  t3->set_task(3);
  t3->add_pids(300);
  auto* t1 = usage.add_task_processes();
  t1->set_task(1);
  t1->add_pids(100);
  t1->add_pids(101);
  const NodeStep step{12, 0, 1012, 0};
  const auto row = stepPids(step, usage, "");
  EXPECT_EQ(row.job_id(), 12u);
  EXPECT_EQ(row.job_end_time(), 1012);
  ASSERT_EQ(row.tasks_size(), 2);
  EXPECT_EQ(row.tasks(0).task(), 1u);
  EXPECT_EQ(row.tasks(0).pids_size(), 2);
  EXPECT_EQ(row.tasks(1).task(), 3u);
  const auto failed = stepPids(step, usage, "agent unreachable");
  EXPECT_EQ(failed.error(), "agent unreachable");
  EXPECT_EQ(failed.tasks_size(), 0);
}

}  // namespace
}  // namespace drover::ctld
