#include "jobspec/signal_spec.h"

#include <array>
#include <csignal>
#include <utility>

#include "common/ascii_case.h"
#include "jobspec/parse_util.h"

namespace drover::jobspec {

namespace {

constexpr std::array<std::pair<std::string_view, int>, 29> kSignals = {{
    {"HUP", SIGHUP},   {"INT", SIGINT},       {"QUIT", SIGQUIT},   {"ILL", SIGILL},
    {"TRAP", SIGTRAP}, {"ABRT", SIGABRT},     {"BUS", SIGBUS},     {"FPE", SIGFPE},
    {"KILL", SIGKILL}, {"USR1", SIGUSR1},     {"SEGV", SIGSEGV},   {"USR2", SIGUSR2},
    {"PIPE", SIGPIPE}, {"ALRM", SIGALRM},     {"TERM", SIGTERM},   {"STKFLT", SIGSTKFLT},
    {"CHLD", SIGCHLD}, {"CONT", SIGCONT},     {"STOP", SIGSTOP},   {"TSTP", SIGTSTP},
    {"TTIN", SIGTTIN}, {"TTOU", SIGTTOU},     {"URG", SIGURG},     {"XCPU", SIGXCPU},
    {"XFSZ", SIGXFSZ}, {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF},   {"WINCH", SIGWINCH},
    {"IO", SIGIO},
}};

}  // namespace

std::optional<int> signalFromName(std::string_view name) {
  if (auto n = detail::parseUnsigned(name, 64)) {
    if (*n >= 1) return static_cast<int>(*n);
    return std::nullopt;
  }
  std::string upper = toUpperAscii(name);
  std::string_view u = upper;
  if (u.starts_with("SIG")) u.remove_prefix(3);
  for (const auto& [n, sig] : kSignals) {
    if (u == n) return sig;
  }
  return std::nullopt;
}

std::string signalName(int signal) {
  for (const auto& [n, sig] : kSignals) {
    if (sig == signal) return std::string(n);
  }
  return std::to_string(signal);
}

Result<SignalSpec> parseSignalSpec(std::string_view text) {
  auto fail = [&]() {
    return makeError("invalid signal specification '" + std::string(text) +
                     "' (accepted: [R|B|RB:]SIGNAL[@SECONDS], e.g. B:USR1@90; seconds 0-" +
                     std::to_string(kMaxSignalSeconds) + ")");
  };
  SignalSpec spec;
  std::string_view rest = text;
  if (auto colon = rest.find(':'); colon != std::string_view::npos) {
    for (char c : rest.substr(0, colon)) {
      if (c == 'B' || c == 'b') {
        spec.batch_only = true;
      } else if (c == 'R' || c == 'r') {
        spec.reservation = true;
      } else {
        return fail();
      }
    }
    if (colon == 0) return fail();
    rest = rest.substr(colon + 1);
  }
  if (auto at = rest.find('@'); at != std::string_view::npos) {
    auto secs = detail::parseUnsigned(rest.substr(at + 1), kMaxSignalSeconds);
    if (!secs) return fail();
    spec.seconds = static_cast<std::uint32_t>(*secs);
    rest = rest.substr(0, at);
  }
  auto sig = signalFromName(rest);
  if (!sig) return fail();
  spec.signal = *sig;
  return spec;
}

}  // namespace drover::jobspec
