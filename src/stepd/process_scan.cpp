#include "stepd/process_scan.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace drover::stepd {
namespace {

// Fields 5 (pgrp), 6 (session) and 24 (rss, pages) of /proc/PID/stat; the command name may
// hold spaces and parentheses, so parsing starts after its last closing parenthesis.
bool readStat(const char* pid, ProcessEntry& entry) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%s/stat", pid);
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char text[1024];
  const ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return false;
  text[n] = '\0';
  char* field = std::strrchr(text, ')');
  if (field == nullptr) return false;
  ++field;
  // After ")": state(3) ppid(4) pgrp(5) session(6) ... rss(24)
  for (int index = 3; index <= 24; ++index) {
    while (*field == ' ') ++field;
    if (*field == '\0') return false;
    char* end = field;
    while (*end != ' ' && *end != '\0') ++end;
    if (index == 5) entry.process_group = static_cast<pid_t>(std::strtol(field, nullptr, 10));
    if (index == 6) entry.session = static_cast<pid_t>(std::strtol(field, nullptr, 10));
    if (index == 24) entry.rss_pages = std::strtol(field, nullptr, 10);
    field = end;
  }
  entry.pid = static_cast<pid_t>(std::strtol(pid, nullptr, 10));
  return true;
}

}  // namespace

void forEachProcess(const std::function<void(const ProcessEntry&)>& visit) {
  DIR* proc = opendir("/proc");
  if (!proc) return;
  while (dirent* entry = readdir(proc)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    ProcessEntry found;
    if (readStat(entry->d_name, found)) visit(found);
  }
  closedir(proc);
}

void signalSession(pid_t session, int sig) {
  if (session <= 0) return;
  forEachProcess([&](const ProcessEntry& p) {
    if (p.session == session) kill(p.pid, sig);
  });
}

}  // namespace drover::stepd
