#include "agent/step_spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/errno_text.h"
#include "common/unique_fd.h"

extern char** environ;

namespace drover::agent {
namespace {

// Writes everything; MSG_NOSIGNAL so a supervisor that died early gives EPIPE, not SIGPIPE.
Status sendAll(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return makeError("cannot write the launch request to drover-stepd: " + errnoText(errno));
    }
    done += static_cast<std::size_t>(n);
  }
  return okStatus();
}

}  // namespace

std::string ownExecutableDir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return ".";
  return exe.parent_path().string();
}

Result<pid_t> spawnSupervisor(const SpawnSpec& spec) {
  if (::access(spec.program.c_str(), X_OK) != 0) {
    return makeError("cannot run step supervisor " + spec.program + ": " + errnoText(errno) +
                     " (it is installed next to droverd, or give --stepd)");
  }
  UniqueFd log(::open(spec.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
  if (log.get() < 0) {
    return makeError("cannot open step log " + spec.log_path + ": " + errnoText(errno));
  }
  // A socket pair rather than a pipe: the agent writes with MSG_NOSIGNAL (see sendAll).
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    return makeError("socketpair for drover-stepd's stdin: " + errnoText(errno));
  }
  UniqueFd ours(pair[0]);
  UniqueFd theirs(pair[1]);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, theirs.get(), STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, log.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, log.get(), STDERR_FILENO);

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // The supervisor starts with the signals it handles (cancel, forwarded signals) already
  // blocked: one sent in its first milliseconds, before it blocks them itself and opens its
  // signalfd, then waits pending instead of killing it without a report. (The set is
  // drover-stepd's handledSignals(), src/stepd/supervisor.cpp.)
  sigset_t handled;
  sigemptyset(&handled);
  for (int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGRTMIN}) sigaddset(&handled, sig);
  sigset_t all;
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &handled);
  posix_spawnattr_setsigdefault(&attr, &all);   // undo anything the agent ignores (SIGPIPE)
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);

  std::vector<std::string> argv_storage;
  argv_storage.push_back(spec.program);
  argv_storage.insert(argv_storage.end(), spec.args.begin(), spec.args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);

  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, spec.program.c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return makeError("cannot start " + spec.program + ": " + errnoText(rc));
  theirs.reset();
  // drover-stepd reads all of stdin before anything else, so this write does not wait long.
  if (auto sent = sendAll(ours.get(), spec.stdin_bytes); !sent) {
    // It closed its stdin without reading the request, so it ran nothing: make sure it is gone.
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    return makeError(sent.error());
  }
  return pid;
}

}  // namespace drover::agent
