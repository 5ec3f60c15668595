// drover-stepd: the supervisor of one job step on one node. The agent starts it in a new
// session with the serialized LaunchStepRequest on stdin; it runs the step, then reports the
// outcome to the controller, retrying until the controller acknowledges it, so a restart of
// the agent or the controller never loses a step's end.
#include <getopt.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>
#include <thread>

#include "drover/v1/agent_control.grpc.pb.h"
#include "rpc/client.h"
#include "stepd/supervisor.h"

namespace {

struct Args {
  std::string spool_dir = "/var/spool/drover";
  std::string node_name;
  std::string munge_socket;
  std::string controller;     // overrides the request's
};

void usage() {
  std::cerr << "usage: drover-stepd --spool DIR --node NAME [--munge-socket PATH] "
               "[--controller HOST:PORT] < LaunchStepRequest\n";
}

drover::v1::StepEventRequest toEvent(const drover::v1::LaunchStepRequest& req,
                                     const drover::stepd::StepOutcome& out,
                                     const std::string& node) {
  drover::v1::StepEventRequest event;
  *event.mutable_step() = req.step();
  event.set_node(node);
  event.set_kind(out.started ? drover::v1::StepEventRequest::FINISHED
                             : drover::v1::StepEventRequest::FAILED_TO_START);
  event.set_exit_code(out.exit_code);
  event.set_exit_signal(out.exit_signal);
  event.set_timed_out(out.timed_out);
  event.set_out_of_memory(out.out_of_memory);
  event.set_error(out.start_error);
  event.set_user_cpu_ms(out.user_cpu_ms);
  event.set_system_cpu_ms(out.system_cpu_ms);
  event.set_max_rss_kb(out.max_rss_kb);
  event.set_ave_rss_kb(out.ave_rss_kb);
  event.set_start_time(out.start_time);
  event.set_end_time(out.end_time);
  return event;
}

// Retries with backoff for up to a day: the controller may be restarting.
bool report(const drover::v1::StepEventRequest& event, const std::string& target,
            const std::string& munge_socket) {
  drover::rpc::ClientOptions opts{target, munge_socket, 5000};
  auto stub = drover::v1::AgentControl::NewStub(drover::rpc::makeChannel(target));
  auto delay = std::chrono::milliseconds(100);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::hours(24);
  while (std::chrono::steady_clock::now() < give_up) {
    grpc::ClientContext ctx;
    auto prepared = drover::rpc::prepareCall(ctx, "/drover.v1.AgentControl/StepEvent", event, opts);
    if (prepared) {
      drover::v1::StepEventReply reply;
      auto status = stub->StepEvent(&ctx, event, &reply);
      if (status.ok()) return true;
      std::cerr << "drover-stepd: report failed: " << drover::rpc::describeFailure(status, opts)
                << "\n";
    } else {
      std::cerr << "drover-stepd: " << prepared.error() << "\n";
    }
    std::this_thread::sleep_for(delay);
    delay = std::min(delay * 2, std::chrono::milliseconds(30000));
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  static const option kOptions[] = {{"spool", required_argument, nullptr, 's'},
                                    {"node", required_argument, nullptr, 'n'},
                                    {"munge-socket", required_argument, nullptr, 'm'},
                                    {"controller", required_argument, nullptr, 'c'},
                                    {nullptr, 0, nullptr, 0}};
  int opt;
  while ((opt = getopt_long(argc, argv, "", kOptions, nullptr)) != -1) {
    switch (opt) {
      case 's': args.spool_dir = optarg; break;
      case 'n': args.node_name = optarg; break;
      case 'm': args.munge_socket = optarg; break;
      case 'c': args.controller = optarg; break;
      default: usage(); return 2;
    }
  }
  // Signals are blocked before gRPC (or anything else) can start a thread.
  drover::stepd::blockSupervisorSignals();

  std::string input((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  drover::v1::LaunchStepRequest request;
  if (!request.ParseFromString(input)) {
    std::cerr << "drover-stepd: cannot parse the launch request on stdin\n";
    return 2;
  }
  drover::stepd::SupervisorOptions opts;
  opts.spool_dir = args.spool_dir;
  opts.node_name = args.node_name;
  auto outcome = drover::stepd::runStep(request, opts);
  const std::string target = args.controller.empty() ? request.controller() : args.controller;
  if (target.empty()) return outcome.exit_code;
  return report(toEvent(request, outcome, args.node_name), target, args.munge_socket) ? 0 : 1;
}
