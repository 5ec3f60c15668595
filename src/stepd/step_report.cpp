#include "stepd/step_report.h"

#include <algorithm>
#include <cstdio>
#include <thread>

namespace drover::stepd {

drover::v1::StepEventRequest stepEvent(const drover::v1::LaunchStepRequest& request,
                                       const StepOutcome& outcome, const std::string& node) {
  drover::v1::StepEventRequest event;
  *event.mutable_step() = request.step();
  event.set_node(node);
  event.set_kind(outcome.started ? drover::v1::StepEventRequest::FINISHED
                                 : drover::v1::StepEventRequest::FAILED_TO_START);
  event.set_exit_code(outcome.exit_code);
  event.set_exit_signal(outcome.exit_signal);
  event.set_timed_out(outcome.timed_out);
  event.set_out_of_memory(outcome.out_of_memory);
  event.set_error(outcome.start_error);
  event.set_user_cpu_ms(outcome.user_cpu_ms);
  event.set_system_cpu_ms(outcome.system_cpu_ms);
  event.set_max_rss_kb(outcome.max_rss_kb);
  event.set_ave_rss_kb(outcome.ave_rss_kb);
  event.set_start_time(outcome.start_time);
  event.set_end_time(outcome.end_time);
  for (const auto& f : outcome.tasks) setTaskUsage(event.add_tasks(), f, node);
  return event;
}

void setTaskUsage(drover::v1::TaskUsage* out, const TaskFigures& f, const std::string& node) {
  out->set_task(f.task);
  out->set_node(node);
  out->set_vmsize_kb(f.vmsize_kb);
  out->set_rss_kb(f.rss_kb);
  out->set_pages(f.pages);
  out->set_cpu_ms(f.cpu_ms);
  out->set_cpu_freq_khz(f.cpu_freq_khz);
  out->set_read_bytes(f.read_bytes);
  out->set_write_bytes(f.write_bytes);
}

Result<wire::ClientOptions> reportTarget(const std::string& host_port,
                                         const std::string& munge_socket) {
  const auto colon = host_port.rfind(':');
  auto bad = [&] {
    return makeError("report address '" + host_port +
                     "' is not HOST:PORT (the controller's cli_port, e.g. 127.0.0.1:6818)");
  };
  if (colon == std::string::npos || colon == 0 || colon + 1 == host_port.size()) return bad();
  std::string host = host_port.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  unsigned long port = 0;
  for (char c : host_port.substr(colon + 1)) {
    if (c < '0' || c > '9') return bad();
    port = port * 10 + static_cast<unsigned long>(c - '0');
    if (port > 65535) return bad();
  }
  if (port == 0) return bad();
  wire::ClientOptions opts;
  opts.host = host;
  opts.port = static_cast<std::uint16_t>(port);
  opts.munge_socket = munge_socket;
  opts.timeout_ms = 5000;
  return opts;
}

bool reportStepEvent(const drover::v1::StepEventRequest& event, const wire::ClientOptions& target,
                     std::chrono::seconds give_up) {
  auto delay = std::chrono::milliseconds(100);
  const auto end = std::chrono::steady_clock::now() + give_up;
  for (;;) {
    drover::v1::StepEventReply reply;
    wire::CallError error;
    if (wire::call(target, kStepEventMethod, event, &reply, &error)) return true;
    std::fprintf(stderr, "drover-stepd: report failed: %s\n",
                 wire::describe(error, target).c_str());
    if (std::chrono::steady_clock::now() + delay >= end) return false;
    std::this_thread::sleep_for(delay);
    delay = std::min<std::chrono::milliseconds>(delay * 2, std::chrono::seconds(30));
  }
}

}  // namespace drover::stepd
