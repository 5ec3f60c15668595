#include "agent/agent.h"

#include <grpcpp/grpcpp.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <csignal>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

#include "agent/resources.h"
#include "common/log.h"
#include "drover/v1/agent.grpc.pb.h"
#include "drover/v1/agent_control.grpc.pb.h"
#include "rpc/client.h"
#include "rpc/method_recorder.h"
#include "rpc/server_auth.h"

namespace drover::agent {
namespace {

constexpr const char* kVersion = "0.1.0";

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::int64_t bootTime() {
  std::istringstream in(readFile("/proc/stat"));
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

class AgentService final : public v1::Agent::Service {
 public:
  AgentService(std::string node_name, std::string munge_socket)
      : node_name_(std::move(node_name)), munge_socket_(std::move(munge_socket)) {}

  grpc::Status Ping(grpc::ServerContext* ctx, const v1::AgentPingRequest* req,
                    v1::AgentPingReply* rep) override {
    rpc::Caller caller;
    if (auto s = rpc::authenticate(*ctx, *req, munge_socket_, &caller); !s.ok()) return s;
    rep->set_node_name(node_name_);   // immutable after start: no loop needed
    return grpc::Status::OK;
  }

 private:
  const std::string node_name_;
  const std::string munge_socket_;
};

}  // namespace

struct AgentDaemon::Impl {
  config::ClusterConfig cfg;
  config::NodeConfig node;
  AgentOptions opts;
  std::uint16_t port = 0;
  std::int64_t start_time = unixNow();
  rpc::ClientOptions client_opts;
  std::unique_ptr<v1::AgentControl::Stub> stub;
  std::unique_ptr<AgentService> service;
  std::unique_ptr<grpc::Server> server;

  boost::asio::io_context io;
  boost::asio::steady_timer register_timer{io};
  boost::asio::steady_timer heartbeat_timer{io};
  boost::asio::signal_set signals{io, SIGTERM, SIGINT, SIGHUP};
  std::promise<int> stop;
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
    req.set_cpu_load(parseLoadavg(readFile("/proc/loadavg")));
    auto avail = parseMeminfoMb(readFile("/proc/meminfo"), "MemAvailable");
    req.set_free_memory_mb(avail ? *avail : 0);
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
      log().info("signal {}: shutting down", sig);
      stop.set_value(0);
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
  impl->service = std::make_unique<AgentService>(node->name, cfg.munge_socket);

  const std::string listen =
      (node->address.empty() ? std::string("0.0.0.0") : node->address) + ":" +
      std::to_string(impl->port);
  grpc::ServerBuilder builder;
  int bound = 0;
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials(), &bound);
  builder.RegisterService(impl->service.get());
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> icpt;
  icpt.push_back(rpc::methodRecorderFactory());
  builder.experimental().SetInterceptorCreators(std::move(icpt));
  impl->server = builder.BuildAndStart();
  if (!impl->server || bound == 0) {
    return makeError("cannot listen on " + listen + " (address in use?)");
  }
  impl->opts = std::move(opts);
  impl->cfg = std::move(cfg);
  drover::log::get("agent")->info("droverd for node {} listening on {}", impl->node.name, listen);
  return std::unique_ptr<AgentDaemon>(new AgentDaemon(std::move(impl)));
}

int AgentDaemon::run() {
  Impl& m = *impl_;
  auto stopped = m.stop.get_future();
  m.waitSignal();
  boost::asio::post(m.io, [&m] { m.tryRegister(); });
  std::thread loop([&m] { m.io.run(); });
  const int code = stopped.get();
  m.server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  m.io.stop();
  loop.join();
  return code;
}

}  // namespace drover::agent
