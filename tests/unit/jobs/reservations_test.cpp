// Advance reservations in the job manager: validation with Slurm's messages, node picking,
// list/expiry, the submission check, the scheduler keeping other work out, pending reasons.
#include <gtest/gtest.h>

#include <functional>

#include "jobs/reservations.h"
#include "jobs_fixture.h"

namespace drover::jobs::testing {
namespace {

constexpr std::int64_t kHour = 3600;

// Builder for what scontrol sends.
class ResvBuilder {
 public:
  explicit ResvBuilder(std::int64_t now) {
    s_.set_start_time(now);
    s_.set_duration_s(kHour);
    s_.set_users("alice");
    s_.set_nodes("node01");
  }
  ResvBuilder& name(const std::string& v) { s_.set_name(v); return *this; }
  ResvBuilder& start(std::int64_t v) { s_.set_start_time(v); return *this; }
  ResvBuilder& end(std::int64_t v) { s_.clear_duration_s(); s_.set_end_time(v); return *this; }
  ResvBuilder& duration(std::int64_t v) { s_.set_duration_s(v); return *this; }
  ResvBuilder& nodes(const std::string& v) { s_.set_nodes(v); return *this; }
  ResvBuilder& nodeCount(std::uint32_t n) { s_.clear_nodes(); s_.set_node_count(n); return *this; }
  ResvBuilder& users(const std::string& v) { s_.set_users(v); return *this; }
  ResvBuilder& noUsers() { s_.clear_users(); return *this; }
  ResvBuilder& accounts(const std::string& v) { s_.set_accounts(v); return *this; }
  ResvBuilder& partition(const std::string& v) { s_.set_partition(v); return *this; }
  ResvBuilder& flags(const std::string& v) { s_.set_flags(v); return *this; }
  const v1::ReservationSpec& spec() const { return s_; }

 private:
  v1::ReservationSpec s_;
};

class ReservationBookTest : public ::testing::Test {
 protected:
  ReservationContext ctx() const {
    ReservationContext c;
    c.now = now_;
    c.busy = busy_;
    c.user_exists = [](const std::string& u) { return u != "nosuchuser"; };
    return c;
  }
  std::int64_t now_ = 1'767'225'600;
  std::vector<BusyNode> busy_;
  config::ClusterConfig config_ = smallCluster();
  ReservationBook book_{config_};
};

struct CreateCase {
  std::string name;
  std::function<void(ResvBuilder&)> edit;
  std::string error;  // expected message prefix; "" = created
};

TEST_F(ReservationBookTest, CreateValidatesAsSlurm) {
  const std::int64_t now = now_;
  const std::vector<CreateCase> cases = {
      {"plain", [](ResvBuilder&) {}, ""},
      {"unknown node", [](ResvBuilder& b) { b.nodes("node09"); }, kResvBadNode},
      {"bad hostlist", [](ResvBuilder& b) { b.nodes("node[01"); }, kResvBadNode},
      {"end before start", [now](ResvBuilder& b) { b.start(now + kHour).end(now + 60); }, kResvBadTime},
      {"already over", [now](ResvBuilder& b) { b.start(now - 2 * kHour).end(now - kHour); }, kResvBadTime},
      {"no start", [](ResvBuilder& b) { const_cast<v1::ReservationSpec&>(b.spec()).clear_start_time(); },
       kResvBadTime},
      {"no users or accounts", [](ResvBuilder& b) { b.noUsers(); }, kResvEmpty},
      {"unknown user", [](ResvBuilder& b) { b.users("nosuchuser"); }, kResvBadUser},
      {"unknown account", [](ResvBuilder& b) { b.noUsers().accounts("nosuch"); }, kResvBadAccount},
      {"account only", [](ResvBuilder& b) { b.noUsers().accounts("research"); }, ""},
      {"unknown partition", [](ResvBuilder& b) { b.partition("nosuch"); }, kResvBadPartition},
      {"unknown flag", [](ResvBuilder& b) { b.flags("MAINT,SOMETIMES"); }, kResvBadFlags},
      {"flags", [](ResvBuilder& b) { b.flags("ignore_jobs,maint"); }, ""},
      {"node count too big", [](ResvBuilder& b) { b.nodeCount(5); }, kResvNodesBusy},
      {"node count in partition", [](ResvBuilder& b) { b.nodeCount(2).partition("debug"); },
       kResvNodesBusy},
      {"sign on create", [](ResvBuilder& b) { b.users("+alice"); }, "Users=+alice"},
  };
  for (const auto& c : cases) {
    ReservationBook book(config_);
    ResvBuilder b(now_);
    c.edit(b);
    auto r = book.create(b.spec(), ctx());
    if (c.error.empty()) {
      EXPECT_TRUE(r.ok()) << c.name << ": " << (r.ok() ? "" : r.error());
    } else {
      ASSERT_FALSE(r.ok()) << c.name;
      EXPECT_EQ(r.error().rfind(c.error, 0), 0u) << c.name << ": " << r.error();
    }
  }
}

TEST_F(ReservationBookTest, FieldsOfACreatedReservation) {
  auto r = book_.create(ResvBuilder(now_).name("big").nodes("node[02-03]").flags("IGNORE_JOBS,MAINT")
                            .users("alice,bob").spec(),
                        ctx());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->name(), "big");
  EXPECT_EQ(r->start_time(), now_);
  EXPECT_EQ(r->end_time(), now_ + kHour);
  EXPECT_EQ(std::vector<std::string>(r->nodes().begin(), r->nodes().end()),
            (std::vector<std::string>{"node02", "node03"}));
  EXPECT_EQ(r->core_count(), 8u);
  EXPECT_TRUE(r->node_list_given());
  EXPECT_EQ(std::vector<std::string>(r->flags().begin(), r->flags().end()),
            (std::vector<std::string>{"MAINT", "IGNORE_JOBS"}));
  EXPECT_EQ(r->users_size(), 2);
}

TEST_F(ReservationBookTest, GeneratedNamesAndDuplicates) {
  auto a = book_.create(ResvBuilder(now_).spec(), ctx());
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->name(), "alice_1");
  auto b = book_.create(ResvBuilder(now_ + 2 * kHour).spec(), ctx());
  ASSERT_TRUE(b.ok()) << b.error();
  EXPECT_EQ(b->name(), "alice_2");
  auto dup = book_.create(ResvBuilder(now_ + 5 * kHour).name("alice_1").spec(), ctx());
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().rfind(kResvDuplicate, 0), 0u);
}

TEST_F(ReservationBookTest, OverlapOnSameNodesIsRefusedUnlessFlagged) {
  ASSERT_TRUE(book_.create(ResvBuilder(now_).name("a").nodes("node[01-02]").spec(), ctx()).ok());
  auto clash = book_.create(ResvBuilder(now_ + 1800).name("b").nodes("node02").spec(), ctx());
  ASSERT_FALSE(clash.ok());
  EXPECT_EQ(clash.error().rfind(kResvOverlap, 0), 0u) << clash.error();
  // Other nodes, or the same nodes after the end, or OVERLAP: fine.
  EXPECT_TRUE(book_.create(ResvBuilder(now_).name("c").nodes("node03").spec(), ctx()).ok());
  EXPECT_TRUE(book_.create(ResvBuilder(now_ + kHour).name("d").nodes("node02").spec(), ctx()).ok());
  EXPECT_TRUE(
      book_.create(ResvBuilder(now_).name("e").nodes("node01").flags("OVERLAP").spec(), ctx()).ok());
}

TEST_F(ReservationBookTest, BusyNodesNeedIgnoreJobs) {
  busy_ = {{"node01", now_ + 600}};
  auto busy = book_.create(ResvBuilder(now_).name("a").spec(), ctx());
  ASSERT_FALSE(busy.ok());
  EXPECT_EQ(busy.error().rfind(kResvNodesBusy, 0), 0u);
  // Starting after the job's end is fine; so is IGNORE_JOBS.
  EXPECT_TRUE(book_.create(ResvBuilder(now_ + 600).name("b").spec(), ctx()).ok());
  EXPECT_TRUE(
      book_.create(ResvBuilder(now_ + 2 * kHour).name("c").flags("IGNORE_JOBS").spec(), ctx()).ok());
}

TEST_F(ReservationBookTest, NodeCountPicksFreeNodesInOrder) {
  busy_ = {{"node01", now_ + 600}};
  ASSERT_TRUE(book_.create(ResvBuilder(now_).name("a").nodes("node02").flags("IGNORE_JOBS").spec(),
                           ctx()).ok());
  auto r = book_.create(ResvBuilder(now_).name("b").nodeCount(2).spec(), ctx());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(std::vector<std::string>(r->nodes().begin(), r->nodes().end()),
            (std::vector<std::string>{"node03", "node04"}));
  EXPECT_FALSE(r->node_list_given());
}

TEST_F(ReservationBookTest, NodesAllMeansThePartition) {
  auto r = book_.create(ResvBuilder(now_).nodes("ALL").partition("debug").spec(), ctx());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->nodes_size(), 1);
  EXPECT_EQ(r->nodes(0), "node01");
  auto all = book_.create(ResvBuilder(now_ + 2 * kHour).nodes("all").spec(), ctx());
  ASSERT_TRUE(all.ok()) << all.error();
  EXPECT_EQ(all->nodes_size(), 4);
}

TEST_F(ReservationBookTest, UpdateChangesOnlyWhatIsGiven) {
  ASSERT_TRUE(book_.create(ResvBuilder(now_).name("r").users("alice").spec(), ctx()).ok());
  v1::ReservationSpec u;
  u.set_name("r");
  u.set_users("+bob");
  auto r = book_.update(u, ctx());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->users_size(), 2);
  u.set_users("-alice");
  r = book_.update(u, ctx());
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->users_size(), 1);
  EXPECT_EQ(r->users(0), "bob");
  // Moving the start keeps the length; Duration= sets it.
  v1::ReservationSpec t;
  t.set_name("r");
  t.set_start_time(now_ + 600);
  r = book_.update(t, ctx());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->end_time(), now_ + 600 + kHour);
  t.clear_start_time();
  t.set_duration_s(2 * kHour);
  r = book_.update(t, ctx());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->end_time(), now_ + 600 + 2 * kHour);
  // Removing the last user and account is refused, and nothing changes.
  v1::ReservationSpec empty;
  empty.set_name("r");
  empty.set_users("-bob");
  auto bad = book_.update(empty, ctx());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), kResvEmpty);
  EXPECT_EQ(book_.find("r")->users_size(), 1);
  v1::ReservationSpec unknown;
  unknown.set_name("nosuch");
  auto missing = book_.update(unknown, ctx());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().rfind(kResvInvalid, 0), 0u);
}

TEST_F(ReservationBookTest, ListOrderStateAndExpiry) {
  ASSERT_TRUE(book_.create(ResvBuilder(now_ + kHour).name("later").spec(), ctx()).ok());
  ASSERT_TRUE(book_.create(ResvBuilder(now_).name("now").duration(600).spec(), ctx()).ok());
  auto all = book_.list({}, now_);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].name(), "now");
  EXPECT_TRUE((*all)[0].active());
  EXPECT_FALSE((*all)[1].active());
  auto missing = book_.list({"nosuch"}, now_);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error(), "Reservation nosuch not found");
  EXPECT_EQ(book_.expire(now_ + 600, 0).dropped, std::vector<std::string>{"now"});
  EXPECT_EQ(book_.size(), 1u);
  EXPECT_EQ(book_.forSnapshot(now_).size(), 1u);
  EXPECT_TRUE(book_.remove("later").ok());
  EXPECT_FALSE(book_.remove("later").ok());
}

TEST_F(ReservationBookTest, AccessByUserOrAccount) {
  ASSERT_TRUE(book_.create(ResvBuilder(now_).name("u").users("alice").spec(), ctx()).ok());
  ASSERT_TRUE(book_.create(ResvBuilder(now_).name("a").nodes("node02").noUsers().accounts("ops")
                               .spec(),
                           ctx()).ok());
  EXPECT_EQ(book_.checkAccess("u", "alice", "research", now_), std::nullopt);
  EXPECT_EQ(book_.checkAccess("u", "bob", "research", now_), std::string(kResvAccess));
  EXPECT_EQ(book_.checkAccess("a", "carol", "ops", now_), std::nullopt);
  EXPECT_EQ(book_.checkAccess("a", "bob", "research", now_), std::string(kResvAccess));
  EXPECT_EQ(book_.checkAccess("nosuch", "alice", "research", now_), std::string(kResvInvalid));
  EXPECT_EQ(book_.checkAccess("u", "alice", "research", now_ + kHour), std::string(kResvInvalid));
}

TEST(ReservationFlags, ParsedInSlurmOrder) {
  auto f = parseReservationFlags("ignore_jobs,MAINT,Overlap");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(*f, (std::vector<std::string>{"MAINT", "OVERLAP", "IGNORE_JOBS"}));
  auto bad = parseReservationFlags("DAILYISH");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("DAILYISH"), std::string::npos);
  EXPECT_NE(bad.error().find("IGNORE_JOBS"), std::string::npos);
}

// The job manager end to end (real store, real scheduler): a reservation on node01 for alice.
class ReservationJobsTest : public JobsTest {
 protected:
  void reserve(const ResvBuilder& b) {
    ReservationContext c;
    c.now = clock_.now();
    auto r = manager_->reservations().create(b.spec(), c);
    ASSERT_TRUE(r.ok()) << r.error();
  }
  static v1::JobSpec on(const std::string& nodes, const std::string& resv = "") {
    v1::JobSpec s = SpecBuilder().time(30).ntasks(4).spec();
    s.set_nodelist(nodes);
    s.set_reservation(resv);
    return s;
  }
};

TEST_F(ReservationJobsTest, SubmissionNeedsAReservationTheUserMayUse) {
  reserve(ResvBuilder(clock_.now()).name("lab"));
  SubmitResult unknown = manager_->submit(alice(), on("node01", "nosuch"));
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.failure.message, kResvInvalid);
  SubmitResult other = manager_->submit(bob(), on("node01", "lab"));
  ASSERT_FALSE(other);
  EXPECT_EQ(other.failure.message, kResvAccess);
  EXPECT_TRUE(manager_->submit(alice(), on("node01", "lab")));
}

TEST_F(ReservationJobsTest, OtherWorkIsKeptOutAndTheOwnerRunsInside) {
  reserve(ResvBuilder(clock_.now()).name("lab"));
  const JobId bobs = submit(on("node01"), bob());
  const JobId alices = submit(on("node01", "lab"));
  const JobId elsewhere = submit(on("node02"), bob());
  pass();
  EXPECT_EQ(job(bobs).state(), v1::JOB_PENDING);
  EXPECT_EQ(job(bobs).reason(), "Resources");
  EXPECT_EQ(job(alices).state(), v1::JOB_RUNNING);
  EXPECT_EQ(job(alices).nodes(), "node01");
  EXPECT_EQ(job(elsewhere).state(), v1::JOB_RUNNING);
  // Deleted: bob's job may start once alice's job is done.
  ASSERT_TRUE(manager_->reservations().remove("lab").ok());
  finishBatch(alices, 0);
  pass();
  EXPECT_EQ(job(bobs).state(), v1::JOB_RUNNING);
}

TEST_F(ReservationJobsTest, AJobThatWouldOverlapAFutureReservationWaits) {
  // Starts in 20 minutes; a 30-minute job on node01 would run into it, a 10-minute one not.
  reserve(ResvBuilder(clock_.now() + 20 * 60).name("later"));
  const JobId longer = submit(on("node01"), bob());
  v1::JobSpec shortSpec = on("node01");
  shortSpec.set_time_limit_min(10);
  pass();
  EXPECT_EQ(job(longer).state(), v1::JOB_PENDING);
  const JobId shorter = submit(shortSpec, bob());
  pass();
  EXPECT_EQ(job(shorter).state(), v1::JOB_RUNNING);
}

TEST_F(ReservationJobsTest, ReasonsForReservationJobsAndMaintenance) {
  reserve(ResvBuilder(clock_.now() + kHour).name("future"));
  const JobId waiting = submit(on("node01", "future"));
  reserve(ResvBuilder(clock_.now()).name("maint").nodes("node02").users("root").flags("MAINT"));
  const JobId blocked = submit(on("node02"), bob());
  pass();
  EXPECT_EQ(job(waiting).state(), v1::JOB_PENDING);
  EXPECT_EQ(job(waiting).reason(), "Reservation");
  EXPECT_EQ(job(blocked).state(), v1::JOB_PENDING);
  // Slurm's code ReqNodeNotAvail (sacct's Reason, squeue --json's state_reason), its words as
  // the description (squeue's REASON column), as the reference showed both.
  EXPECT_EQ(job(blocked).reason(), "ReqNodeNotAvail");
  EXPECT_EQ(job(blocked).reason_description(), kReservedForMaintenance);
  // The reservation's own time comes: its job starts.
  clock_.advanceSeconds(kHour);
  pass();
  EXPECT_EQ(job(waiting).state(), v1::JOB_RUNNING);
}

}  // namespace
}  // namespace drover::jobs::testing
