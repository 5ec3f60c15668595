#include "munged_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace drover::testing {
namespace {

constexpr const char* kMunged = "/usr/sbin/munged";

Result<void_t> writeRandomKey(const std::string& path) {
  std::array<char, 1024> key{};
  std::ifstream urandom("/dev/urandom", std::ios::binary);
  if (!urandom.read(key.data(), key.size())) return makeError("cannot read /dev/urandom");
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return makeError("cannot create key file " + path + ": " + std::strerror(errno));
  const bool ok = ::write(fd, key.data(), key.size()) == static_cast<ssize_t>(key.size());
  ::close(fd);
  if (!ok) return makeError("cannot write key file " + path);
  return void_t{};
}

bool socketAccepts(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  ::close(fd);
  return ok;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

Result<std::unique_ptr<MungedProcess>> MungedProcess::start() {
  std::string pattern = "/tmp/drover-munge-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) return makeError(std::string("mkdtemp: ") + std::strerror(errno));
  const std::string dir = pattern;
  // munged insists that every directory above its socket is searchable by all.
  ::chmod(dir.c_str(), 0755);
  if (auto key = writeRandomKey(dir + "/munge.key"); !key) return makeError(key.error());

  std::vector<std::string> args = {kMunged,
                                   "--foreground",
                                   "--force",
                                   "--socket=" + dir + "/munge.socket",
                                   "--key-file=" + dir + "/munge.key",
                                   "--pid-file=" + dir + "/munged.pid",
                                   "--log-file=" + dir + "/munged.log",
                                   "--seed-file=" + dir + "/munged.seed"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  const pid_t pid = ::fork();
  if (pid < 0) return makeError(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    const int devnull = ::open("/dev/null", O_RDWR);
    ::dup2(devnull, STDIN_FILENO);
    ::dup2(devnull, STDOUT_FILENO);
    ::dup2(devnull, STDERR_FILENO);  // it logs to --log-file too
    ::execv(kMunged, argv.data());
    ::_exit(127);
  }
  std::unique_ptr<MungedProcess> munged(new MungedProcess(dir, pid));

  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!socketAccepts(munged->socket_)) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      munged->pid_ = -1;
      return makeError("munged exited before accepting connections; log: " + readFile(dir + "/munged.log"));
    }
    if (std::chrono::steady_clock::now() > give_up) {
      return makeError("munged did not accept on " + munged->socket_ + " within 10 s");
    }
    const timespec pause{0, 2'000'000};  // poll every 2 ms
    ::nanosleep(&pause, nullptr);
  }
  return munged;
}

MungedProcess::MungedProcess(std::string dir, pid_t pid)
    : dir_(std::move(dir)), socket_(dir_ + "/munge.socket"), pid_(pid) {}

MungedProcess::~MungedProcess() {
  if (pid_ > 0) {
    // munged can miss a SIGTERM that lands just before it blocks in accept (its handler only
    // sets a flag, and accept restarts): seen as a test hanging in this wait for 20 minutes.
    // So it gets 5 s, then SIGKILL, as tests/support/munge.py and scripts/local-cluster do.
    ::kill(pid_, SIGTERM);
    int status = 0;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > give_up) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      const timespec pause{0, 5'000'000};
      ::nanosleep(&pause, nullptr);
    }
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

}  // namespace drover::testing
