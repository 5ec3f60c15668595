// LD_PRELOAD shim for e2e tests: a slow user and group directory, as LDAP or SSSD can be. Each
// getpwnam_r and getgrnam_r of a name starting with DROVER_TEST_SLOW_NAME_PREFIX takes
// DROVER_TEST_SLOW_NAME_MS longer, and first appends the name and a newline to
// DROVER_TEST_SLOW_NAME_LOG, so a test knows when a lookup is under way. Every other lookup, and
// every other process, is untouched (test_slow_directory.py preloads it into droverctld only).
#include <dlfcn.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

void delayIfSlow(const char* name) {
  const char* prefix = std::getenv("DROVER_TEST_SLOW_NAME_PREFIX");
  if (prefix == nullptr || *prefix == '\0' || std::strncmp(name, prefix, std::strlen(prefix)) != 0) return;
  if (const char* log = std::getenv("DROVER_TEST_SLOW_NAME_LOG")) {
    const int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) {
      const std::string line = std::string(name) + "\n";
      (void)!write(fd, line.data(), line.size());
      close(fd);
    }
  }
  const char* ms = std::getenv("DROVER_TEST_SLOW_NAME_MS");
  std::this_thread::sleep_for(std::chrono::milliseconds(ms ? std::strtol(ms, nullptr, 10) : 0));
}

template <typename Fn>
Fn real(const char* symbol) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, symbol));
}

}  // namespace

extern "C" {

int getpwnam_r(const char* name, passwd* entry, char* buffer, size_t size, passwd** found) {
  using Fn = int (*)(const char*, passwd*, char*, size_t, passwd**);
  static const Fn next = real<Fn>("getpwnam_r");
  delayIfSlow(name);
  return next(name, entry, buffer, size, found);
}

int getgrnam_r(const char* name, group* entry, char* buffer, size_t size, group** found) {
  using Fn = int (*)(const char*, group*, char*, size_t, group**);
  static const Fn next = real<Fn>("getgrnam_r");
  delayIfSlow(name);
  return next(name, entry, buffer, size, found);
}

}  // extern "C"
