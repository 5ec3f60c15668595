#include "stepd/task_spawn.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace drover::stepd {
namespace {

// Only async-signal-safe calls below this point run in the child.
void put(int fd, const char* s) {
  if (s) (void)!write(fd, s, strlen(s));
}

[[noreturn]] void childFail(int fd, const char* what, const char* path) {
  const char* reason = strerror(errno);
  put(fd, what);
  if (path) {
    put(fd, " ");
    put(fd, path);
  }
  put(fd, ": ");
  put(fd, reason);
  _exit(127);
}

// SLURM_TASK_PID is the task's own pid, known only in the child: the entry is rewritten
// there with async-signal-safe code.
void setTaskPid(char** envp, char* buffer) {
  static const char kPrefix[] = "SLURM_TASK_PID=";
  for (; *envp != nullptr; ++envp) {
    char*& entry = *envp;
    if (strncmp(entry, kPrefix, sizeof kPrefix - 1) != 0) continue;
    char digits[16];
    int n = 0;
    for (pid_t pid = getpid(); pid > 0 && n < 15; pid /= 10) digits[n++] = char('0' + pid % 10);
    char* out = buffer;
    for (const char* p = kPrefix; *p; ++p) *out++ = *p;
    while (n > 0) *out++ = digits[--n];
    *out = '\0';
    entry = buffer;
  }
}

int openFor(const std::string& path, int flags) {
  return open(path.c_str(), flags | O_CLOEXEC, 0644);
}

// What the child needs, prepared (and allocated) by the parent before vfork.
struct ChildPlan {
  const TaskSpec* spec;
  char* const* argv;
  char** envp;                  // the child rewrites its SLURM_TASK_PID entry
  const gid_t* groups;
  std::size_t group_count;
  bool change_user;
  int out_flags;
  int report_fd;                // close-on-exec: why the task could not start
};

// The child, from vfork to exec. Its own frame: nothing it writes lands in spawnTask's frame,
// which the parent resumes with. Only async-signal-safe calls, no allocation.
[[noreturn]] __attribute__((noinline)) void runChild(const ChildPlan& plan) {
  const TaskSpec& spec = *plan.spec;
  setpgid(0, spec.process_group);
  if (spec.cgroup_procs_fd >= 0) {
    // The pid in decimal, no allocation.
    char digits[24];
    int n = 0;
    for (pid_t self = getpid(); self > 0 && n < 23; self /= 10) digits[n++] = static_cast<char>('0' + self % 10);
    char text[24];
    for (int i = 0; i < n; ++i) text[i] = digits[n - 1 - i];
    if (write(spec.cgroup_procs_fd, text, static_cast<std::size_t>(n)) != n)
      childFail(plan.report_fd, "joining the step's memory cgroup", nullptr);
  }
  // Default dispositions before unblocking, so no signal runs a handler of the supervisor's
  // in this child (which still shares the supervisor's memory).
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGCHLD, SIGHUP}) signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);

  if (plan.change_user) {
    if (setgroups(plan.group_count, plan.groups) != 0) childFail(plan.report_fd, "setgroups", nullptr);
    if (setgid(spec.gid) != 0) childFail(plan.report_fd, "setgid", nullptr);
    if (setuid(spec.uid) != 0) childFail(plan.report_fd, "setuid", nullptr);
  }
  // Output files are opened after dropping privileges, so they belong to the user and a
  // path the user may not write fails the job instead of writing as root.
  int in = spec.stdin_fd >= 0 ? spec.stdin_fd : openFor(spec.stdin_path, O_RDONLY);
  if (in < 0) childFail(plan.report_fd, "could not open input file", spec.stdin_path.c_str());
  int out = spec.stdout_fd >= 0 ? spec.stdout_fd : openFor(spec.stdout_path, plan.out_flags);
  if (out < 0) childFail(plan.report_fd, "could not open output file", spec.stdout_path.c_str());
  int err = spec.stderr_fd >= 0                        ? spec.stderr_fd
            : spec.stderr_path == spec.stdout_path ? out
                                                   : openFor(spec.stderr_path, plan.out_flags);
  if (err < 0) childFail(plan.report_fd, "could not open error file", spec.stderr_path.c_str());
  if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
    childFail(plan.report_fd, "dup2", nullptr);
  if (!spec.work_dir.empty() && chdir(spec.work_dir.c_str()) != 0) {
    // As Slurm: say so on the task's stderr and run in /tmp rather than fail.
    const char* reason = strerror(errno);
    put(2, "drover-stepd: error: couldn't chdir to `");
    put(2, spec.work_dir.c_str());
    put(2, "': ");
    put(2, reason);
    put(2, ": going to /tmp instead\n");
    if (chdir("/tmp") != 0) childFail(plan.report_fd, "chdir", "/tmp");
  }
  char pid_entry[48];
  setTaskPid(plan.envp, pid_entry);
  execvpe(plan.argv[0], plan.argv, plan.envp);
  childFail(plan.report_fd, "execve", plan.argv[0]);
}

}  // namespace

Result<pid_t> spawnTask(const TaskSpec& spec) {
  if (spec.argv.empty()) return makeError("no program to run");

  // Everything that allocates happens before vfork.
  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  const bool change_user = geteuid() == 0 && spec.uid != 0;
  std::vector<gid_t> groups;
  if (change_user && spec.groups != nullptr) {
    groups = *spec.groups;
  } else if (change_user) {
    int count = 64;
    groups.resize(count);
    if (getgrouplist(spec.user.c_str(), spec.gid, groups.data(), &count) < 0) {
      groups.resize(count);
      getgrouplist(spec.user.c_str(), spec.gid, groups.data(), &count);
    }
    groups.resize(count > 0 ? count : 0);
  }

  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) return makeError(std::string("pipe: ") + strerror(errno));
  const ChildPlan plan{&spec,         argv.data(), envp.data(),
                       groups.data(), groups.size(), change_user,
                       O_WRONLY | O_CREAT | (spec.append ? O_APPEND : O_TRUNC), report[1]};

  // vfork: the child borrows this process's memory until it execs, instead of fork copying the
  // page tables (and tearing the copy down again at exec) for every task.
  pid_t pid = vfork();
  if (pid == 0) runChild(plan);
  if (pid < 0) {
    close(report[0]);
    close(report[1]);
    return makeError(std::string("vfork: ") + strerror(errno));
  }

  close(report[1]);
  std::string failure;
  char buf[512];
  ssize_t n;
  while ((n = read(report[0], buf, sizeof buf)) != 0) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    failure.append(buf, static_cast<std::size_t>(n));
  }
  close(report[0]);
  // Also set the group from the parent, so signalling the group cannot race the child.
  setpgid(pid, spec.process_group == 0 ? pid : spec.process_group);
  if (!failure.empty()) {
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return makeError(failure);
  }
  return pid;
}

}  // namespace drover::stepd
