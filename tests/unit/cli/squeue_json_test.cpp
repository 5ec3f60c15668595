// squeue --json against Slurm's captured document (golden 073): every job object has Slurm's
// keys in Slurm's order (job_resources only for jobs holding nodes), and the values a dashboard
// reads are Drover's job fields.
#include "cli/squeue_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/squeue.h"
#include "cli/squeue_view.h"
#include "job_fixture.h"
#include "reference_cluster.h"

namespace drover::cli {
namespace {

using testing::goldenStdout;
using testing::referenceJobs;

std::vector<std::string> keysOf(const nlohmann::ordered_json& o) {
  std::vector<std::string> keys;
  for (auto it = o.begin(); it != o.end(); ++it) keys.push_back(it.key());
  return keys;
}

nlohmann::ordered_json goldenJob(const std::string& state) {
  auto doc = nlohmann::ordered_json::parse(goldenStdout("073-squeue-json.txt"));
  for (const auto& j : doc["jobs"])
    if (j["job_state"] == state) return j;
  return {};
}

nlohmann::ordered_json ours(const std::vector<std::string>& args = {"--json"}) {
  auto cmd = parseSqueueArgs(args);
  EXPECT_TRUE(cmd.ok());
  SqueueOptions o = cmd->options;
  o.cluster_name = "oracle";
  auto text = renderSqueue(o, referenceJobs(), 1796041744);
  EXPECT_TRUE(text.ok()) << text.error();
  return nlohmann::ordered_json::parse(*text);
}

TEST(SqueueJson, EveryJobHasGolden073sKeysInItsOrder) {
  const auto running = goldenJob("RUNNING");
  const auto pending = goldenJob("PENDING");
  ASSERT_FALSE(running.empty());
  ASSERT_FALSE(pending.empty());
  auto doc = ours();
  EXPECT_EQ(keysOf(doc), (std::vector<std::string>{"meta", "errors", "jobs"}));
  ASSERT_EQ(doc["jobs"].size(), referenceJobs().size());
  for (const auto& j : doc["jobs"]) {
    const bool holds = !j["nodes"].get<std::string>().empty();
    EXPECT_EQ(keysOf(j), keysOf(holds ? running : pending)) << j["job_id"];
  }
}

TEST(SqueueJson, ValuesDashboardsRead) {
  auto doc = ours();
  std::map<std::uint64_t, nlohmann::ordered_json> by_id;
  for (const auto& j : doc["jobs"]) by_id[j["job_id"].get<std::uint64_t>()] = j;

  // An array task split off to run (golden: job 36 is 29_0).
  const auto& task = by_id.at(36);
  EXPECT_EQ(task["array_job_id"], 29);
  EXPECT_EQ(task["array_task_id"], 0);
  EXPECT_EQ(task["job_state"], "RUNNING");
  EXPECT_EQ(task["nodes"], "node01");
  EXPECT_EQ(task["batch_host"], "node01");
  EXPECT_EQ(task["node_count"], 1);
  EXPECT_EQ(task["cluster"], "oracle");
  EXPECT_EQ(task["flags"], nlohmann::json::array({"JOB_WAS_RUNNING"}));
  EXPECT_EQ(task["job_resources"]["allocated_hosts"], 1);
  EXPECT_EQ(task["tres_alloc_str"], "billing=1,cpu=1,mem=4000M,node=1");
  EXPECT_EQ(task["billable_tres"], 1.0);
  // The pending remainder of the array.
  const auto& rest = by_id.at(29);
  EXPECT_EQ(rest["array_task_id"], nullptr);
  EXPECT_EQ(rest["array_task_string"], "2-9%2");
  EXPECT_EQ(rest["array_max_tasks"], 2);
  EXPECT_EQ(rest["state_reason"], "JobArrayTaskLimit");
  EXPECT_EQ(rest["billable_tres"], nullptr);
  EXPECT_EQ(rest["standard_input"], "/dev/null");
  // Held, dependent.
  EXPECT_EQ(by_id.at(32)["state_reason"], "JobHeldUser");
  EXPECT_EQ(by_id.at(30)["dependency"], "afterok:28(unfulfilled)");
  // A job's GPUs by index, per node, as Slurm's gres_detail.
  v1::JobInfo gpu = testing::JobBuilder(50, "g").running("node[01-02]", "node01").build();
  gpu.clear_allocation();
  for (const char* n : {"node01", "node02"}) {
    auto* a = gpu.add_allocation();
    a->set_node(n);
    a->set_cpus(2);
    a->set_memory_mb(1024);
    a->add_gpu_indices(0);
    a->add_gpu_indices(1);
  }
  gpu.set_exit_code(3);
  auto one = nlohmann::ordered_json::parse(json::dump(squeueJobJson(gpu, 0, "")));
  EXPECT_EQ(one["gres_detail"], nlohmann::json::array({"gpu:2(IDX:0-1)", "gpu:2(IDX:0-1)"}));
  EXPECT_EQ(one["job_resources"]["allocated_cores"], 4);
  EXPECT_EQ(one["exit_code"], 3 << 8);  // the wait status, as Slurm stores it
}

}  // namespace
}  // namespace drover::cli
