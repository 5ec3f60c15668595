#include "agent/supervisor_launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <cstring>
#include <optional>

#include "common/log.h"
#include "common/errno_text.h"
#include "common/proc_stat.h"
#include "stepd/launcher_protocol.h"

extern char** environ;

namespace drover::agent {
namespace {

spdlog::logger& log() { return *drover::log::get("agent"); }


// drover-stepd --launcher's exit code when the kernel cannot fork supervisors its way.
constexpr int kLauncherUnsupportedExit = 3;
constexpr const char* kSupervisorName = "drover-stepd";

// Now, in the unit of /proc/<pid>/stat's start time (clock ticks of CLOCK_BOOTTIME).
unsigned long long bootTicksNow() {
  timespec ts{};
  ::clock_gettime(CLOCK_BOOTTIME, &ts);
  const long hz = ::sysconf(_SC_CLK_TCK);
  return static_cast<unsigned long long>(ts.tv_sec) * hz +
         static_cast<unsigned long long>(ts.tv_nsec) * hz / 1000000000ull;
}

// A drover-stepd child of this process that nobody knows, started since the order was sent:
// the supervisor a launcher forked for an order it died before answering. (Unknown children
// started earlier are not it: in a test process, agents that came and went leave theirs.)
std::optional<pid_t> findUnknownSupervisor(const std::function<bool(pid_t)>& known,
                                           pid_t launcher, unsigned long long since_ticks) {
  // A zombie counts: the supervisor may have run its step and ended already.
  const pid_t self = ::getpid();
  for (const ProcStat& p : readAllProcStats()) {
    if (p.pid == launcher || known(p.pid)) continue;
    if (p.ppid == self && p.comm == kSupervisorName && p.start_ticks >= since_ticks) return p.pid;
  }
  return std::nullopt;
}

}  // namespace

SupervisorLauncher::SupervisorLauncher(LauncherOptions opts) : opts_(std::move(opts)) {}

SupervisorLauncher::~SupervisorLauncher() {
  if (pid_ == 0) return;
  // It would exit at the end of the stream; SIGKILL as well, so a stopped one cannot hold up
  // droverd's exit. No order is in flight (launches run on the io thread, which has ended).
  ::close(fd_);
  fd_ = -1;
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = 0;
}

std::optional<SupervisorLauncher::BinaryId> SupervisorLauncher::stepdOnDisk() const {
  struct stat st {};
  if (::stat(opts_.stepd_path.c_str(), &st) != 0) return std::nullopt;
  return BinaryId{st.st_dev, st.st_ino, st.st_size,
                  static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec};
}

Status SupervisorLauncher::start() {
  if (pid_ != 0) return okStatus();
  if (unsupported_) return makeError("the supervisor launcher cannot run on this kernel");
  started_binary_ = stepdOnDisk();
  const int log_fd =
      ::open(opts_.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (log_fd < 0) {
    return makeError("cannot open the launcher's log " + opts_.log_path + ": " +
                     errnoText(errno));
  }
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    const int err = errno;
    ::close(log_fd);
    return makeError("socketpair for the supervisor launcher: " + errnoText(err));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pair[1], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, log_fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, log_fd, STDERR_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  sigset_t all;
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  // Its own session, as every supervisor's: a signal to droverd's process group (a terminal's
  // ^C) neither stops launches midway nor reaches a supervisor before its own setsid.
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<std::string> argv_storage{opts_.stepd_path};
  argv_storage.insert(argv_storage.end(), opts_.args.begin(), opts_.args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc =
      ::posix_spawn(&pid, opts_.stepd_path.c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(pair[1]);
  ::close(log_fd);
  if (rc != 0) {
    ::close(pair[0]);
    return makeError("cannot start the supervisor launcher " + opts_.stepd_path + ": " +
                     errnoText(rc));
  }
  pid_ = pid;
  fd_ = pair[0];
  // Its first message says it is ready (and is its own pid).
  auto frame = stepd::readFrame(fd_, static_cast<int>(opts_.reply_timeout.count()));
  std::optional<stepd::LaunchReply> hello;
  if (frame && *frame) {
    if (auto decoded = stepd::decodeLaunchReply(**frame); decoded && decoded->pid == pid) {
      hello = *decoded;
    }
  }
  if (hello) {
    log().info("supervisor launcher pid {} started", pid);
    return okStatus();
  }
  // It said nothing sensible: make sure it is gone, and learn why from its exit.
  ::close(fd_);
  fd_ = -1;
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = 0;
  if (WIFEXITED(status) && WEXITSTATUS(status) == kLauncherUnsupportedExit) {
    unsupported_ = true;
    return makeError("the supervisor launcher cannot run on this kernel (see " +
                     opts_.log_path + "); steps start drover-stepd with exec");
  }
  return makeError("the supervisor launcher did not start: " +
                   (frame ? std::string("its first message was not its pid") : frame.error()) +
                   " (see " + opts_.log_path + ")");
}

void SupervisorLauncher::stop() {
  if (pid_ == 0) return;
  ::close(fd_);
  fd_ = -1;
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  log().warn("supervisor launcher pid {} stopped; the next launch starts another", pid_);
  pid_ = 0;
}

void SupervisorLauncher::reapIfEnded() {
  if (pid_ == 0) return;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) != pid_) return;
  log().warn("supervisor launcher pid {} ended ({} {}); the next launch starts another", pid_,
             WIFSIGNALED(status) ? "signal" : "exit code",
             WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
  ::close(fd_);
  fd_ = -1;
  pid_ = 0;
}

Result<pid_t> SupervisorLauncher::launch(const SpawnSpec& spec,
                                         const std::function<bool(pid_t)>& known) {
  std::string why;
  if (pid_ != 0 && stepdOnDisk() != started_binary_) {
    log().info("{} changed on disk since the supervisor launcher pid {} started; starting "
               "another from the new one", opts_.stepd_path, pid_);
    stop();
  }
  // A launcher found dead when the order is sent is started again once, at once.
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (pid_ == 0) {
      if (unsupported_) return makeError("the supervisor launcher cannot run on this kernel");
      const auto now = std::chrono::steady_clock::now();
      if (now < next_start_) {
        return makeError("the supervisor launcher failed to start a moment ago" +
                         (why.empty() ? std::string() : " (" + why + ")"));
      }
      if (auto started = start(); !started) {
        next_start_ = now + opts_.restart_backoff;
        return makeError(started.error());
      }
    }
    bool retry = false;
    auto pid = launchOnce(spec, known, &retry);
    if (pid || !retry) return pid;
    why = pid.error();
    log().warn("supervisor launcher: {}", why);
  }
  return makeError(why);
}

Result<pid_t> SupervisorLauncher::launchOnce(const SpawnSpec& spec,
                                             const std::function<bool(pid_t)>& known,
                                             bool* retry) {
  stepd::LaunchOrder order;
  order.log_path = spec.log_path;
  order.request = spec.stdin_bytes;
  order.argv.reserve(spec.args.size() + 1);
  order.argv.push_back(spec.program);
  order.argv.insert(order.argv.end(), spec.args.begin(), spec.args.end());
  const unsigned long long sent_at = bootTicksNow();
  if (auto sent = stepd::writeFrame(fd_, stepd::encodeLaunchOrder(order)); !sent) {
    // Nothing was read by anyone: a new launcher may take the order.
    stop();
    *retry = true;
    return makeError(sent.error());
  }
  auto frame = stepd::readFrame(fd_, static_cast<int>(opts_.reply_timeout.count()));
  if (frame && *frame) {
    auto reply = stepd::decodeLaunchReply(**frame);
    if (reply && reply->pid > 0) return reply->pid;
    // The launcher runs and refused this order (its log could not be opened...): exec gives
    // the same answer, or a better one.
    if (reply) return makeError("supervisor launcher: " + reply->error);
  }
  const std::string why = !frame ? frame.error()
                          : !*frame ? std::string("the launcher closed its connection")
                                    : std::string("the launcher's reply was not understood");
  const pid_t launcher = pid_;
  stop();
  // It may have forked the supervisor before it died: that one runs the step, not a second.
  if (auto orphan = findUnknownSupervisor(known, launcher, sent_at)) {
    log().warn("supervisor launcher: {}; adopting supervisor pid {} it had started", why,
               *orphan);
    return *orphan;
  }
  *retry = true;
  return makeError(why);
}

}  // namespace drover::agent
