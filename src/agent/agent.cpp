#include "agent/agent.h"

#include <grpcpp/grpcpp.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <csignal>
#include <future>
#include <sstream>
#include <thread>

#include "agent/file_block_writer.h"
#include "common/bcast_compress.h"
#include "agent/resources.h"
#include "agent/shared_port.h"
#include "agent/step_calls.h"
#include "agent/step_spawn.h"
#include "agent/step_table.h"
#include "common/kernel_file.h"
#include "common/log.h"
#include "common/step_usage_socket.h"
#include "drover/v1/agent.grpc.pb.h"
#include "drover/v1/agent_control.grpc.pb.h"
#include "rpc/client.h"
#include "rpc/method_recorder.h"
#include "rpc/server_auth.h"
#include "wire/method_table.h"

namespace drover::agent {
namespace {

constexpr const char* kVersion = "0.1.0";

std::int64_t bootTime() {
  std::istringstream in(readKernelFile("/proc/stat"));
  std::string key;
  while (in >> key) {
    if (key == "btime") {
      std::int64_t t = 0;
      in >> t;
      return t;
    }
  }
  return 0;
}

std::int64_t unixNow() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The controller's address as a number: drover-stepd is linked statically and must not
// resolve host names itself (glibc's NSS does not run in static binaries). Unresolvable names
// are passed on as they are.
std::string numericHost(const std::string& host) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0 || found == nullptr) return host;
  char text[INET6_ADDRSTRLEN] = {};
  std::string out = host;
  if (::getnameinfo(found->ai_addr, found->ai_addrlen, text, sizeof text, nullptr, 0,
                    NI_NUMERICHOST) == 0) {
    out = found->ai_family == AF_INET6 ? "[" + std::string(text) + "]" : std::string(text);
  }
  ::freeaddrinfo(found);
  return out;
}

// How long a handler waits for the io thread (it only spawns or signals a process).
constexpr auto kLoopWait = std::chrono::seconds(30);

grpc::Status toStatus(const wire::Outcome& outcome) {
  if (outcome.code == 0) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(outcome.code), outcome.message);
}

class AgentService final : public v1::Agent::Service {
 public:
  AgentService(std::string node_name, std::string munge_socket, boost::asio::io_context& io,
               StepTable& steps)
      : node_name_(std::move(node_name)),
        munge_socket_(std::move(munge_socket)),
        io_(io),
        steps_(steps) {}

  grpc::Status Ping(grpc::ServerContext* ctx, const v1::AgentPingRequest* req,
                    v1::AgentPingReply* rep) override {
    rpc::Caller caller;
    if (auto s = rpc::authenticate(*ctx, *req, munge_socket_, &caller); !s.ok()) return s;
    rep->set_node_name(node_name_);   // immutable after start: no loop needed
    return grpc::Status::OK;
  }

  // The controller sends these over the frame transport (agent/step_calls.h); over gRPC they
  // serve API clients and tests alike.
  grpc::Status LaunchStep(grpc::ServerContext* ctx, const v1::LaunchStepRequest* req,
                          v1::LaunchStepReply* rep) override {
    if (auto s = authenticateController(*ctx, *req); !s.ok()) return s;
    // The closure owns its copies: after a timeout the handler returns before it runs.
    auto done = onLoop([this, request = *req] {
      v1::LaunchStepReply reply;
      wire::Outcome outcome = launchStep(steps_, node_name_, request, &reply);
      return std::make_pair(outcome, reply);
    });
    if (!done) return *done.error_status;
    *rep = done.value->second;
    return toStatus(done.value->first);
  }

  grpc::Status SignalStep(grpc::ServerContext* ctx, const v1::SignalStepRequest* req,
                          v1::SignalStepReply*) override {
    if (auto s = authenticateController(*ctx, *req); !s.ok()) return s;
    auto outcome = onLoop([this, request = *req] { return signalStep(steps_, request); });
    if (!outcome) return *outcome.error_status;
    return toStatus(*outcome.value);
  }

  // sstat: asks the step's supervisor on its usage socket, off the io thread (the supervisor
  // answers within its poll loop; a stuck one costs this call, not the agent).
  grpc::Status GetStepUsage(grpc::ServerContext* ctx, const v1::GetStepUsageRequest* req,
                            v1::GetStepUsageReply* rep) override {
    if (auto s = authenticateController(*ctx, *req); !s.ok()) return s;
    const StepKey key{req->step().job_id(), req->step().step_id()};
    auto found = onLoop([this, key] { return steps_.find(key); });
    if (!found) return *found.error_status;
    const std::string name = "step " + std::to_string(key.job_id) + "." +
                             std::to_string(key.step_id) + " on node " + node_name_;
    const std::optional<StepRecord>& record = *found.value;
    const RunNumber asked =
        req->step().has_restart_count() ? RunNumber(req->step().restart_count()) : std::nullopt;
    if (!record || compareRuns(asked, record->run) == RunOrder::kEarlier ||
        compareRuns(asked, record->run) == RunOrder::kLater) {
      return grpc::Status(grpc::StatusCode::NOT_FOUND, name + " does not run");
    }
    auto bytes = askStepUsage(
        stepUsageSocketName(steps_.spoolDir(), node_name_, key.job_id, key.step_id, record->run),
        record->pid,
        kUsageWaitMs);
    if (!bytes) return grpc::Status(grpc::StatusCode::UNAVAILABLE, name + ": " + bytes.error());
    if (!rep->mutable_usage()->ParseFromString(*bytes)) {
      return grpc::Status(grpc::StatusCode::INTERNAL,
                          name + ": the supervisor's usage reply does not parse");
    }
    return grpc::Status::OK;
  }

  // sbcast: one block, written as the job's user in a child (agent/file_block_writer.h), on
  // this gRPC thread: the io thread never waits on a disk.
  grpc::Status WriteFileBlock(grpc::ServerContext* ctx, const v1::WriteFileBlockRequest* req,
                              v1::WriteFileBlockReply* reply) override {
    if (auto s = authenticateController(*ctx, *req); !s.ok()) return s;
    if (req->path().empty() || req->path().front() != '/') {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          "broadcast destination '" + req->path() + "' is not absolute");
    }
    FileBlock block;
    block.uid = req->uid();
    block.gid = req->gid();
    block.groups = userGroups(req->user(), req->gid());
    block.path = req->path();
    block.offset = req->offset();
    // sbcast -C: expanded here, so the user's file gets the bytes the source had.
    std::string expanded;
    block.data = req->data();
    if (req->compression() != v1::BCAST_COMPRESS_NONE) {
      auto raw = expandBlock(static_cast<BcastCodec>(req->compression()), req->data(),
                             req->raw_size());
      if (!raw) {
        return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                            "broadcast block for '" + req->path() + "': " + raw.error());
      }
      expanded = std::move(*raw);
      block.data = expanded;
    }
    block.last = req->last();
    block.force = req->force();
    block.preserve = req->preserve();
    block.mode = req->mode();
    block.atime = req->atime();
    block.mtime = req->mtime();
    block.make_dir = req->make_dir();
    reply->set_error_number(writeFileBlockAsUser(block));
    return grpc::Status::OK;
  }

 private:
  // A supervisor samples its tasks' /proc entries before it answers: milliseconds, unless the
  // node is swamped.
  static constexpr int kUsageWaitMs = 5000;

  grpc::Status authenticateController(const grpc::ServerContext& ctx,
                                      const google::protobuf::Message& req) {
    rpc::Caller caller;
    if (auto s = rpc::authenticate(ctx, req, munge_socket_, &caller); !s.ok()) return s;
    return toStatus(controllerOnly(caller.uid, node_name_));
  }

  template <typename T>
  struct LoopResult {
    std::optional<T> value;
    std::optional<grpc::Status> error_status;
    explicit operator bool() const { return value.has_value(); }
  };

  // Runs fn on the io thread, which owns the step table, and waits for its result.
  template <typename Fn>
  auto onLoop(Fn fn) -> LoopResult<decltype(fn())> {
    using T = decltype(fn());
    auto done = std::make_shared<std::promise<T>>();
    auto result = done->get_future();
    boost::asio::post(io_, [done, fn]() mutable { done->set_value(fn()); });
    LoopResult<T> out;
    if (result.wait_for(kLoopWait) != std::future_status::ready) {
      out.error_status = grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                      "node " + node_name_ + "'s agent is busy or stopping");
      return out;
    }
    out.value.emplace(result.get());
    return out;
  }

  const std::string node_name_;
  const std::string munge_socket_;
  boost::asio::io_context& io_;
  StepTable& steps_;
};

void addSteps(const StepTable& table,
              google::protobuf::RepeatedPtrField<v1::StepId>* out) {
  for (const auto& record : table.running()) {
    auto* id = out->Add();
    id->set_job_id(record.key.job_id);
    id->set_step_id(record.key.step_id);
    if (record.run) id->set_restart_count(*record.run);
  }
}

}  // namespace

struct AgentDaemon::Impl {
  config::ClusterConfig cfg;
  config::NodeConfig node;
  AgentOptions opts;
  std::uint16_t port = 0;
  std::int64_t start_time = unixNow();
  rpc::ClientOptions client_opts;
  std::unique_ptr<v1::AgentControl::Stub> stub;
  std::unique_ptr<StepTable> steps;
  std::unique_ptr<AgentService> service;
  std::unique_ptr<grpc::Server> server;

  boost::asio::io_context io;
  // After io: closed before the io_context goes.
  std::unique_ptr<wire::MethodTable> frame_methods;
  std::unique_ptr<SharedPort> listener;   // the node's port: gRPC and frames
  boost::asio::signal_set child_signals{io, SIGCHLD};
  boost::asio::steady_timer register_timer{io};
  boost::asio::steady_timer heartbeat_timer{io};
  boost::asio::signal_set signals{io, SIGTERM, SIGINT, SIGHUP};
  std::promise<int> stop;
  bool stopping = false;
  std::chrono::milliseconds backoff{200};
  std::uint32_t heartbeat_interval_s = 10;
  bool registered = false;

  spdlog::logger& log() { return *drover::log::get("agent"); }

  v1::RegisterRequest makeRegistration() {
    HostResources r = opts.fake_resources ? configuredResources(node) : detectResources(node);
    if (opts.report_memory_mb) r.real_memory_mb = *opts.report_memory_mb;
    v1::RegisterRequest req;
    req.set_node_name(node.name);
    req.set_address(node.address);
    req.set_port(port);
    auto* res = req.mutable_resources();
    res->set_cpus(r.cpus);
    res->set_sockets(r.sockets);
    res->set_cores_per_socket(r.cores_per_socket);
    res->set_threads_per_core(r.threads_per_core);
    res->set_real_memory_mb(r.real_memory_mb);
    for (const auto& g : r.gpus) {
      auto* pg = res->add_gpus();
      pg->set_index(g.index);
      pg->set_type(g.type);
      pg->set_file(g.file);
    }
    req.set_version(kVersion);
    struct utsname u {};
    if (uname(&u) == 0) {
      req.set_os(std::string(u.sysname) + " " + u.release + " " + u.version);
      req.set_arch(u.machine);
      req.set_hostname(u.nodename);
    }
    req.set_boot_time(bootTime());
    req.set_start_time(start_time);
    steps->reap();
    addSteps(*steps, req.mutable_running_steps());
    return req;
  }

  void tryRegister() {
    v1::RegisterRequest req = makeRegistration();
    v1::RegisterReply rep;
    grpc::ClientContext ctx;
    auto prepared = rpc::prepareCall(ctx, "/drover.v1.AgentControl/Register", req, client_opts);
    grpc::Status st = prepared ? stub->Register(&ctx, req, &rep)
                               : grpc::Status(grpc::StatusCode::UNAUTHENTICATED, prepared.error());
    if (!st.ok()) {
      log().warn("registration of {} with {} failed: {}; retrying in {} ms", node.name,
                 client_opts.target, rpc::describeFailure(st, client_opts), backoff.count());
      register_timer.expires_after(backoff);
      backoff = std::min<std::chrono::milliseconds>(backoff * 2, std::chrono::seconds(10));
      register_timer.async_wait([this](const boost::system::error_code& ec) {
        if (!ec) tryRegister();
      });
      return;
    }
    backoff = std::chrono::milliseconds(200);
    registered = true;
    heartbeat_interval_s = std::max<std::uint32_t>(1, rep.heartbeat_interval_s());
    log().info("node {} registered with cluster {} at {} (cpus={} memory={}M gpus={})",
               node.name, rep.cluster_name(), client_opts.target, req.resources().cpus(),
               req.resources().real_memory_mb(), req.resources().gpus_size());
    scheduleHeartbeat();
  }

  void scheduleHeartbeat() {
    heartbeat_timer.expires_after(std::chrono::seconds(heartbeat_interval_s));
    heartbeat_timer.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) sendHeartbeat();
    });
  }

  void sendHeartbeat() {
    v1::HeartbeatRequest req;
    req.set_node_name(node.name);
    req.set_cpu_load(parseLoadavg(readKernelFile("/proc/loadavg")));
    auto avail = parseMeminfoMb(readKernelFile("/proc/meminfo"), "MemAvailable");
    req.set_free_memory_mb(avail ? *avail : 0);
    steps->reap();
    addSteps(*steps, req.mutable_running_steps());
    v1::HeartbeatReply rep;
    grpc::ClientContext ctx;
    auto prepared = rpc::prepareCall(ctx, "/drover.v1.AgentControl/Heartbeat", req, client_opts);
    grpc::Status st = prepared ? stub->Heartbeat(&ctx, req, &rep)
                               : grpc::Status(grpc::StatusCode::UNAUTHENTICATED, prepared.error());
    if (!st.ok()) {
      log().warn("heartbeat to {} failed: {}", client_opts.target,
                 rpc::describeFailure(st, client_opts));
      scheduleHeartbeat();
      return;
    }
    if (rep.reregister()) {
      log().info("controller asks node {} to register again", node.name);
      registered = false;
      tryRegister();
      return;
    }
    scheduleHeartbeat();
  }

  void waitSignal() {
    signals.async_wait([this](const boost::system::error_code& ec, int sig) {
      if (ec) return;
      if (sig == SIGHUP) {
        waitSignal();
        return;
      }
      log().info("signal {}: shutting down (running steps keep running)", sig);
      finish(0);
    });
  }

  void finish(int code) {
    if (stopping) return;
    stopping = true;
    stop.set_value(code);
  }

  // Reaps the supervisors this agent started as they end, so none stays a zombie.
  void waitChildren() {
    child_signals.async_wait([this](const boost::system::error_code& ec, int) {
      if (ec) return;
      steps->reapChildren();
      waitChildren();
    });
  }
};

AgentDaemon::AgentDaemon(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
AgentDaemon::~AgentDaemon() = default;

Result<std::unique_ptr<AgentDaemon>> AgentDaemon::create(config::ClusterConfig cfg,
                                                         AgentOptions opts) {
  auto impl = std::make_unique<Impl>();
  if (opts.node_name.empty()) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    opts.node_name = host;
    if (auto dot = opts.node_name.find('.'); dot != std::string::npos) {
      opts.node_name.resize(dot);
    }
  }
  const config::NodeConfig* node = cfg.findNode(opts.node_name);
  if (node == nullptr) {
    return makeError("node '" + opts.node_name + "' is not in " + cfg.source_path +
                     " (give its name with --node-name)");
  }
  impl->node = *node;
  impl->port = opts.port != 0 ? opts.port
                              : (node->port != 0 ? node->port : config::kDefaultAgentPort);
  impl->client_opts.target = cfg.controller.host + ":" + std::to_string(cfg.controller.port);
  impl->client_opts.munge_socket = cfg.munge_socket;
  impl->client_opts.timeout_ms = static_cast<int>(cfg.timeouts.message_s) * 1000;
  impl->heartbeat_interval_s = cfg.timeouts.heartbeat_interval_s;
  impl->stub = v1::AgentControl::NewStub(rpc::makeChannel(impl->client_opts.target));
  StepTableOptions step_opts;
  step_opts.spool_dir = !opts.spool_dir.empty()
                            ? opts.spool_dir
                            : defaultSpoolDir(cfg.controller.state_dir, node->name);
  step_opts.stepd_path = !opts.stepd_path.empty() ? opts.stepd_path
                                                  : ownExecutableDir() + "/drover-stepd";
  step_opts.node_name = node->name;
  step_opts.use_launcher = opts.use_launcher;
  step_opts.munge_socket = cfg.munge_socket;
  step_opts.report_to =
      numericHost(cfg.controller.host) + ":" + std::to_string(cfg.controller.cliPort());
  impl->steps = std::make_unique<StepTable>(std::move(step_opts));
  if (auto started = impl->steps->start(); !started) return makeError(started.error());
  impl->service = std::make_unique<AgentService>(node->name, cfg.munge_socket, impl->io,
                                                 *impl->steps);

  // The gRPC server listens on no port of its own: the shared port hands it its connections.
  grpc::ServerBuilder builder;
  builder.RegisterService(impl->service.get());
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> icpt;
  icpt.push_back(rpc::methodRecorderFactory());
  builder.experimental().SetInterceptorCreators(std::move(icpt));
  impl->server = builder.BuildAndStart();
  if (!impl->server) return makeError("cannot start the agent's gRPC server");
  impl->frame_methods = std::make_unique<wire::MethodTable>(cfg.munge_socket);
  addFrameMethods(*impl->frame_methods, *impl->steps, node->name);
  const std::string host = numericHost(node->address.empty() ? "0.0.0.0" : node->address);
  const std::uint16_t listen_port = opts.any_free_port ? 0 : impl->port;
  try {
    impl->listener = std::make_unique<SharedPort>(
        impl->io, host, listen_port, impl->server.get(),
        [methods = impl->frame_methods.get()](v1::FrameRequest frame, wire::Responder respond) {
          methods->dispatch(std::move(frame), std::move(respond));
        });
  } catch (const std::exception& e) {
    return makeError("cannot listen on " + host + ":" + std::to_string(listen_port) + " (" +
                     e.what() + ")");
  }
  impl->port = impl->listener->port();
  impl->opts = std::move(opts);
  impl->cfg = std::move(cfg);
  drover::log::get("agent")->info("droverd for node {} listening on port {}, spool {}",
                                  impl->node.name, impl->port, impl->steps->spoolDir());
  return std::unique_ptr<AgentDaemon>(new AgentDaemon(std::move(impl)));
}

int AgentDaemon::run() {
  Impl& m = *impl_;
  auto stopped = m.stop.get_future();
  m.waitSignal();
  m.waitChildren();
  boost::asio::post(m.io, [&m] { m.tryRegister(); });
  std::thread loop([&m] { m.io.run(); });
  const int code = stopped.get();
  boost::asio::post(m.io, [&m] { m.listener->stop(); });
  m.server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  m.io.stop();
  loop.join();
  return code;
}

void AgentDaemon::requestStop() {
  boost::asio::post(impl_->io, [m = impl_.get()] { m->finish(0); });
}

std::uint16_t AgentDaemon::port() const { return impl_->port; }

const std::string& AgentDaemon::spoolDir() const { return impl_->steps->spoolDir(); }

}  // namespace drover::agent
