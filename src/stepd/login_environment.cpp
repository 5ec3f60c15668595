#include "stepd/login_environment.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

#include "common/errno_text.h"

extern char** environ;

namespace drover::stepd {
namespace {

constexpr const char* kSu = "/bin/su";

bool isShellBookkeeping(const std::string& name) {
  static const std::set<std::string> kNames = {"PWD", "OLDPWD", "SHLVL", "_"};
  return kNames.count(name) != 0;
}

}  // namespace

std::map<std::string, std::string> parseEnvZero(const std::string& text) {
  std::map<std::string, std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\0', at);
    if (end == std::string::npos) end = text.size();
    const std::string entry = text.substr(at, end - at);
    at = end + 1;
    const std::size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    std::string name = entry.substr(0, eq);
    if (isShellBookkeeping(name)) continue;
    out[std::move(name)] = entry.substr(eq + 1);
  }
  return out;
}

Result<std::map<std::string, std::string>> loginEnvironment(const std::string& user,
                                                           std::chrono::milliseconds timeout) {
  if (user.empty() || user[0] == '-') return makeError("no user name to load the login environment of");
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return makeError("pipe: " + errnoText(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);  // the supervisor blocks the signals it reads
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  const char* argv[] = {kSu, "-", user.c_str(), "-c", "env -0", nullptr};
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, kSu, &actions, &attr, const_cast<char**>(argv), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(pipe_fds[1]);
  if (spawned != 0) {
    ::close(pipe_fds[0]);
    return makeError(std::string("cannot run ") + kSu + ": " + errnoText(spawned));
  }
  std::string text;
  bool timed_out = false;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{pipe_fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char buf[8192];
    const ssize_t n = ::read(pipe_fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(pipe_fds[0]);
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    return makeError("su - " + user + " did not finish within " + std::to_string(timeout.count()) + " ms");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return makeError("su - " + user + " failed (status " + std::to_string(status) + ")");
  }
  return parseEnvZero(text);
}

}  // namespace drover::stepd
