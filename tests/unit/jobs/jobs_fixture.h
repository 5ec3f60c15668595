#pragma once
// A job manager on a real SQLite file in a temp dir, a fake clock and a small cluster:
// partition "gpu" (default, node[01-04], 4 CPUs, 16000 MB, 2 h100 GPUs each, 60 min max) and
// "debug" (node01, 30 min max); accounts research (alice, bob) and ops (carol).
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <unistd.h>

#include "common/clock.h"
#include "drover/config.h"
#include "jobs/job_manager.h"
#include "jobs/job_store.h"
#include "sched/scheduler.h"

namespace drover::jobs::testing {

inline config::ClusterConfig smallCluster() {
  config::ClusterConfig c;
  c.cluster_name = "testcluster";
  c.source_path = "/etc/drover/cluster.conf";
  c.operators = {"opsadmin"};
  for (int i = 1; i <= 4; ++i) {
    config::NodeConfig n;
    n.name = "node0" + std::to_string(i);
    n.cpus = 4;
    n.real_memory_mb = 16000;
    n.gpus.type = "h100";
    n.gpus.count = 2;
    n.features = {"fast"};
    c.nodes.push_back(n);
  }
  config::PartitionConfig gpu;
  gpu.name = "gpu";
  gpu.nodes = {"node01", "node02", "node03", "node04"};
  gpu.is_default = true;
  gpu.max_time_min = 60;
  c.partitions.push_back(gpu);
  config::PartitionConfig debug;
  debug.name = "debug";
  debug.nodes = {"node01"};
  debug.max_time_min = 30;
  c.partitions.push_back(debug);
  c.accounts.push_back({"root", "", 1, {}});
  c.accounts.push_back({"research", "root", 1, {"alice", "bob"}});
  c.accounts.push_back({"ops", "root", 1, {"carol"}});
  c.scheduler.default_mem_per_cpu_mb = 4000;
  c.timeouts.kill_wait_s = 30;
  // Requeued jobs may start again at once here; RequeuedJobWaitsTheRequeueWait tests the wait.
  c.jobs.requeue_wait_s = 0;
  return c;
}

inline Caller alice() { return {1001, 1001, "alice", "alice"}; }
inline Caller bob() { return {1002, 1002, "bob", "bob"}; }
inline Caller root() { return {0, 0, "root", "root"}; }

// scontrol ACTION ID (hold, release, requeue, ...).
inline v1::JobControlRequest act(const std::string& action, const std::string& id) {
  v1::JobControlRequest r;
  r.set_action(action);
  r.add_job_ids(id);
  return r;
}

// Builder for the specs sbatch would send.
class SpecBuilder {
 public:
  SpecBuilder() {
    s_.set_script("#!/bin/sh\ntrue\n");
    s_.set_work_dir("/home/alice");
    s_.set_batch(true);
    s_.set_export_mode("ALL");
    (*s_.mutable_environment())["PATH"] = "/usr/bin:/bin";
    (*s_.mutable_environment())["HOME"] = "/home/alice";
  }
  SpecBuilder& name(const std::string& v) { s_.set_name(v); return *this; }
  SpecBuilder& partition(const std::string& v) { s_.set_partition(v); return *this; }
  SpecBuilder& account(const std::string& v) { s_.set_account(v); return *this; }
  SpecBuilder& qos(const std::string& v) { s_.set_qos(v); return *this; }
  SpecBuilder& time(std::int64_t minutes) { s_.set_time_limit_min(minutes); return *this; }
  SpecBuilder& nodes(std::uint32_t n) { s_.set_min_nodes(n); return *this; }
  SpecBuilder& constraint(const std::string& v) { s_.set_constraint(v); return *this; }
  SpecBuilder& prefer(const std::string& v) { s_.set_prefer(v); return *this; }
  SpecBuilder& ntasks(std::uint32_t n) { s_.set_ntasks(n); return *this; }
  SpecBuilder& ntasksPerNode(std::uint32_t n) { s_.set_ntasks_per_node(n); return *this; }
  SpecBuilder& cpusPerTask(std::uint32_t n) { s_.set_cpus_per_task(n); return *this; }
  SpecBuilder& mem(std::uint64_t mb) { s_.set_mem_per_node_mb(mb); s_.set_mem_set(true); return *this; }
  SpecBuilder& gres(const std::string& name, std::uint32_t count) {
    auto* g = s_.add_gres();
    g->set_name(name);
    g->set_count(count);
    return *this;
  }
  SpecBuilder& array(const std::string& v) { s_.set_array(v); return *this; }
  SpecBuilder& dependency(const std::string& v) { s_.set_dependency(v); return *this; }
  SpecBuilder& hold() { s_.set_hold(true); return *this; }
  SpecBuilder& nodelist(const std::string& v) { s_.set_nodelist(v); return *this; }
  SpecBuilder& noRequeue() { s_.set_requeue(false); s_.set_requeue_set(true); return *this; }
  SpecBuilder& requeue() { s_.set_requeue(true); s_.set_requeue_set(true); return *this; }
  SpecBuilder& output(const std::string& v) { s_.set_std_out(v); return *this; }
  SpecBuilder& testOnly() { s_.set_test_only(true); return *this; }
  SpecBuilder& begin(std::int64_t t) { s_.set_begin_time(t); return *this; }
  SpecBuilder& nice(int n) { s_.set_nice(n); return *this; }
  SpecBuilder& signal(int sig, int secs) {
    s_.set_signal_number(sig);
    s_.set_signal_seconds(secs);
    return *this;
  }
  const v1::JobSpec& spec() const { return s_; }
  operator const v1::JobSpec&() const { return s_; }

 private:
  v1::JobSpec s_;
};

class JobsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("drover-jobs-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    reopen();
  }
  void TearDown() override {
    manager_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::string dbPath() const { return (dir_ / "jobs.db").string(); }

  // A fresh store and manager on the same file: what a restarted controller sees.
  void reopen() {
    manager_.reset();
    store_.reset();
    auto s = JobStore::open(dbPath());
    ASSERT_TRUE(s.ok()) << s.error();
    store_ = std::move(*s);
    manager_ = std::make_unique<JobManager>(clock_, config_, *store_);
    auto st = manager_->recover();
    ASSERT_TRUE(st.ok()) << st.error();
  }

  JobId submit(const v1::JobSpec& spec, const Caller& who = alice()) {
    SubmitResult r = manager_->submit(who, spec);
    EXPECT_TRUE(r) << r.failure.message << ": " << r.failure.detail;
    EXPECT_TRUE(manager_->commit().ok());
    return r ? r.ok->job_id : 0;
  }

  // scontrol update JobId=ID KEY=VALUE, as `who`.
  Result<v1::UpdateJobReply> updateField(JobId id, const std::string& key, const std::string& value,
                                         const Caller& who = alice()) {
    v1::UpdateJobRequest r;
    r.set_job_id(std::to_string(id));
    (*r.mutable_fields())[key] = value;
    return manager_->update(who, r);
  }

  // One scheduling pass through the real scheduler, on every configured node.
  std::vector<Launch> pass() {
    std::vector<NodeView> nodes = nodeViews();
    sched::Snapshot snap = manager_->buildSnapshot(nodes);
    sched::Plan plan = sched::schedule(snap, manager_->schedulerParams(), clock_.now());
    auto launches = manager_->applyPlan(plan);
    EXPECT_TRUE(manager_->commit().ok());
    return launches;
  }

  // Every configured node, up unless named in down_.
  std::vector<NodeView> nodeViews() const {
    std::vector<NodeView> nodes;
    for (const auto& n : config_.nodes) {
      NodeView v;
      v.name = n.name;
      v.cpus = n.cpus;
      v.memory_mb = n.real_memory_mb;
      v.gpu_types.assign(n.gpus.count, n.gpus.type);
      v.features = n.features;
      v.usable = down_.count(n.name) == 0;
      for (const auto& p : config_.partitions)
        if (std::find(p.nodes.begin(), p.nodes.end(), n.name) != p.nodes.end())
          v.partitions.push_back(p.name);
      nodes.push_back(v);
    }
    return nodes;
  }

  void finishBatch(JobId id, int code, int sig = 0, bool timed_out = false, bool oom = false) {
    v1::StepEventRequest e;
    e.mutable_step()->set_job_id(id);
    e.mutable_step()->set_step_id(acct::kBatchStep);
    e.set_kind(v1::StepEventRequest::FINISHED);
    e.set_node(job(id).batch_host());
    e.set_exit_code(code);
    e.set_exit_signal(sig);
    e.set_timed_out(timed_out);
    e.set_out_of_memory(oom);
    e.set_user_cpu_ms(1500);
    e.set_max_rss_kb(2048);
    manager_->stepEvent(e);
    EXPECT_TRUE(manager_->commit().ok());
  }

  const v1::JobInfo& job(JobId id) {
    const Job* j = manager_->find(id);
    EXPECT_NE(j, nullptr) << "job " << id;
    static v1::JobInfo empty;
    return j ? j->info : empty;
  }

  // Task `index` of array `array` as squeue -r / scontrol show job A_i see it (job_id: the
  // array's id while it waits, its own once started).
  v1::JobInfo task(JobId array, std::int64_t index) {
    v1::GetJobsRequest q;
    q.add_job_ids(std::to_string(array) + "_" + std::to_string(index));
    q.set_array_tasks_expanded(true);
    q.set_include_finished(true);
    auto rows = manager_->query(q);
    EXPECT_EQ(rows.size(), 1u) << "task " << array << "_" << index;
    return rows.empty() ? v1::JobInfo() : rows.front();
  }

  std::filesystem::path dir_;
  FakeClock clock_;
  config::ClusterConfig config_ = smallCluster();
  std::set<std::string> down_;  // nodes the next pass() sees down, drained or not responding
  std::unique_ptr<JobStore> store_;
  std::unique_ptr<JobManager> manager_;
};

}  // namespace drover::jobs::testing
