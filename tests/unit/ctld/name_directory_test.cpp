// The controller's names (ctld/name_directory.h), what each request carries
// (ctld/request_names.h) and the stage that looks them up off the state thread
// (ctld/name_stage.h).
#include "ctld/name_directory.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <future>
#include <mutex>
#include <set>
#include <thread>

#include "ctld/name_stage.h"
#include "ctld/request_names.h"

namespace drover::ctld {
namespace {

// A directory of two users and one group, counting what it is asked and from which thread.
struct FakeSource {
  std::map<std::uint32_t, UserEntry> users{{1001, {1001, 1001, "alice"}}, {1002, {1002, 100, "bob"}}};
  std::map<std::uint32_t, GroupEntry> groups{{100, {100, "users"}}};
  std::atomic<int> calls{0};        // every lookup
  std::atomic<int> user_calls{0};   // of users only
  std::mutex mutex;
  std::set<std::thread::id> threads;
  // Set by a test: every lookup of this user name waits until it is released.
  std::string slow_name;
  std::shared_future<void> released;

  void count() {
    ++calls;
    std::lock_guard lock(mutex);
    threads.insert(std::this_thread::get_id());
  }

  NameSource source() {
    NameSource s;
    s.user_by_uid = [this](std::uint32_t uid) -> std::optional<UserEntry> {
      count();
      ++user_calls;
      auto it = users.find(uid);
      if (it == users.end()) return std::nullopt;
      return it->second;
    };
    s.user_by_name = [this](const std::string& name) -> std::optional<UserEntry> {
      count();
      ++user_calls;
      if (name == slow_name) released.wait();
      for (const auto& [uid, entry] : users)
        if (entry.name == name) return entry;
      return std::nullopt;
    };
    s.group_by_gid = [this](std::uint32_t gid) -> std::optional<GroupEntry> {
      count();
      auto it = groups.find(gid);
      if (it == groups.end()) return std::nullopt;
      return it->second;
    };
    s.group_by_name = [this](const std::string& name) -> std::optional<GroupEntry> {
      count();
      for (const auto& [gid, entry] : groups)
        if (entry.name == name) return entry;
      return std::nullopt;
    };
    return s;
  }
};

class NameDirectoryTest : public ::testing::Test {
 protected:
  NameDirectory directory() {
    return NameDirectory(fake_.source(), 60'000, 5'000, [this] { return now_ms_; });
  }

  FakeSource fake_;
  std::int64_t now_ms_ = 1'000'000;
};

TEST_F(NameDirectoryTest, ReadersAnswerFromMemoryOnly) {
  NameDirectory names = directory();
  EXPECT_FALSE(names.user(1001));
  EXPECT_EQ(names.userName(1001), "1001");
  EXPECT_FALSE(names.uidOf("alice"));
  EXPECT_EQ(fake_.calls, 0);  // no read asked the source

  NameQuery query;
  query.uids = {1001};
  query.user_names = {"bob"};
  query.gids = {100};
  EXPECT_FALSE(names.answered(query));
  names.resolve(query);
  EXPECT_EQ(fake_.calls, 4);  // alice, bob, group 100, and alice's group 1001 (none)
  EXPECT_TRUE(names.answered(query));
  EXPECT_EQ(names.userName(1001), "alice");
  EXPECT_EQ(names.uidOf("alice"), 1001u);  // a uid's answer is its name's too
  EXPECT_EQ(names.uidOf("bob"), 1002u);
  EXPECT_EQ(names.user(1002)->gid, 100u);
  EXPECT_EQ(names.groupName(100), "users");
  EXPECT_EQ(names.gidOf("users"), 100u);
  EXPECT_EQ(names.gidOf("100"), 100u);
  EXPECT_EQ(names.uidOf("1001"), 1001u);
  EXPECT_FALSE(names.uidOf("9999999999"));  // more than a uid can be
}

// sbatch --uid=bob: the job is in bob's primary group, which the request does not name.
TEST_F(NameDirectoryTest, AUsersAnswerBringsItsPrimaryGroup) {
  NameDirectory names = directory();
  NameQuery query;
  query.user_names = {"bob"};
  names.resolve(query);
  EXPECT_EQ(names.user(1002)->gid, 100u);
  EXPECT_EQ(names.groupName(100), "users");
}

TEST_F(NameDirectoryTest, AnswersAreTrustedForTheirTimeAndThenAskedAgain) {
  NameDirectory names = directory();
  NameQuery query;
  query.uids = {1001};
  query.user_names = {"nosuchuser"};
  names.resolve(query);
  EXPECT_EQ(fake_.user_calls, 2);
  const int calls = fake_.calls;
  names.resolve(query);  // both fresh: nothing asked
  EXPECT_EQ(fake_.calls, calls);

  // The absence of a name is kept for 5 s: a user added meanwhile can use the cluster then.
  now_ms_ += 5'000;
  EXPECT_FALSE(names.answered(query));
  fake_.users[1003] = {1003, 1003, "nosuchuser"};
  names.resolve(query);
  EXPECT_EQ(fake_.user_calls, 3);  // only the unknown name was stale
  EXPECT_EQ(names.uidOf("nosuchuser"), 1003u);

  // A user removed from the directory reads as unknown once the answer is a minute old.
  now_ms_ += 55'000;
  EXPECT_FALSE(names.answered(query));
  fake_.users.erase(1001);
  names.resolve(query);
  EXPECT_EQ(names.userName(1001), "1001");
  EXPECT_TRUE(names.answered(query));
}

TEST_F(NameDirectoryTest, ManyUnknownNamesDoNotAccumulate) {
  NameDirectory names = directory();
  for (int i = 0; i < 20'000; ++i) {
    NameQuery query;
    query.user_names = {"ghost" + std::to_string(i)};
    names.resolve(query);
  }
  // The oldest were dropped: asking about one again goes to the source again.
  NameQuery first;
  first.user_names = {"ghost0"};
  EXPECT_FALSE(names.answered(first));
  NameQuery last;
  last.user_names = {"ghost19999"};
  EXPECT_TRUE(names.answered(last));
  EXPECT_FALSE(names.uidOf("ghost19999"));
}

TEST(NameSourceSystem, LooksUpTheSystemDatabases) {
  const NameSource system = NameSource::system();
  EXPECT_EQ(system.user_by_uid(0)->name, "root");
  EXPECT_EQ(system.user_by_name("root")->uid, 0u);
  EXPECT_EQ(system.group_by_gid(0)->name, "root");
  EXPECT_EQ(system.group_by_name("root")->gid, 0u);
  EXPECT_FALSE(system.user_by_name("no-such-user-drover"));
  EXPECT_FALSE(system.group_by_name("no-such-group-drover"));
  EXPECT_FALSE(system.user_by_uid(4'000'000'000u));
}

TEST(RequestNames, EveryCallNamesItsCallerAndSomeNameMore) {
  const rpc::Caller caller{1001, 1001};
  const NameQuery ping = namesIn(caller, v1::PingRequest{});
  EXPECT_EQ(ping.uids, std::vector<std::uint32_t>{1001});
  EXPECT_EQ(ping.gids, std::vector<std::uint32_t>{1001});
  EXPECT_TRUE(ping.user_names.empty());

  v1::GetJobsRequest squeue;  // squeue -u alice,1002,9999999999 (more than a uid can be)
  squeue.add_users("alice");
  squeue.add_users("1002");
  squeue.add_users("9999999999");
  const NameQuery q = namesIn(caller, squeue);
  EXPECT_EQ(q.uids, (std::vector<std::uint32_t>{1001, 1002}));
  EXPECT_EQ(q.user_names, std::vector<std::string>{"alice"});

  v1::SubmitJobRequest submit;  // sbatch --uid=bob --gid=100 (root)
  submit.mutable_spec()->set_run_as_user("bob");
  submit.mutable_spec()->set_run_as_group("100");
  const NameQuery s = namesIn(rpc::Caller{0, 0}, submit);
  EXPECT_EQ(s.user_names, std::vector<std::string>{"bob"});
  EXPECT_EQ(s.gids, (std::vector<std::uint32_t>{0, 100}));

  v1::UpdateReservationRequest update;  // scontrol update reservation Users=+bob,-carol
  update.mutable_spec()->set_users("+bob,-carol");
  EXPECT_EQ(namesIn(caller, update).user_names, (std::vector<std::string>{"bob", "carol"}));

  v1::QueryAccountingRequest sacct;  // sacct -u alice -g users
  sacct.add_users("alice");
  sacct.add_groups("users");
  const NameQuery a = namesIn(caller, sacct);
  EXPECT_EQ(a.user_names, std::vector<std::string>{"alice"});
  EXPECT_EQ(a.group_names, std::vector<std::string>{"users"});
}

// -u and -g names are the controller's to look up (a static sacct cannot use NSS): a name
// nobody has is refused in the reference sacct's words, a group name becomes its gid.
TEST_F(NameDirectoryTest, SacctNamesAreCheckedAndGroupsBecomeGids) {
  NameDirectory names = directory();
  v1::QueryAccountingRequest request;
  request.add_users("alice");
  request.add_groups("users");
  request.add_gids(7);
  names.resolve(namesIn(rpc::Caller{1001, 1001}, request));
  auto resolved = resolveAccountingNames(request, names);
  ASSERT_TRUE(resolved.ok()) << resolved.error();
  EXPECT_EQ(resolved->users_size(), 1);
  EXPECT_EQ(resolved->groups_size(), 0);
  EXPECT_EQ(std::vector<std::uint32_t>(resolved->gids().begin(), resolved->gids().end()),
            (std::vector<std::uint32_t>{7, 100}));

  request.add_users("no-such-user-drover");
  names.resolve(namesIn(rpc::Caller{1001, 1001}, request));
  EXPECT_EQ(resolveAccountingNames(request, names).error(), "Invalid user id: no-such-user-drover");
  request.clear_users();
  request.add_groups("no-such-group-drover");
  names.resolve(namesIn(rpc::Caller{1001, 1001}, request));
  EXPECT_EQ(resolveAccountingNames(request, names).error(), "Invalid group id: no-such-group-drover");
}

// The stage: a call whose names are known runs at once; one that needs a lookup waits for it on
// the pool while the state thread goes on with other work, then runs on the state thread with
// the answer. The source is never asked on the state thread.
TEST_F(NameDirectoryTest, TheStateThreadNeverWaitsForALookup) {
  NameDirectory names(fake_.source());
  boost::asio::io_context io;
  auto guard = boost::asio::make_work_guard(io);
  boost::asio::thread_pool pool(2);
  std::thread state_thread([&io] { io.run(); });
  const std::thread::id state_id = state_thread.get_id();

  std::promise<void> release;
  fake_.slow_name = "bob";
  fake_.released = release.get_future().share();

  // squeue -u bob's handler: says whether bob is known, on the thread it ran on.
  std::promise<std::pair<bool, std::thread::id>> ran;
  Handler<v1::GetJobsRequest, v1::GetJobsReply> handler =
      [&](const rpc::Caller&, const v1::GetJobsRequest& request, wire::Reply_<v1::GetJobsReply> done) {
        v1::GetJobsReply reply;
        addUnknownUsers(request.users(), names, reply.mutable_unknown_users());
        ran.set_value({reply.unknown_users().empty(), std::this_thread::get_id()});
        done(wire::Outcome::ok(), reply);
      };
  auto staged = namesFirst(std::move(handler), names, io, pool);

  std::promise<void> answered;
  boost::asio::post(io, [&] {
    v1::GetJobsRequest request;
    request.add_users("bob");
    staged(rpc::Caller{1001, 1001}, request,
           [&](wire::Outcome outcome, const v1::GetJobsReply&) {
             EXPECT_EQ(outcome.code, 0);
             answered.set_value();
           });
  });
  // While bob's lookup hangs, the state thread still runs what is posted to it.
  std::promise<void> other_work;
  boost::asio::post(io, [&] { other_work.set_value(); });
  ASSERT_EQ(other_work.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  auto ran_future = ran.get_future();
  EXPECT_EQ(ran_future.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);

  release.set_value();
  ASSERT_EQ(ran_future.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  const auto [known, thread] = ran_future.get();
  EXPECT_TRUE(known);
  EXPECT_EQ(thread, state_id);
  ASSERT_EQ(answered.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);

  // Answered now: a second call runs inside the post, without asking the source again.
  const int calls = fake_.calls;
  bool ran_inline = false;
  boost::asio::post(io, [&] {
    v1::GetJobsRequest request;
    request.add_users("bob");
    Handler<v1::GetJobsRequest, v1::GetJobsReply> plain =
        [&](const rpc::Caller&, const v1::GetJobsRequest&, wire::Reply_<v1::GetJobsReply> done) {
          done(wire::Outcome::ok(), v1::GetJobsReply{});
        };
    namesFirst(std::move(plain), names, io, pool)(rpc::Caller{1001, 1001}, request,
                                                  [&](wire::Outcome, const v1::GetJobsReply&) { ran_inline = true; });
    EXPECT_TRUE(ran_inline);
  });
  std::promise<void> drained;
  boost::asio::post(io, [&] { drained.set_value(); });
  drained.get_future().wait();
  EXPECT_TRUE(ran_inline);
  EXPECT_EQ(fake_.calls, calls);

  guard.reset();
  io.stop();
  state_thread.join();
  pool.join();
  std::lock_guard lock(fake_.mutex);
  EXPECT_EQ(fake_.threads.count(state_id), 0u);
}

}  // namespace
}  // namespace drover::ctld
