#include "stepd/task_spawn.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

namespace drover::stepd {
namespace {

// Why a child could not start, written by the vfork child into its parent's memory (which it
// borrows until exec), as glibc's posix_spawn reports its child's errors: no pipe to make,
// read and close for every task. The parent reads it once the child has exec'd or exited.
struct Failure {
  char text[512];
  std::size_t length;
  int exec_errno;  // the exec's errno when the exec was what failed, else 0
};

// Only async-signal-safe calls below this point run in the child.
void put(int fd, const char* s) {
  if (s) (void)!write(fd, s, strlen(s));
}

void append(Failure* failure, const char* s) {
  for (; s != nullptr && *s != '\0' && failure->length + 1 < sizeof failure->text; ++s)
    failure->text[failure->length++] = *s;
}

[[noreturn]] void childFail(Failure* failure, const char* what, const char* path) {
  const char* reason = strerror(errno);
  append(failure, what);
  if (path) {
    append(failure, " ");
    append(failure, path);
  }
  append(failure, ": ");
  append(failure, reason);
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

// The value of NAME= in `envp`, or nullptr.
const char* envValue(char* const* envp, const char* name) {
  const std::size_t n = strlen(name);
  for (; *envp != nullptr; ++envp)
    if (strncmp(*envp, name, n) == 0 && (*envp)[n] == '=') return *envp + n + 1;
  return nullptr;
}

// dir + "/" + file into `out` (PATH_MAX bytes); false when it does not fit.
bool joinPath(char* out, const char* dir, std::size_t dir_length, const char* file) {
  const std::size_t file_length = strlen(file);
  if (dir_length + 1 + file_length + 1 > PATH_MAX) return false;
  memcpy(out, dir, dir_length);
  out[dir_length] = '/';
  memcpy(out + dir_length + 1, file, file_length + 1);
  return true;
}

// Where the task's program is, as Slurm's step daemon finds it (checked on the reference):
// a name without a slash is looked up in the task's own PATH (execvpe would search the
// supervisor's), and the first entry holding a file of that name is the program, runnable or
// not (a file without x is "Permission denied" there, not skipped); a name found nowhere is
// run as given, to fail "No such file or directory". "./prog" and "../prog" are the working
// directory's, named by the full path. Written into `out` (PATH_MAX bytes), or `file` itself.
const char* programPath(const char* file, char* const* envp, const char* work_dir, char* out) {
  if (strncmp(file, "./", 2) == 0 || strncmp(file, "../", 3) == 0) {
    return work_dir != nullptr && joinPath(out, work_dir, strlen(work_dir), file) ? out : file;
  }
  if (strchr(file, '/') != nullptr || *file == '\0') return file;
  const char* path = envValue(envp, "PATH");
  if (path == nullptr) path = "/bin:/usr/bin";  // glibc's default search
  for (const char* dir = path;; ++dir) {
    const char* end = strchr(dir, ':');
    const std::size_t length = end != nullptr ? static_cast<std::size_t>(end - dir) : strlen(dir);
    // An empty entry is the working directory, as in a shell.
    struct stat st;
    const bool joined = length == 0 ? joinPath(out, ".", 1, file) : joinPath(out, dir, length, file);
    if (joined && stat(out, &st) == 0 && !S_ISDIR(st.st_mode)) return out;
    if (end == nullptr) return file;
    dir = end;
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
  Failure* failure;             // in the parent's memory: why the task could not start
};

// The child, from vfork to exec. Its own frame: nothing it writes lands in spawnTask's frame,
// which the parent resumes with. Only async-signal-safe calls, no allocation.
[[noreturn]] __attribute__((noinline)) void runChild(const ChildPlan& plan) {
  const TaskSpec& spec = *plan.spec;
  if (spec.terminal_fd >= 0) {
    // A session of its own, so the terminal can be its controlling terminal: the terminal's
    // line discipline then signals its foreground process group (Ctrl-C, SIGWINCH, SIGHUP).
    if (setsid() < 0) childFail(plan.failure, "setsid", nullptr);
    if (ioctl(spec.terminal_fd, TIOCSCTTY, 0) != 0)
      childFail(plan.failure, "making the pseudo-terminal the controlling terminal", nullptr);
  } else {
    setpgid(0, spec.process_group);
  }
  if (spec.cgroup_procs_fd >= 0) {
    // The pid in decimal, no allocation.
    char digits[24];
    int n = 0;
    for (pid_t self = getpid(); self > 0 && n < 23; self /= 10) digits[n++] = static_cast<char>('0' + self % 10);
    char text[24];
    for (int i = 0; i < n; ++i) text[i] = digits[n - 1 - i];
    if (write(spec.cgroup_procs_fd, text, static_cast<std::size_t>(n)) != n)
      childFail(plan.failure, "joining the step's memory cgroup", nullptr);
  }
  // The supervisor has no signal handler (every disposition is the default: task_spawn.h), so
  // no signal can run one in this child, which still shares the supervisor's memory.
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);

  if (plan.change_user) {
    if (setgroups(plan.group_count, plan.groups) != 0) childFail(plan.failure, "setgroups", nullptr);
    if (setgid(spec.gid) != 0) childFail(plan.failure, "setgid", nullptr);
    if (setuid(spec.uid) != 0) childFail(plan.failure, "setuid", nullptr);
  }
  // Output files are opened after dropping privileges, so they belong to the user and a
  // path the user may not write fails the job instead of writing as root.
  const int terminal = spec.terminal_fd;
  int in = terminal >= 0 ? terminal : spec.stdin_fd >= 0 ? spec.stdin_fd : openFor(spec.stdin_path, O_RDONLY);
  if (in < 0) childFail(plan.failure, "could not open input file", spec.stdin_path.c_str());
  int out = terminal >= 0 ? terminal : spec.stdout_fd >= 0 ? spec.stdout_fd : openFor(spec.stdout_path, plan.out_flags);
  if (out < 0) childFail(plan.failure, "could not open output file", spec.stdout_path.c_str());
  int err = terminal >= 0                              ? terminal
            : spec.stderr_fd >= 0                      ? spec.stderr_fd
            : spec.stderr_path == spec.stdout_path ? out
                                                   : openFor(spec.stderr_path, plan.out_flags);
  if (err < 0) childFail(plan.failure, "could not open error file", spec.stderr_path.c_str());
  if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
    childFail(plan.failure, "dup2", nullptr);
  // The descriptor table is the child's own (vfork shares memory, not descriptors): clearing
  // close-on-exec here leaves the supervisor's copy as it was.
  if (spec.pmi_fd >= 0 && fcntl(spec.pmi_fd, F_SETFD, 0) != 0)
    childFail(plan.failure, "keeping the PMI socket open", nullptr);
  if (!spec.stderr_notice.empty()) put(2, spec.stderr_notice.c_str());
  const char* work_dir = spec.work_dir.empty() ? nullptr : spec.work_dir.c_str();
  if (!spec.work_dir.empty() && chdir(spec.work_dir.c_str()) != 0) {
    // As Slurm: say so on the task's stderr and run in /tmp rather than fail.
    const char* reason = strerror(errno);
    put(2, "drover-stepd: error: couldn't chdir to `");
    put(2, spec.work_dir.c_str());
    put(2, "': ");
    put(2, reason);
    put(2, ": going to /tmp instead\n");
    if (chdir("/tmp") != 0) childFail(plan.failure, "chdir", "/tmp");
    work_dir = "/tmp";
  }
  char pid_entry[48];
  setTaskPid(plan.envp, pid_entry);
  // No shell for a file without "#!" (glibc's execvp would run /bin/sh): the reference's step
  // daemon failed it "Exec format error".
  char found[PATH_MAX];
  const char* program = programPath(plan.argv[0], plan.envp, work_dir, found);
  execve(program, plan.argv, plan.envp);
  plan.failure->exec_errno = errno;
  childFail(plan.failure, "execve():", program);
}

}  // namespace

Result<pid_t> spawnTask(const TaskSpec& spec, int* exec_errno) {
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

  Failure failure{};
  // Every write goes to the end, also after a truncating open: the supervisor's notice
  // (tellWhy, a writer of its own) and the tasks of a step writing one file then never write
  // over one another's lines at a stale offset (srun's last lines after a batch job's kill
  // notice overwrote it).
  const ChildPlan plan{&spec,         argv.data(), envp.data(),
                       groups.data(), groups.size(), change_user,
                       O_WRONLY | O_CREAT | O_APPEND | (spec.append ? 0 : O_TRUNC), &failure};

  // vfork: the child borrows this process's memory until it execs, instead of fork copying the
  // page tables (and tearing the copy down again at exec) for every task. This process resumes
  // only once the child has exec'd or exited: its process group is set by then, and `failure`
  // holds why it exited.
  // `failure` must be in memory before vfork and read from memory after it: the compiler may
  // not keep it in registers or assume vfork left it as it was. An empty asm statement that
  // is given its address (and clobbers memory) makes it escape to vfork, an opaque call.
  asm volatile("" : : "r"(&failure) : "memory");
  pid_t pid = vfork();
  if (pid == 0) runChild(plan);
  if (pid < 0) return makeError(std::string("vfork: ") + strerror(errno));
  if (failure.length > 0) {
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (exec_errno != nullptr) *exec_errno = failure.exec_errno;
    return makeError(std::string(failure.text, failure.length));
  }
  return pid;
}

}  // namespace drover::stepd
