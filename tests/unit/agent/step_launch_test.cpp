// The agent's step launch end to end, with real processes: a real droverd service in this
// process, a real munged, the real drover-stepd, and a fake controller recording what agents
// (a real gRPC server) and supervisors (a real frame-transport server, as droverctld's
// cli_port) tell it.
#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include "agent/agent.h"
#include "agent/step_records.h"
#include "drover/config.h"
#include "drover/v1/agent.grpc.pb.h"
#include "drover/v1/agent_control.grpc.pb.h"
#include "munged_process.h"
#include "rpc/client.h"
#include "wire/frame_client.h"
#include "wire/frame_server.h"
#include "wire/method_table.h"

namespace drover::agent {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr std::int64_t kBatch = -5;
constexpr auto kPatience = 20s;

// Records every call; tests wait on it for what they expect.
class FakeController final : public v1::AgentControl::Service {
 public:
  grpc::Status Register(grpc::ServerContext*, const v1::RegisterRequest* req,
                        v1::RegisterReply* rep) override {
    std::lock_guard lock(mu_);
    registrations_.push_back(*req);
    rep->set_heartbeat_interval_s(1);
    rep->set_cluster_name("test");
    changed_.notify_all();
    return grpc::Status::OK;
  }
  grpc::Status Heartbeat(grpc::ServerContext*, const v1::HeartbeatRequest* req,
                         v1::HeartbeatReply*) override {
    std::lock_guard lock(mu_);
    heartbeats_.push_back(*req);
    changed_.notify_all();
    return grpc::Status::OK;
  }
  // What drover-stepd sends over the frame transport.
  void stepEvent(const v1::StepEventRequest& req) {
    std::lock_guard lock(mu_);
    events_.push_back(req);
    changed_.notify_all();
  }

  // The event for the job's step (of this run of the job, when given), once it arrives.
  std::optional<v1::StepEventRequest> awaitEvent(std::uint64_t job_id,
                                                 std::optional<std::uint32_t> run = std::nullopt) {
    std::unique_lock lock(mu_);
    std::optional<v1::StepEventRequest> found;
    changed_.wait_for(lock, kPatience, [&] {
      for (const auto& e : events_) {
        if (e.step().job_id() == job_id && (!run || e.step().restart_count() == *run)) found = e;
      }
      return found.has_value();
    });
    return found;
  }

  // The registration (after `after` earlier ones) once it arrives.
  std::optional<v1::RegisterRequest> awaitRegistration(std::size_t after) {
    std::unique_lock lock(mu_);
    if (!changed_.wait_for(lock, kPatience, [&] { return registrations_.size() > after; })) {
      return std::nullopt;
    }
    return registrations_[after];
  }

  // A heartbeat (after the first `after` ones) that reports exactly these jobs as running.
  bool awaitHeartbeatWithJobs(const std::vector<std::uint64_t>& jobs, std::size_t after = 0) {
    std::unique_lock lock(mu_);
    return changed_.wait_for(lock, kPatience, [&] {
      for (std::size_t i = after; i < heartbeats_.size(); ++i) {
        const auto& h = heartbeats_[i];
        std::vector<std::uint64_t> seen;
        for (const auto& id : h.running_steps()) seen.push_back(id.job_id());
        if (seen == jobs) return true;
      }
      return false;
    });
  }

  std::size_t heartbeatCount() {
    std::lock_guard lock(mu_);
    return heartbeats_.size();
  }

  std::size_t registrationCount() {
    std::lock_guard lock(mu_);
    return registrations_.size();
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<v1::RegisterRequest> registrations_;
  std::vector<v1::HeartbeatRequest> heartbeats_;
  std::vector<v1::StepEventRequest> events_;
};

// Files appear as scripts run; there is nothing to wait on but the file system.
bool waitUntil(const std::function<bool()>& condition) {
  const auto give_up = std::chrono::steady_clock::now() + kPatience;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class StepLaunchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("drover-agent-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    auto munged = testing::MungedProcess::start();
    ASSERT_TRUE(munged.ok()) << munged.error();
    munged_ = std::move(*munged);

    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&controller_);
    controller_server_ = builder.BuildAndStart();
    ASSERT_TRUE(controller_server_ && port > 0);
    controller_port_ = static_cast<std::uint16_t>(port);

    frame_methods_ = std::make_unique<wire::MethodTable>(munged_->socket());
    std::function<void(const rpc::Caller&, const v1::StepEventRequest&,
                       wire::Reply_<v1::StepEventReply>)>
        step_event = [this](const rpc::Caller&, const v1::StepEventRequest& req,
                            wire::Reply_<v1::StepEventReply> done) {
          controller_.stepEvent(req);
          done(wire::Outcome::ok(), {});
        };
    frame_methods_->add("/drover.v1.AgentControl/StepEvent", std::move(step_event));
    frame_server_ = std::make_unique<wire::FrameServer>(
        frame_io_, "127.0.0.1", 0, [this](v1::FrameRequest req, wire::Responder respond) {
          frame_methods_->dispatch(std::move(req), std::move(respond));
        });
    frame_thread_ = std::thread([this] { frame_io_.run(); });
    startAgent();
  }

  void TearDown() override {
    stopAgent();
    if (controller_server_) controller_server_->Shutdown(std::chrono::system_clock::now());
    if (frame_server_) frame_server_->stop();
    frame_work_.reset();
    frame_io_.stop();
    if (frame_thread_.joinable()) frame_thread_.join();
    frame_server_.reset();
    munged_.reset();
    fs::remove_all(dir_);
  }

  config::ClusterConfig clusterConfig() {
    config::ClusterConfig cfg;
    cfg.source_path = "test";
    cfg.cluster_name = "test";
    cfg.controller.host = "127.0.0.1";
    cfg.controller.port = controller_port_;
    cfg.controller.cli_port = frame_server_->port();
    cfg.controller.state_dir = (dir_ / "state").string();
    cfg.munge_socket = munged_->socket();
    cfg.timeouts.heartbeat_interval_s = 1;
    cfg.timeouts.message_s = 5;
    config::NodeConfig node;
    node.name = "n1";
    node.address = "127.0.0.1";
    node.cpus = 1;
    node.real_memory_mb = 1024;
    cfg.nodes.push_back(node);
    return cfg;
  }

  void startAgent(bool use_launcher = true, const std::string& stepd_path = DROVER_STEPD_PATH) {
    AgentOptions opts;
    opts.node_name = "n1";
    opts.any_free_port = true;
    opts.fake_resources = true;
    opts.stepd_path = stepd_path;
    opts.use_launcher = use_launcher;
    auto agent = AgentDaemon::create(clusterConfig(), opts);
    ASSERT_TRUE(agent.ok()) << agent.error();
    agent_ = std::move(*agent);
    agent_thread_ = std::thread([a = agent_.get()] { a->run(); });
    client_.target = "127.0.0.1:" + std::to_string(agent_->port());
    client_.munge_socket = munged_->socket();
    client_.timeout_ms = 10000;
    stub_ = v1::Agent::NewStub(rpc::makeChannel(client_.target));
  }

  void stopAgent() {
    if (!agent_) return;
    agent_->requestStop();
    agent_thread_.join();
    agent_.reset();
  }

  // Run 0 of the job unless told: the controller names the run in every launch.
  v1::LaunchStepRequest batch(std::uint64_t job_id, const std::string& script,
                              RunNumber run = 0u) {
    v1::LaunchStepRequest req;
    req.mutable_step()->set_job_id(job_id);
    req.mutable_step()->set_step_id(kBatch);
    if (run) req.mutable_step()->set_restart_count(*run);
    req.set_uid(getuid());
    req.set_gid(getgid());
    req.set_user("root");
    req.set_script(script);
    req.set_work_dir(dir_.string());
    req.set_std_out((dir_ / ("out" + std::to_string(job_id))).string());
    req.set_kill_wait_s(1);
    req.set_num_tasks(1);
    req.set_controller("127.0.0.1:" + std::to_string(controller_port_));
    (*req.mutable_environment())["PATH"] = "/usr/bin:/bin";
    return req;
  }

  grpc::Status launch(const v1::LaunchStepRequest& req, v1::LaunchStepReply* rep) {
    grpc::ClientContext ctx;
    auto prepared = rpc::prepareCall(ctx, "/drover.v1.Agent/LaunchStep", req, client_);
    if (!prepared) return grpc::Status(grpc::StatusCode::INTERNAL, prepared.error());
    return stub_->LaunchStep(&ctx, req, rep);
  }

  // `run`: the run the signal is meant for; none = a sender that names no run.
  grpc::Status signal(std::uint64_t job_id, int sig, bool kill, RunNumber run = std::nullopt) {
    v1::SignalStepRequest req;
    req.mutable_step()->set_job_id(job_id);
    req.mutable_step()->set_step_id(kBatch);
    if (run) req.mutable_step()->set_restart_count(*run);
    req.set_signal(sig);
    req.set_kill(kill);
    grpc::ClientContext ctx;
    auto prepared = rpc::prepareCall(ctx, "/drover.v1.Agent/SignalStep", req, client_);
    if (!prepared) return grpc::Status(grpc::StatusCode::INTERNAL, prepared.error());
    v1::SignalStepReply rep;
    return stub_->SignalStep(&ctx, req, &rep);
  }

  // Launches a script that marks itself ready, then runs until signalled.
  pid_t launchWaitingStep(std::uint64_t job_id, const std::string& traps = "",
                          RunNumber run = 0u) {
    const fs::path ready = dir_ / ("ready" + std::to_string(job_id));
    v1::LaunchStepReply rep;
    auto st = launch(batch(job_id, "#!/bin/sh\n" + traps + "touch " + ready.string() +
                                       "\nwhile :; do sleep 0.05; done\n", run),
                     &rep);
    EXPECT_TRUE(st.ok()) << st.error_message();
    EXPECT_TRUE(waitUntil([&] { return fs::exists(ready); })) << "the script never started";
    return rep.supervisor_pid();
  }

  fs::path dir_;
  std::unique_ptr<testing::MungedProcess> munged_;
  FakeController controller_;
  std::unique_ptr<grpc::Server> controller_server_;
  std::uint16_t controller_port_ = 0;
  boost::asio::io_context frame_io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> frame_work_ =
      boost::asio::make_work_guard(frame_io_);
  std::unique_ptr<wire::MethodTable> frame_methods_;
  std::unique_ptr<wire::FrameServer> frame_server_;
  std::thread frame_thread_;
  std::unique_ptr<AgentDaemon> agent_;
  std::thread agent_thread_;
  rpc::ClientOptions client_;
  std::unique_ptr<v1::Agent::Stub> stub_;
};

bool processGone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

// A process's command line, arguments joined by spaces ("" when it is gone).
std::string commandLine(pid_t pid) {
  std::string text = readFile("/proc/" + std::to_string(pid) + "/cmdline");
  for (char& c : text) c = c == '\0' ? ' ' : c;
  return text;
}

// "pid (comm) state ppid ...": the ppid.
pid_t parentOf(pid_t pid) {
  const std::string stat = readFile("/proc/" + std::to_string(pid) + "/stat");
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  char state = 0;
  int ppid = 0;
  return std::sscanf(stat.c_str() + close + 1, " %c %d", &state, &ppid) == 2 ? ppid : 0;
}

// The supervisor launcher of the agent whose spool dir is `spool`: this process's child
// running drover-stepd --spool SPOOL ... --launcher with droverd's socket as its stdin. (The
// supervisors it forks share its command line but have /dev/null there; earlier tests' agents
// had other spool dirs.)
pid_t launcherPid(const std::string& spool) {
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = std::stoi(name);
    if (parentOf(pid) != ::getpid()) continue;
    const std::string command = commandLine(pid);
    if (command.find("drover-stepd --spool " + spool + " ") == std::string::npos ||
        command.find("--launcher") == std::string::npos) {
      continue;
    }
    std::error_code ec;
    const auto in = fs::read_symlink("/proc/" + name + "/fd/0", ec);
    if (!ec && in.string().rfind("socket:", 0) == 0) return pid;
  }
  return 0;
}

TEST_F(StepLaunchTest, BatchStepRunsReportsItsExitAndIsReaped) {
  v1::LaunchStepReply rep;
  auto st = launch(batch(11, "#!/bin/sh\necho hi > " + (dir_ / "wrote").string() + "\nexit 3\n"),
                   &rep);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_GT(rep.supervisor_pid(), 0);

  auto event = controller_.awaitEvent(11);
  ASSERT_TRUE(event.has_value()) << "no StepEvent from the supervisor";
  EXPECT_EQ(event->kind(), v1::StepEventRequest::FINISHED);
  EXPECT_EQ(event->exit_code(), 3);
  EXPECT_EQ(event->node(), "n1");
  EXPECT_EQ(readFile(dir_ / "wrote"), "hi\n");
  // The agent waits for its child (no zombie stays) and drops the step's record.
  EXPECT_TRUE(waitUntil([&] { return processGone(rep.supervisor_pid()); }));
  EXPECT_TRUE(waitUntil([&] {
    return !fs::exists(stepRecordPath(agent_->spoolDir(), StepKey{11, kBatch}));
  }));
}

// Supervisors report to the frame transport of the agent's controller (cli_port), whatever
// gRPC address the request names.
TEST_F(StepLaunchTest, RequestWithoutControllerReportsToTheAgentsController) {
  auto req = batch(16, "#!/bin/sh\nexit 5\n");
  req.clear_controller();
  v1::LaunchStepReply rep;
  auto st = launch(req, &rep);
  ASSERT_TRUE(st.ok()) << st.error_message();
  auto event = controller_.awaitEvent(16);
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->exit_code(), 5);
}

TEST_F(StepLaunchTest, HeartbeatsReportRunningSteps) {
  launchWaitingStep(17);
  EXPECT_TRUE(controller_.awaitHeartbeatWithJobs({17}));
  ASSERT_TRUE(signal(17, 0, true).ok());
  ASSERT_TRUE(controller_.awaitEvent(17).has_value());
  // The supervisor ends just after its report; a later heartbeat no longer lists it.
  EXPECT_TRUE(controller_.awaitHeartbeatWithJobs({}, controller_.heartbeatCount()));
}

TEST_F(StepLaunchTest, DefaultSpoolDirIsBesideTheStateDirPerNode) {
  EXPECT_EQ(fs::path(agent_->spoolDir()), dir_ / "spool" / "n1");
}

TEST_F(StepLaunchTest, SignalReachesTheScriptAndKillCancels) {
  const fs::path got = dir_ / "got-usr1";
  const pid_t pid =
      launchWaitingStep(12, "trap 'echo usr1 > " + got.string() + "' USR1\n");
  EXPECT_TRUE(fs::exists(stepRecordPath(agent_->spoolDir(), StepKey{12, kBatch})));

  auto st = signal(12, SIGUSR1, false);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_TRUE(waitUntil([&] { return fs::exists(got); })) << "SIGUSR1 never reached the script";

  st = signal(12, 0, true);
  ASSERT_TRUE(st.ok()) << st.error_message();
  auto event = controller_.awaitEvent(12);
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->kind(), v1::StepEventRequest::FINISHED);
  EXPECT_TRUE(waitUntil([&] { return processGone(pid); }));
}

TEST_F(StepLaunchTest, UnknownStepIsNotFound) {
  auto st = signal(99, SIGUSR1, false);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND) << st.error_message();
  st = signal(99, 0, true);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND) << st.error_message();
}

TEST_F(StepLaunchTest, OnlyTheControllersUserMayLaunch) {
  // An ordinary user (nobody) with a valid credential is refused, and nothing starts, over
  // either transport of the agent's port.
  for (const std::string transport : {"", " --frames"}) {
    const std::string command =
        std::string("setpriv --reuid=65534 --regid=65534 --clear-groups ") +
        DROVER_AGENT_TEST_CLIENT + " " + client_.target + " " + munged_->socket() + transport;
    const int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status)) << transport;
    EXPECT_EQ(WEXITSTATUS(status), static_cast<int>(grpc::StatusCode::PERMISSION_DENIED))
        << transport;
    EXPECT_FALSE(fs::exists(stepRecordPath(agent_->spoolDir(), StepKey{98, kBatch})));
  }
}

// The controller's path: LaunchStep and SignalStep as frames on the port gRPC also serves.
TEST_F(StepLaunchTest, LaunchAndSignalOverTheFrameTransport) {
  wire::ClientOptions to;
  to.host = "127.0.0.1";
  to.port = agent_->port();
  to.munge_socket = munged_->socket();
  const fs::path ready = dir_ / "ready31";
  v1::LaunchStepReply launched;
  wire::CallError error;
  ASSERT_TRUE(wire::call(to, "/drover.v1.Agent/LaunchStep",
                         batch(31, "#!/bin/sh\ntouch " + ready.string() +
                                       "\nwhile :; do sleep 0.05; done\n"),
                         &launched, &error))
      << error.message;
  EXPECT_GT(launched.supervisor_pid(), 0);
  EXPECT_TRUE(waitUntil([&] { return fs::exists(ready); })) << "the script never started";
  // gRPC on the same port still answers, between two frame calls.
  v1::LaunchStepReply again;
  ASSERT_TRUE(launch(batch(31, "#!/bin/sh\ntrue\n"), &again).ok());
  EXPECT_EQ(again.supervisor_pid(), launched.supervisor_pid());

  v1::SignalStepRequest bad;
  bad.mutable_step()->set_job_id(31);
  bad.mutable_step()->set_step_id(kBatch);
  v1::SignalStepReply signalled;
  EXPECT_FALSE(wire::call(to, "/drover.v1.Agent/SignalStep", bad, &signalled, &error));
  EXPECT_EQ(error.code, static_cast<int>(grpc::StatusCode::INVALID_ARGUMENT)) << error.message;
  v1::SignalStepRequest kill = bad;
  kill.set_kill(true);
  ASSERT_TRUE(wire::call(to, "/drover.v1.Agent/SignalStep", kill, &signalled, &error))
      << error.message;
  auto event = controller_.awaitEvent(31);
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->kind(), v1::StepEventRequest::FINISHED);
  EXPECT_TRUE(waitUntil([&] { return processGone(launched.supervisor_pid()); }));
}

TEST_F(StepLaunchTest, SignalOutOfRangeIsRefused) {
  auto st = signal(99, 0, false);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << st.error_message();
}

TEST_F(StepLaunchTest, UnopenableOutputFileIsReportedAsFailedToStart) {
  auto req = batch(13, "#!/bin/sh\ntrue\n");
  req.set_std_out((dir_ / "no-such-dir" / "out").string());
  v1::LaunchStepReply rep;
  auto st = launch(req, &rep);
  ASSERT_TRUE(st.ok()) << st.error_message();
  auto event = controller_.awaitEvent(13);
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->kind(), v1::StepEventRequest::FAILED_TO_START);
  EXPECT_NE(event->error().find("could not open output file"), std::string::npos)
      << event->error();
}

TEST_F(StepLaunchTest, RelaunchOfARunningStepReturnsTheSameSupervisor) {
  const pid_t pid = launchWaitingStep(14);
  v1::LaunchStepReply again;
  auto st = launch(batch(14, "#!/bin/sh\nexit 0\n"), &again);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(again.supervisor_pid(), pid);
  ASSERT_TRUE(signal(14, 0, true).ok());
  ASSERT_TRUE(controller_.awaitEvent(14).has_value());
}

// A requeued job's next run (restart count 1) reaches the node while the last run's supervisor
// is still alive (it has reported its end and is exiting): it is a new run, not a retry.
TEST_F(StepLaunchTest, NextRunOfARequeuedJobStartsBesideTheExitingSupervisor) {
  const pid_t old_pid = launchWaitingStep(16);
  const fs::path second = dir_ / "second16";
  v1::LaunchStepRequest next =
      batch(16, "#!/bin/sh\ntouch " + second.string() + "\nwhile :; do sleep 0.05; done\n", 1u);
  v1::LaunchStepReply rep;
  auto st = launch(next, &rep);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_NE(rep.supervisor_pid(), old_pid);
  EXPECT_TRUE(waitUntil([&] { return fs::exists(second); })) << "the next run never started";
  // The same run again is a retried launch: the running supervisor answers.
  v1::LaunchStepReply again;
  ASSERT_TRUE(launch(next, &again).ok());
  EXPECT_EQ(again.supervisor_pid(), rep.supervisor_pid());
  ASSERT_TRUE(signal(16, 0, true).ok());   // cancels the step's current run
  ASSERT_EQ(::kill(old_pid, SIGTERM), 0);  // and the old run's supervisor
  EXPECT_TRUE(waitUntil([&] { return processGone(rep.supervisor_pid()) && processGone(old_pid); }));
}

// The agent forgets a step when it reaps the step's supervisor (SIGCHLD): reaping the last
// run's supervisor must not drop the record of the next run, which owns the step now.
TEST_F(StepLaunchTest, ReapingTheLastRunsSupervisorKeepsTheNextRunsRecord) {
  const pid_t old_pid = launchWaitingStep(18);
  const fs::path second = dir_ / "second18";
  v1::LaunchStepRequest next =
      batch(18, "#!/bin/sh\ntouch " + second.string() + "\nwhile :; do sleep 0.05; done\n", 1u);
  v1::LaunchStepReply rep;
  ASSERT_TRUE(launch(next, &rep).ok());
  ASSERT_TRUE(waitUntil([&] { return fs::exists(second); })) << "the next run never started";
  ASSERT_EQ(::kill(old_pid, SIGTERM), 0);
  ASSERT_TRUE(waitUntil([&] { return processGone(old_pid); })) << "the old run was not reaped";

  const std::string record = readFile(stepRecordPath(agent_->spoolDir(), StepKey{18, kBatch}));
  EXPECT_NE(record.find(" " + std::to_string(rep.supervisor_pid()) + " "), std::string::npos)
      << record;
  // Still supervised: the cancel reaches the next run.
  auto st = signal(18, 0, true);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_TRUE(waitUntil([&] { return processGone(rep.supervisor_pid()); }));
  EXPECT_TRUE(waitUntil([&] {
    return !fs::exists(stepRecordPath(agent_->spoolDir(), StepKey{18, kBatch}));
  }));
}

// A kill sent to end the run before a requeue can reach the node after the next run started
// there (same job, same step): it names its run, and the agent leaves the next run alone.
TEST_F(StepLaunchTest, SignalOfAnEarlierRunLeavesTheStepsRunAlone) {
  const fs::path got = dir_ / "got-usr1-20";
  const pid_t pid =
      launchWaitingStep(20, "trap 'echo usr1 > " + got.string() + "' USR1\n", 1u);
  auto st = signal(20, 0, true, 0u);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND) << st.error_message();
  EXPECT_NE(st.error_message().find("of run 0"), std::string::npos) << st.error_message();
  st = signal(20, SIGUSR1, false, 0u);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND) << st.error_message();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(processGone(pid)) << "a kill of run 0 ended run 1";
  EXPECT_FALSE(fs::exists(got)) << "a signal of run 0 reached run 1";
  // Its own run's signal, and one that names no run (an older controller), reach it.
  ASSERT_TRUE(signal(20, SIGUSR1, false, 1u).ok());
  EXPECT_TRUE(waitUntil([&] { return fs::exists(got); }));
  fs::remove(got);
  ASSERT_TRUE(signal(20, SIGUSR1, false).ok());
  EXPECT_TRUE(waitUntil([&] { return fs::exists(got); }));
  // A cancel of a later run than the supervisor's reaches it (that run is on its way out).
  ASSERT_TRUE(signal(20, 0, true, 2u).ok());
  ASSERT_TRUE(controller_.awaitEvent(20).has_value());
  EXPECT_TRUE(waitUntil([&] { return processGone(pid); }));
}

// The supervisor puts its run in its report, so the controller can ignore a late one.
TEST_F(StepLaunchTest, ReportNamesTheRun) {
  v1::LaunchStepReply rep;
  ASSERT_TRUE(launch(batch(21, "#!/bin/sh\nexit 0\n", 4u), &rep).ok());
  auto event = controller_.awaitEvent(21);
  ASSERT_TRUE(event.has_value());
  ASSERT_TRUE(event->step().has_restart_count());
  EXPECT_EQ(event->step().restart_count(), 4u);
}

// A launch of the run before a requeue that reaches the node after the next run started there
// must not start the old run's script again, nor take the step's record.
TEST_F(StepLaunchTest, LaunchOfAnEarlierRunIsRefused) {
  const pid_t pid = launchWaitingStep(22, "", 2u);
  v1::LaunchStepReply rep;
  auto st = launch(batch(22, "#!/bin/sh\ntouch " + (dir_ / "old-run-22").string() + "\n", 1u),
                   &rep);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.error_message().find("stale"), std::string::npos) << st.error_message();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(fs::exists(dir_ / "old-run-22"));
  const std::string record = readFile(stepRecordPath(agent_->spoolDir(), StepKey{22, kBatch}));
  auto parsed = parseStepRecord(record);
  ASSERT_TRUE(parsed.has_value()) << record;
  EXPECT_EQ(parsed->pid, pid);
  EXPECT_EQ(parsed->run, RunNumber(2u));
  ASSERT_TRUE(signal(22, 0, true, 2u).ok());
  EXPECT_TRUE(waitUntil([&] { return processGone(pid); }));
}

// The controller sends a launch again when the agent did not answer in time; if the first
// attempt reached the agent after all and the run already ended, it must not run again.
TEST_F(StepLaunchTest, LaunchOfARunThatEndedHereIsNotStartedAgain) {
  const fs::path ran = dir_ / "ran23";
  const std::string script = "#!/bin/sh\necho x >> " + ran.string() + "\n";
  v1::LaunchStepReply rep;
  ASSERT_TRUE(launch(batch(23, script, 0u), &rep).ok());
  ASSERT_TRUE(controller_.awaitEvent(23).has_value());
  ASSERT_TRUE(waitUntil([&] {
    return !fs::exists(stepRecordPath(agent_->spoolDir(), StepKey{23, kBatch}));
  })) << "the run's supervisor was never reaped";

  auto st = launch(batch(23, script, 0u), &rep);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::ALREADY_EXISTS) << st.error_message();
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(readFile(ran), "x\n") << "the ended run ran again";
  // The job's next run (requeued) is another run: it starts.
  ASSERT_TRUE(launch(batch(23, script, 1u), &rep).ok());
  EXPECT_TRUE(waitUntil([&] { return readFile(ran) == "x\nx\n"; })) << readFile(ran);
  // Its supervisor's report acknowledged, so that it ends with the test (unacknowledged, it
  // would retry after this test's controller is gone).
  EXPECT_TRUE(controller_.awaitEvent(23, 1u).has_value());
}

// The same, across a restart of the agent: the ended runs are kept in the spool dir.
TEST_F(StepLaunchTest, ARunThatEndedBeforeAnAgentRestartIsNotStartedAgain) {
  const fs::path ran = dir_ / "ran24";
  const std::string script = "#!/bin/sh\necho x >> " + ran.string() + "\n";
  v1::LaunchStepReply rep;
  ASSERT_TRUE(launch(batch(24, script, 2u), &rep).ok());
  ASSERT_TRUE(controller_.awaitEvent(24).has_value());
  ASSERT_TRUE(waitUntil([&] {
    return !fs::exists(stepRecordPath(agent_->spoolDir(), StepKey{24, kBatch}));
  })) << "the run's supervisor was never reaped";

  stopAgent();
  startAgent();
  auto st = launch(batch(24, script, 2u), &rep);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::ALREADY_EXISTS) << st.error_message();
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(readFile(ran), "x\n") << "the ended run ran again after the agent's restart";
}

// A run whose supervisor ended while no agent ran: the restarted agent finds its record with
// no supervisor behind it, and remembers the run as ended.
TEST_F(StepLaunchTest, ARunThatEndedWhileTheAgentWasAwayIsNotStartedAgain) {
  const fs::path ran = dir_ / "ran25";
  const fs::path go = dir_ / "go25";
  const std::string script = "#!/bin/sh\necho x >> " + ran.string() + "\nwhile [ ! -e " +
                             go.string() + " ]; do sleep 0.05; done\n";
  v1::LaunchStepReply rep;
  ASSERT_TRUE(launch(batch(25, script, 1u), &rep).ok());
  const pid_t pid = rep.supervisor_pid();
  ASSERT_TRUE(waitUntil([&] { return readFile(ran) == "x\n"; })) << "the script never started";

  stopAgent();
  std::ofstream(go).put('\n');
  // Only this test process (its parent here; init in a real restart) can reap it.
  ASSERT_EQ(::waitpid(pid, nullptr, 0), pid);
  ASSERT_TRUE(fs::exists(stepRecordPath(dir_ / "spool" / "n1", StepKey{25, kBatch})))
      << "the step's record went with the agent";
  startAgent();
  auto st = launch(batch(25, script, 1u), &rep);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::ALREADY_EXISTS) << st.error_message();
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(readFile(ran), "x\n") << "the run that ended while the agent was away ran again";
}

// An srun step's launch on a node is sent again as a batch launch is: the agent knows it by
// the same (job, step) key and run, so a repeat gets the running supervisor, and once the
// node's part of the step ended (before an agent restart too), ALREADY_EXISTS.
TEST_F(StepLaunchTest, ANumberedStepsRepeatedLaunchIsAnsweredAsABatchStepsIs) {
  const fs::path ran = dir_ / "ran26";
  const fs::path go = dir_ / "go26";
  v1::LaunchStepRequest req = batch(26, "", 0u);
  req.mutable_step()->set_step_id(0);
  req.clear_script();
  for (const char* arg : {"/bin/sh", "-c"}) req.add_argv(arg);
  req.add_argv("echo x >> " + ran.string() + "; while [ ! -e " + go.string() +
               " ]; do sleep 0.05; done");
  v1::LaunchStepReply first;
  ASSERT_TRUE(launch(req, &first).ok());
  ASSERT_TRUE(waitUntil([&] { return readFile(ran) == "x\n"; })) << "the task never started";
  v1::LaunchStepReply again;
  ASSERT_TRUE(launch(req, &again).ok());
  EXPECT_EQ(again.supervisor_pid(), first.supervisor_pid());

  std::ofstream(go).put('\n');
  ASSERT_TRUE(controller_.awaitEvent(26).has_value());
  ASSERT_TRUE(waitUntil([&] {
    return !fs::exists(stepRecordPath(agent_->spoolDir(), StepKey{26, 0}));
  })) << "the step's supervisor was never reaped";
  auto st = launch(req, &again);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::ALREADY_EXISTS) << st.error_message();
  stopAgent();
  startAgent();
  st = launch(req, &again);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::ALREADY_EXISTS) << st.error_message();
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(readFile(ran), "x\n") << "the step's tasks ran again";
}

TEST_F(StepLaunchTest, AgentRestartKeepsTheStepRunningAndFindsItAgain) {
  const pid_t pid = launchWaitingStep(15, "", 3u);
  ASSERT_TRUE(controller_.awaitRegistration(0).has_value());

  stopAgent();
  const StepRecord record{StepKey{15, kBatch}, pid, processStartTicks(pid).value_or(0), {}};
  EXPECT_TRUE(isRunningSupervisor(record)) << "stopping the agent ended the step";

  const std::size_t before = controller_.registrationCount();
  startAgent();
  auto registration = controller_.awaitRegistration(before);
  ASSERT_TRUE(registration.has_value());
  ASSERT_EQ(registration->running_steps_size(), 1);
  EXPECT_EQ(registration->running_steps(0).job_id(), 15u);
  EXPECT_EQ(registration->running_steps(0).step_id(), kBatch);
  // It knows the step's run again (from the step record), and says so to the controller.
  ASSERT_TRUE(registration->running_steps(0).has_restart_count());
  EXPECT_EQ(registration->running_steps(0).restart_count(), 3u);
  auto st = signal(15, 0, true, 2u);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND) << st.error_message();
  EXPECT_FALSE(processGone(pid));

  // The new agent supervises it: it can cancel it.
  st = signal(15, 0, true, 3u);
  ASSERT_TRUE(st.ok()) << st.error_message();
  auto event = controller_.awaitEvent(15);
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->kind(), v1::StepEventRequest::FINISHED);
  // Only this test process (its parent here; init in a real restart) can reap it.
  EXPECT_EQ(::waitpid(pid, nullptr, 0), pid);
}

// The supervisor is forked by the launcher, yet is the agent's own child in its own session,
// with the launcher's command line (which names the spool dir, as local-cluster looks for).
TEST_F(StepLaunchTest, SupervisorsAreForkedByTheLauncherAsTheAgentsChildren) {
  const pid_t launcher = launcherPid(agent_->spoolDir());
  ASSERT_GT(launcher, 0) << "no drover-stepd --launcher under the agent";
  const pid_t pid = launchWaitingStep(21);
  ASSERT_GT(pid, 0);
  EXPECT_EQ(parentOf(pid), ::getpid());
  EXPECT_EQ(::getsid(pid), pid);
  EXPECT_EQ(commandLine(pid), commandLine(launcher));
  ASSERT_TRUE(signal(21, 0, true).ok());
  auto event = controller_.awaitEvent(21);
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->kind(), v1::StepEventRequest::FINISHED);
  EXPECT_TRUE(waitUntil([&] { return processGone(pid); })) << "the agent did not reap it";
}

// A launcher that died is started again at the next launch; the step runs either way.
TEST_F(StepLaunchTest, KilledLauncherIsReplacedAndTheNextStepStillRuns) {
  const pid_t launcher = launcherPid(agent_->spoolDir());
  ASSERT_GT(launcher, 0);
  ASSERT_EQ(::kill(launcher, SIGKILL), 0);
  // The agent reaps it on SIGCHLD (or finds it dead when it sends the next order).
  v1::LaunchStepReply rep;
  auto st = launch(batch(22, "#!/bin/sh\nexit 4\n"), &rep);
  ASSERT_TRUE(st.ok()) << st.error_message();
  auto event = controller_.awaitEvent(22);
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->exit_code(), 4);
  EXPECT_TRUE(waitUntil([&] { return processGone(launcher); })) << "the dead launcher stays";
  const pid_t next = launcherPid(agent_->spoolDir());
  EXPECT_GT(next, 0);
  EXPECT_NE(next, launcher);
}

// --no-stepd-launcher: drover-stepd is exec'd for each step, as before the launcher.
TEST_F(StepLaunchTest, WithoutTheLauncherSupervisorsAreExeced) {
  stopAgent();
  startAgent(/*use_launcher=*/false);
  EXPECT_EQ(launcherPid(agent_->spoolDir()), 0);
  const pid_t pid = launchWaitingStep(23);
  ASSERT_GT(pid, 0);
  EXPECT_EQ(parentOf(pid), ::getpid());
  EXPECT_EQ(commandLine(pid).find("--launcher"), std::string::npos) << commandLine(pid);
  EXPECT_NE(commandLine(pid).find("--report-to"), std::string::npos) << commandLine(pid);
  ASSERT_TRUE(signal(23, 0, true).ok());
  ASSERT_TRUE(controller_.awaitEvent(23).has_value());
}

// A drover-stepd installed while the agent runs (a package upgrade renames the new file into
// place) runs the next step: the agent starts a new launcher from it, as an exec would.
TEST_F(StepLaunchTest, NewStepdOnDiskGetsANewLauncher) {
  const fs::path stepd = dir_ / "bin" / "drover-stepd";
  fs::create_directories(stepd.parent_path());
  fs::copy_file(DROVER_STEPD_PATH, stepd);
  stopAgent();
  startAgent(/*use_launcher=*/true, stepd.string());
  const pid_t first = launcherPid(agent_->spoolDir());
  ASSERT_GT(first, 0);
  v1::LaunchStepReply rep;
  ASSERT_TRUE(launch(batch(24, "#!/bin/sh\nexit 0\n"), &rep).ok());
  ASSERT_TRUE(controller_.awaitEvent(24).has_value());
  EXPECT_EQ(launcherPid(agent_->spoolDir()), first) << "an unchanged binary keeps its launcher";

  fs::copy_file(DROVER_STEPD_PATH, dir_ / "bin" / "drover-stepd.new");
  fs::rename(dir_ / "bin" / "drover-stepd.new", stepd);
  ASSERT_TRUE(launch(batch(25, "#!/bin/sh\nexit 6\n"), &rep).ok());
  auto event = controller_.awaitEvent(25);
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->exit_code(), 6);
  const pid_t second = launcherPid(agent_->spoolDir());
  EXPECT_GT(second, 0);
  EXPECT_NE(second, first);
  EXPECT_TRUE(processGone(first));
}

}  // namespace
}  // namespace drover::agent
