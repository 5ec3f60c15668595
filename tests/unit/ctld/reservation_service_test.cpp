// Advance reservations in the controller: the store on a real ctld.db (upsert, delete, reload),
// and the four RPC handlers over a real JobService (admin-only changes, Slurm's refusals,
// durability across a restart, expired reservations dropped).
#include "ctld/reservation_service.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "common/clock.h"
#include "ctld/request_names.h"
#include "jobs/reservations.h"

namespace drover::ctld {
namespace {

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
         "partitions:\n"
         "  - {name: gpu, nodes: ALL, default: true, max_time: 1-00:00:00}\n";
}

class ReservationServiceTest : public ::testing::Test {
 protected:
  ReservationServiceTest() {
    dir_ = std::filesystem::temp_directory_path() /
           ("drover-ctld-resv-" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(dir_);
    conf_ = (dir_ / "cluster.conf").string();
    std::ofstream(conf_) << clusterYaml();
  }
  ~ReservationServiceTest() override {
    stop();
    std::filesystem::remove_all(dir_);
  }

  void stop() {
    handlers_ = ControllerHandlers{};
    service_.reset();
    jobs_.reset();
    state_.reset();
    store_.reset();
  }

  // A controller as droverctld builds one, on the same state directory every time.
  void start() {
    stop();
    auto cfg = config::loadClusterConfig(conf_);
    ASSERT_TRUE(cfg) << cfg.error();
    auto store = StateStore::open(cfg->controller.state_dir);
    ASSERT_TRUE(store) << store.error();
    store_ = std::move(store).value();
    state_ = std::make_unique<CtldState>(std::move(cfg).value(), clock_, store_.get(), "root");
    ASSERT_TRUE(state_->init());
    auto js = JobService::create(io_, *state_, clock_);
    ASSERT_TRUE(js) << js.error();
    jobs_ = std::move(js).value();
    auto svc = ReservationService::create(io_, clock_, *state_, *jobs_, *store_);
    ASSERT_TRUE(svc) << svc.error();
    service_ = std::move(svc).value();
    service_->install(handlers_);
  }

  // Calls a handler and returns its outcome (handlers answer at once). The request's names are
  // looked up first, as the server's name stage does (name_stage.h).
  template <typename Request, typename Reply>
  wire::Outcome call(const Handler<Request, Reply>& handler, const Request& req,
                     std::uint32_t uid = 0, Reply* out = nullptr) {
    wire::Outcome outcome{-1, "no answer"};
    const rpc::Caller caller{uid, uid};
    state_->names().resolve(namesIn(caller, req));
    handler(caller, req, [&](wire::Outcome o, const Reply& rep) {
      outcome = o;
      if (out != nullptr) *out = rep;
    });
    return outcome;
  }

  v1::CreateReservationRequest createRequest(const std::string& name, std::int64_t start,
                                             std::int64_t duration) {
    v1::CreateReservationRequest req;
    auto* s = req.mutable_spec();
    s->set_name(name);
    s->set_start_time(start);
    s->set_duration_s(duration);
    s->set_nodes("node1");
    s->set_users("root");
    return req;
  }

  std::vector<std::string> names() {
    v1::GetReservationsReply rep;
    EXPECT_EQ(call(handlers_.get_reservations, v1::GetReservationsRequest{}, 1000, &rep).code, 0);
    std::vector<std::string> out;
    for (const auto& r : rep.reservations()) out.push_back(r.name());
    return out;
  }

  std::filesystem::path dir_;
  std::string conf_;
  FakeClock clock_;
  boost::asio::io_context io_;
  std::unique_ptr<StateStore> store_;
  std::unique_ptr<CtldState> state_;
  std::unique_ptr<JobService> jobs_;
  std::unique_ptr<ReservationService> service_;
  ControllerHandlers handlers_;
};

TEST_F(ReservationServiceTest, StoreUpsertsDeletesAndReloads) {
  auto db = StateStore::open((dir_ / "plain").string());
  ASSERT_TRUE(db) << db.error();
  auto store = ReservationStore::open((*db)->handle(), (*db)->path());
  ASSERT_TRUE(store) << store.error();
  v1::ReservationInfo a;
  a.set_name("a");
  a.add_nodes("node1");
  a.add_users("alice");
  a.set_end_time(100);
  v1::ReservationInfo b = a;
  b.set_name("b");
  ASSERT_TRUE(store->save(a));
  ASSERT_TRUE(store->save(b));
  a.set_end_time(200);
  ASSERT_TRUE(store->save(a));
  ASSERT_TRUE(store->remove("b"));
  auto again = ReservationStore::open((*db)->handle(), (*db)->path());
  ASSERT_TRUE(again);
  auto loaded = again->load();
  ASSERT_TRUE(loaded) << loaded.error();
  ASSERT_EQ(loaded->size(), 1u);
  EXPECT_EQ((*loaded)[0].name(), "a");
  EXPECT_EQ((*loaded)[0].end_time(), 200);
  EXPECT_EQ((*loaded)[0].users(0), "alice");
}

TEST_F(ReservationServiceTest, OnlyAdminsChangeReservationsEveryoneLists) {
  start();
  const std::int64_t now = clock_.now();
  auto denied = call(handlers_.create_reservation, createRequest("lab", now, 3600), 1000);
  EXPECT_EQ(denied.code, kPermissionDenied);
  EXPECT_EQ(denied.message.rfind("Access/permission denied", 0), 0u) << denied.message;
  v1::CreateReservationReply made;
  ASSERT_EQ(call(handlers_.create_reservation, createRequest("lab", now, 3600), 0, &made).code, 0);
  EXPECT_EQ(made.name(), "lab");
  EXPECT_EQ(names(), std::vector<std::string>{"lab"});

  v1::DeleteReservationRequest del;
  del.set_name("lab");
  EXPECT_EQ(call(handlers_.delete_reservation, del, 1000).code, kPermissionDenied);
  v1::UpdateReservationRequest upd;
  upd.mutable_spec()->set_name("lab");
  upd.mutable_spec()->set_duration_s(7200);
  EXPECT_EQ(call(handlers_.update_reservation, upd, 1000).code, kPermissionDenied);
  EXPECT_EQ(call(handlers_.update_reservation, upd).code, 0);
  EXPECT_EQ(call(handlers_.delete_reservation, del).code, 0);
  EXPECT_TRUE(names().empty());
  auto again = call(handlers_.delete_reservation, del);
  EXPECT_EQ(again.code, kNotFound);
  EXPECT_EQ(again.message, std::string(jobs::kResvInvalid) + ": lab");
}

TEST_F(ReservationServiceTest, RefusalsCarrySlurmsText) {
  start();
  const std::int64_t now = clock_.now();
  ASSERT_EQ(call(handlers_.create_reservation, createRequest("a", now, 3600)).code, 0);
  auto overlap = call(handlers_.create_reservation, createRequest("b", now + 60, 3600));
  EXPECT_EQ(overlap.code, kInvalidArgument);
  EXPECT_EQ(overlap.message.rfind(jobs::kResvOverlap, 0), 0u) << overlap.message;
  auto req = createRequest("c", now, 3600);
  req.mutable_spec()->set_nodes("node7");
  auto bad = call(handlers_.create_reservation, req);
  EXPECT_EQ(bad.message.rfind(jobs::kResvBadNode, 0), 0u) << bad.message;
  req.mutable_spec()->set_nodes("node2");
  req.mutable_spec()->set_users("no-such-user-here");
  auto user = call(handlers_.create_reservation, req);
  EXPECT_EQ(user.message.rfind(jobs::kResvBadUser, 0), 0u) << user.message;
  v1::GetReservationsRequest get;
  get.add_names("nosuch");
  auto missing = call(handlers_.get_reservations, get, 1000);
  EXPECT_EQ(missing.code, kNotFound);
  EXPECT_EQ(missing.message, "Reservation nosuch not found");
}

// An update checks the Users= names it gives, not those it keeps: after a restart the
// controller has looked up only what the update names (name_stage.h), and a kept user (daemon)
// is not re-checked against an empty directory.
TEST_F(ReservationServiceTest, AnUpdateChecksOnlyTheUsersItNames) {
  start();
  const std::int64_t now = clock_.now();
  auto req = createRequest("lab", now, 3600);
  req.mutable_spec()->set_users("daemon");
  ASSERT_EQ(call(handlers_.create_reservation, req).code, 0);
  start();
  v1::UpdateReservationRequest upd;
  upd.mutable_spec()->set_name("lab");
  upd.mutable_spec()->set_users("+bin");
  const auto updated = call(handlers_.update_reservation, upd);
  EXPECT_EQ(updated.code, 0) << updated.message;
  upd.mutable_spec()->set_users("+no-such-user-here");
  EXPECT_EQ(call(handlers_.update_reservation, upd).message.rfind(jobs::kResvBadUser, 0), 0u);
}

TEST_F(ReservationServiceTest, ReservationsSurviveARestartAndExpire) {
  start();
  const std::int64_t now = clock_.now();
  ASSERT_EQ(call(handlers_.create_reservation, createRequest("short", now, 600)).code, 0);
  ASSERT_EQ(call(handlers_.create_reservation, createRequest("long", now + 600, 3600)).code, 0);
  start();
  EXPECT_EQ(names(), (std::vector<std::string>{"short", "long"}));
  EXPECT_EQ(jobs_->manager().reservations().size(), 2u);
  clock_.advanceSeconds(600);
  EXPECT_EQ(names(), std::vector<std::string>{"long"});
  start();  // the ended one is gone from disk too
  EXPECT_EQ(jobs_->manager().reservations().size(), 1u);
}

}  // namespace
}  // namespace drover::ctld
