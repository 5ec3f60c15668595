// The controller's job glue: submission failure text, the scheduler's node views, per-node
// usage, and JobService on a real io_context with real SQLite files (group commit, replies only
// after the commit, recovery after a restart, a pass starting what fits).
#include "ctld/job_service.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "acct/sqlite_store.h"
#include "common/clock.h"

namespace drover::ctld {
namespace {

TEST(SubmitFailureMessage, NotesThenMessage) {
  struct Case {
    jobs::SubmitFailure failure;
    std::string want;
  };
  std::vector<Case> cases = {
      {{"Invalid partition name specified", {}, true, ""}, "Invalid partition name specified"},
      {{"Invalid partition name specified", {"invalid partition specified: x"}, true, ""},
       "invalid partition specified: x\nInvalid partition name specified"},
      {{"m", {"a", "b"}, true, ""}, "a\nb\nm"},
  };
  for (const auto& c : cases) EXPECT_EQ(submitFailureMessage(c.failure), c.want);
}

v1::JobInfo runningJob(std::uint64_t id, v1::JobState state,
                       std::vector<std::tuple<std::string, std::uint32_t, std::uint64_t,
                                              std::vector<std::uint32_t>>> allocs) {
  v1::JobInfo j;
  j.set_job_id(id);
  j.set_state(state);
  for (auto& [node, cpus, mem, gpus] : allocs) {
    auto* a = j.add_allocation();
    a->set_node(node);
    a->set_cpus(cpus);
    a->set_memory_mb(mem);
    for (auto g : gpus) a->add_gpu_indices(g);
  }
  return j;
}

TEST(UsageOf, SumsJobsHoldingResourcesPerNode) {
  auto used = usageOf({
      runningJob(1, v1::JOB_RUNNING, {{"node1", 4, 1000, {0, 1}}, {"node2", 2, 500, {}}}),
      runningJob(2, v1::JOB_RUNNING, {{"node1", 8, 2000, {5}}}),
      runningJob(3, v1::JOB_PENDING, {{"node3", 16, 1, {}}}),
      runningJob(4, v1::JOB_COMPLETED, {{"node1", 16, 1, {}}}),
  });
  ASSERT_EQ(used.size(), 2u);
  EXPECT_EQ(used["node1"].cpus, 12u);
  EXPECT_EQ(used["node1"].memory_mb, 3000u);
  EXPECT_EQ(used["node1"].gpus, 3u);
  EXPECT_EQ(used["node1"].gpu_indices, (std::vector<std::uint32_t>{0, 1, 5}));
  EXPECT_EQ(used["node2"].cpus, 2u);
}

std::string clusterYaml() {
  return "cluster_name: unit\n"
         "controller: {host: 127.0.0.1, port: 29817, state_dir: state}\n"
         "timeouts: {heartbeat_interval: 1, node_down: 5}\n"
         "nodes:\n"
         "  - names: node[1-2]\n"
         "    address: 127.0.0.1\n"
         "    port: 29830-29831\n"
         "    cpus: 16\n"
         "    real_memory: 64G\n"
         "    gpus: {type: h100, count: 8}\n"
         "partitions:\n"
         "  - {name: gpu, nodes: ALL, default: true, max_time: 1-00:00:00}\n";
}

v1::JobSpec batchSpec() {
  v1::JobSpec s;
  s.set_script("#!/bin/sh\ntrue\n");
  s.set_work_dir("/tmp");
  s.set_batch(true);
  s.set_export_mode("ALL");
  (*s.mutable_environment())["PATH"] = "/usr/bin:/bin";
  return s;
}

class JobServiceTest : public ::testing::Test {
 protected:
  JobServiceTest() {
    dir_ = std::filesystem::temp_directory_path() /
           ("drover-ctld-jobs-" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(dir_);
    conf_ = (dir_ / "cluster.conf").string();
    std::ofstream(conf_) << clusterYaml();
  }
  ~JobServiceTest() override { std::filesystem::remove_all(dir_); }

  void start() {
    jobs_.reset();
    state_.reset();
    auto cfg = config::loadClusterConfig(conf_);
    ASSERT_TRUE(cfg) << cfg.error();
    std::filesystem::create_directories(cfg->controller.state_dir);
    state_ = std::make_unique<CtldState>(std::move(cfg).value(), clock_, nullptr, "root");
    ASSERT_TRUE(state_->init());
    auto js = JobService::create(io_, *state_, clock_);
    ASSERT_TRUE(js) << js.error();
    jobs_ = std::move(js).value();
  }

  std::filesystem::path dir_;
  std::string conf_;
  FakeClock clock_;
  boost::asio::io_context io_;
  std::unique_ptr<CtldState> state_;
  std::unique_ptr<JobService> jobs_;
};

TEST_F(JobServiceTest, BurstIsOneCommitAndRepliesWaitForIt) {
  start();
  const auto before = jobs_->commits();
  std::vector<std::uint64_t> ids;
  rpc::Caller root;
  for (int i = 0; i < 5; ++i) {
    jobs_->submit(root, batchSpec(), [&ids](Result<v1::SubmitJobReply> r) {
      ASSERT_TRUE(r) << r.error();
      ids.push_back(r->job_id());
    });
  }
  EXPECT_TRUE(ids.empty()) << "replied before the commit";
  io_.poll();
  EXPECT_EQ(ids, (std::vector<std::uint64_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(jobs_->commits(), before + 1);
}

// The reply waits only for the job table (where an acknowledged job is durable); the same
// flush writes the accounting record after it, so sacct, served after the flush, finds it.
TEST_F(JobServiceTest, RepliesGoBeforeTheAccountingWriteOfTheSameFlush) {
  start();
  const std::string accounting = (dir_ / "state" / "accounting.db").string();
  auto recorded = [&]() -> std::size_t {
    auto store = acct::SqliteAccountingStore::open(accounting);
    if (!store) return 0;
    auto jobs = (*store)->query(acct::AcctFilter{});
    return jobs ? jobs->size() : 0;
  };
  std::size_t at_reply = 99;
  bool replied = false;
  jobs_->submit(rpc::Caller{}, batchSpec(), [&](Result<v1::SubmitJobReply> r) {
    ASSERT_TRUE(r) << r.error();
    replied = true;
    at_reply = recorded();
  });
  io_.poll();
  ASSERT_TRUE(replied);
  EXPECT_EQ(at_reply, 0u) << "the reply waited for the accounting write";
  EXPECT_EQ(recorded(), 1u);
}

TEST_F(JobServiceTest, RefusalAnswersAtOnceWithNotes) {
  start();
  auto spec = batchSpec();
  spec.set_partition("nosuch");
  std::string error;
  jobs_->submit(rpc::Caller{}, spec, [&](Result<v1::SubmitJobReply> r) {
    ASSERT_FALSE(r);
    error = r.error();
  });
  EXPECT_EQ(error, "invalid partition specified: nosuch\nInvalid partition name specified");
}

TEST_F(JobServiceTest, AcknowledgedJobsComeBackAfterRestart) {
  start();
  int acked = 0;
  for (int i = 0; i < 3; ++i) {
    jobs_->submit(rpc::Caller{}, batchSpec(), [&](Result<v1::SubmitJobReply> r) {
      ASSERT_TRUE(r) << r.error();
      ++acked;
    });
  }
  io_.poll();
  ASSERT_EQ(acked, 3);
  start();
  EXPECT_EQ(jobs_->query(v1::GetJobsRequest{}).size(), 3u);
}

// scontrol notify: the checks in the reference's words, and the message handed to the job's
// own user with its next AwaitAllocation (once), a waiting salloc answered at once.
TEST_F(JobServiceTest, NotifyQueuesForTheAllocationsOwnUser) {
  start();
  const rpc::Caller owner{65534, 65534};   // nobody: a user every Debian system has
  const rpc::Caller other{65533, 65533};
  auto submit = [&](v1::JobSpec spec, rpc::Caller who) {
    std::uint64_t id = 0;
    jobs_->submit(who, spec, [&](Result<v1::SubmitJobReply> r) {
      ASSERT_TRUE(r) << r.error();
      id = r->job_id();
    });
    io_.poll();
    return id;
  };
  auto notify = [&](std::uint64_t id, rpc::Caller who) {
    v1::NotifyJobRequest req;
    req.set_job_id(id);
    req.set_message("hello there");
    Status s = jobs_->notify(who, req);
    return s ? std::string("ok") : s.error();
  };
  const std::uint64_t batch = submit(batchSpec(), owner);
  auto interactive_spec = batchSpec();
  interactive_spec.set_batch(false);
  interactive_spec.clear_script();
  const std::uint64_t interactive = submit(interactive_spec, owner);
  ASSERT_NE(interactive, 0u);

  EXPECT_EQ(notify(999, owner), "Invalid job id specified");
  EXPECT_EQ(notify(batch, owner), "Requested operation is presently disabled");
  EXPECT_EQ(notify(interactive, other), "Invalid user id");

  // No node registered: the allocation waits, and its salloc waits with it.
  std::vector<std::string> heard;
  bool answered = false;
  v1::AwaitAllocationRequest wait;
  wait.set_job_id(interactive);
  wait.set_timeout_ms(60000);
  jobs_->awaitAllocation(owner, wait, [&](Result<v1::AwaitAllocationReply> r) {
    ASSERT_TRUE(r) << r.error();
    answered = true;
    heard.assign(r->messages().begin(), r->messages().end());
  });
  io_.poll();
  EXPECT_FALSE(answered);
  EXPECT_EQ(notify(interactive, owner), "ok");
  io_.poll();
  ASSERT_TRUE(answered) << "the waiting salloc was not told at once";
  EXPECT_EQ(heard, std::vector<std::string>{"hello there"});

  // Another user watching the job takes nothing; the owner takes it once.
  EXPECT_EQ(notify(interactive, rpc::Caller{}), "ok");   // root may
  auto take = [&](rpc::Caller who) {
    std::vector<std::string> got;
    v1::AwaitAllocationRequest now;
    now.set_job_id(interactive);
    jobs_->awaitAllocation(who, now, [&](Result<v1::AwaitAllocationReply> r) {
      ASSERT_TRUE(r) << r.error();
      got.assign(r->messages().begin(), r->messages().end());
    });
    io_.poll();
    return got;
  };
  EXPECT_TRUE(take(other).empty());
  EXPECT_EQ(take(owner), std::vector<std::string>{"hello there"});
  EXPECT_TRUE(take(owner).empty());
}

}  // namespace
}  // namespace drover::ctld
