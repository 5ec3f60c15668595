#include "ctld/server.h"

#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <csignal>
#include <future>
#include <thread>

#include "common/log.h"
#include "ctld/ctld_state.h"
#include "ctld/frame_methods.h"
#include "ctld/handlers.h"
#include "ctld/job_service.h"
#include "ctld/name_stage.h"
#include "ctld/reservation_service.h"
#include "ctld/services.h"
#include "ctld/state_store.h"
#include "rpc/method_recorder.h"
#include "wire/frame_server.h"
#include "wire/method_table.h"

namespace drover::ctld {

struct CtldServer::Impl {
  boost::asio::io_context io;
  std::unique_ptr<StateStore> store;
  std::unique_ptr<CtldState> state;
  std::unique_ptr<JobService> jobs;
  std::unique_ptr<ReservationService> reservations;
  ControllerHandlers handlers;
  std::unique_ptr<grpc::Service> controller_service;
  std::unique_ptr<grpc::Service> agent_service;
  std::unique_ptr<grpc::Server> server;
  std::unique_ptr<wire::MethodTable> frame_methods;
  std::unique_ptr<wire::FrameServer> frame_server;   // the CLIs' transport, on the loop
  boost::asio::steady_timer timer{io};
  boost::asio::signal_set signals{io, SIGHUP, SIGTERM, SIGINT};
  std::promise<int> stop;
  // Where the name stage (name_stage.h) waits on NSS: four threads, so that one name a slow
  // directory times out on does not hold up the others. Declared last, so destroyed first: its
  // destructor waits for a lookup under way, which writes to `state` and posts to `io`.
  boost::asio::thread_pool name_lookups{4};

  void armTimer() {
    const auto& t = state->config().timeouts;
    // Check often enough to notice a silent node within ~20% of the timeout, at most every 5s.
    const auto period = std::chrono::milliseconds(
        std::clamp<std::int64_t>(static_cast<std::int64_t>(t.node_down_s) * 200, 200, 5000));
    timer.expires_after(period);
    timer.async_wait([this](const boost::system::error_code& ec) {
      if (ec) return;
      state->checkTimeouts();
      armTimer();
    });
  }

  void waitSignal() {
    signals.async_wait([this](const boost::system::error_code& ec, int sig) {
      if (ec) return;
      if (sig == SIGHUP) {
        drover::log::get("ctld")->info("SIGHUP: reloading {}", state->config().source_path);
        if (state->reconfigure("")) jobs->configChanged();
        waitSignal();
        return;
      }
      drover::log::get("ctld")->info("signal {}: shutting down", sig);
      stop.set_value(0);
    });
  }
};

namespace {

// What the state thread reads before any RPC brought it (the loop does not run yet, so these
// lookups hold up nobody): root's and the controller's own user (sdiag counts the agents' calls
// under them), and who set the node reasons restored from the state store (their events' uids).
void primeNames(CtldState& state) {
  NameQuery query;
  query.uids = {0, static_cast<std::uint32_t>(getuid())};
  for (const auto& node : state.config().nodes) {
    const NodeRecord* record = state.registry().find(node.name);
    if (record != nullptr && !record->reason_user.empty()) query.user_names.push_back(record->reason_user);
  }
  state.names().resolve(query);
}

}  // namespace

CtldServer::CtldServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CtldServer::~CtldServer() = default;

Result<std::unique_ptr<CtldServer>> CtldServer::create(config::ClusterConfig cfg,
                                                       const Clock& clock) {
  auto impl = std::make_unique<Impl>();
  auto store = StateStore::open(cfg.controller.state_dir);
  if (!store) return makeError(store.error());
  impl->store = std::move(store).value();
  const std::string target = cfg.controller.host + ":" + std::to_string(cfg.controller.port);
  const std::string munge_socket = cfg.munge_socket;
  const auto self = NameSource::system().user_by_uid(getuid());
  impl->state = std::make_unique<CtldState>(std::move(cfg), clock, impl->store.get(),
                                            self ? self->name : std::to_string(getuid()));
  if (auto s = impl->state->init(); !s) return makeError(s.error());
  primeNames(*impl->state);
  auto jobs = JobService::create(impl->io, *impl->state, clock);
  if (!jobs) return makeError(jobs.error());
  impl->jobs = std::move(jobs).value();
  impl->state->setChangeListener(
      [js = impl->jobs.get()](const StateChange& change) { js->nodeChanged(change); });
  impl->state->setUsageSource([js = impl->jobs.get()] { return js->usage(); });
  impl->handlers = makeControllerHandlers(*impl->state, impl->jobs.get());
  auto reservations = ReservationService::create(impl->io, clock, *impl->state, *impl->jobs,
                                                  *impl->store);
  if (!reservations) return makeError(reservations.error());
  impl->reservations = std::move(reservations).value();
  impl->reservations->install(impl->handlers);
  impl->state->diag().setGettimeofdayLatency(gettimeofdayLatencyUs());
  resolveNamesFirst(impl->handlers, impl->state->names(), impl->io, impl->name_lookups);
  countCalls(impl->handlers, impl->state->diag());

  impl->controller_service = makeControllerService(impl->io, impl->handlers, munge_socket);
  impl->agent_service =
      makeAgentControlService(impl->io, *impl->state, impl->jobs.get(), munge_socket);
  grpc::ServerBuilder builder;
  int bound_port = 0;
  builder.AddListeningPort(target, grpc::InsecureServerCredentials(), &bound_port);
  builder.RegisterService(impl->controller_service.get());
  builder.RegisterService(impl->agent_service.get());
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> icpt;
  icpt.push_back(rpc::methodRecorderFactory());
  builder.experimental().SetInterceptorCreators(std::move(icpt));
  impl->server = builder.BuildAndStart();
  if (!impl->server || bound_port == 0) {
    return makeError("cannot listen on " + target +
                     " (address in use, or not an address of this host?)");
  }
  const auto& ctl = impl->state->config().controller;
  impl->frame_methods = std::make_unique<wire::MethodTable>(munge_socket);
  addFrameMethods(*impl->frame_methods, impl->handlers);
  addAgentFrameMethods(*impl->frame_methods, impl->jobs.get(), &impl->state->diag());   // drover-stepd's StepEvent
  try {
    impl->frame_server = std::make_unique<wire::FrameServer>(
        impl->io, ctl.host, ctl.cliPort(),
        [table = impl->frame_methods.get()](v1::FrameRequest req, wire::Responder respond) {
          table->dispatch(std::move(req), std::move(respond));
        });
  } catch (const std::exception& e) {
    return makeError("cannot listen on " + ctl.host + ":" + std::to_string(ctl.cliPort()) +
                     " (controller.cli_port): " + e.what());
  }
  drover::log::get("ctld")->info(
      "droverctld for cluster {} listening on {} (gRPC) and {}:{} (CLIs), state in {}",
      impl->state->config().cluster_name, target, ctl.host, ctl.cliPort(), impl->store->path());
  return std::unique_ptr<CtldServer>(new CtldServer(std::move(impl)));
}

int CtldServer::run() {
  Impl& m = *impl_;
  auto stopped = m.stop.get_future();
  m.armTimer();
  m.waitSignal();
  std::thread loop([&m] { m.io.run(); });
  const int code = stopped.get();
  // Handlers in flight still need the loop to answer them, so stop gRPC first.
  m.server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  m.io.stop();
  loop.join();
  m.jobs->shutdown();
  return code;
}

}  // namespace drover::ctld
