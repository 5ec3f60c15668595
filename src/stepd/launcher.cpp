#include "stepd/launcher.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/sched.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "common/errno_text.h"
#include "stepd/image_prefault.h"
#include "stepd/supervisor.h"

namespace drover::stepd {
namespace {


// Where glibc keeps this thread's id (struct pthread's tid, registered with set_tid_address at
// start). glibc's fork passes it as CLONE_CHILD_SETTID/CLONE_CHILD_CLEARTID so the child's
// copy holds the child's own id; a raw clone must do the same, or the child's glibc would keep
// the launcher's id (used by raise's fallbacks, recursive and PI mutexes).
Result<int*> threadIdAddress() {
  int* address = nullptr;
  if (::prctl(PR_GET_TID_ADDRESS, &address, 0, 0, 0) != 0) {
    return makeError("prctl(PR_GET_TID_ADDRESS): " + errnoText(errno) +
                     " (the kernel needs CONFIG_CHECKPOINT_RESTORE)");
  }
  if (address == nullptr || *address != static_cast<int>(::gettid())) {
    return makeError("prctl(PR_GET_TID_ADDRESS) does not point at glibc's copy of the thread id");
  }
  return address;
}

// fork(), except that the child's parent is the launcher's parent (droverd).
//
// Why CLONE_PARENT rather than the alternatives: droverd owns supervisors through plain
// parenthood today (SIGCHLD + waitpid on the pids it started, /proc and the step records after
// its own restart), and that stays true unchanged. A double fork into a child subreaper would
// make droverd the reaper of every orphan below it too (a job's daemonized processes after its
// supervisor ended), zombies it never waits for; a launcher that reaps supervisors and reports
// their ends would make the launcher's death the loss of every exit status, and another
// ownership path for a restarted droverd to take over. With CLONE_PARENT the process tree is
// the one an exec'd drover-stepd has, and the launcher owns nothing.
pid_t cloneAsSibling(int* tid_address) {
  clone_args args{};
  args.flags = CLONE_PARENT | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID;
  args.child_tid = reinterpret_cast<std::uint64_t>(tid_address);
  // clone3 refuses an exit signal with CLONE_PARENT: the child exits with the launcher's own,
  // SIGCHLD (droverd's posix_spawn started it), which goes to droverd.
  args.exit_signal = 0;
  return static_cast<pid_t>(::syscall(SYS_clone3, &args, sizeof args));
}

sigset_t supervisorSignals() {
  // drover-stepd's handled set (supervisor.cpp handledSignals, droverd's step_spawn.cpp).
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGRTMIN}) sigaddset(&set, sig);
  return set;
}

// In the child: the state an exec'd drover-stepd starts with (launcher.h). Never returns. The
// signal state needs nothing here: the launcher set it once for itself (settleSignalState), and
// a fork inherits it.
[[noreturn]] void becomeSupervisor(int log_fd, const LaunchOrder& order,
                                   const std::function<int(const LaunchOrder&)>& supervise,
                                   const std::vector<AddressRange>& image) {
  populate(image);
  if (::setsid() < 0) {
    std::fprintf(stderr, "drover-stepd: setsid in the launched supervisor: %s\n",
                 std::strerror(errno));
  }
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd < 0 || ::dup2(null_fd, STDIN_FILENO) < 0 || ::dup2(log_fd, STDOUT_FILENO) < 0 ||
      ::dup2(log_fd, STDERR_FILENO) < 0) {
    std::fprintf(stderr, "drover-stepd: cannot set up the launched supervisor's stdio: %s\n",
                 std::strerror(errno));
    std::_Exit(2);
  }
  // Everything else the launcher holds (droverd's socket above all) is not the step's. This
  // also closes the setup pipe's write end: the launcher, waiting for its end, answers now.
  if (::close_range(3, ~0U, 0) != 0) {
    for (int fd = 3; fd < 65536; ++fd) ::close(fd);
  }
  // exit, not _exit: the supervisor's stdio and static destructors end as an exec'd one's do.
  std::exit(supervise(order));
}

LaunchReply launchOne(const LaunchOrder& order, int* tid_address,
                      const std::function<int(const LaunchOrder&)>& supervise,
                      const std::vector<AddressRange>& image) {
  LaunchReply reply;
  const int log_fd =
      ::open(order.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (log_fd < 0) {
    reply.error = "cannot open step log " + order.log_path + ": " + errnoText(errno);
    return reply;
  }
  // The child closes its end once it is in its own session with its signals and descriptors
  // set (becomeSupervisor): only then does droverd get the pid, as posix_spawn returns only
  // after the child's setsid and exec. A child that dies before closes it too.
  int setup[2];
  if (::pipe2(setup, O_CLOEXEC) != 0) {
    const int err = errno;
    ::close(log_fd);
    reply.error = "cannot fork a supervisor: pipe2: " + errnoText(err);
    return reply;
  }
  // Nothing buffered in the launcher may be written twice by the child.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t pid = cloneAsSibling(tid_address);
  if (pid == 0) becomeSupervisor(log_fd, order, supervise, image);
  const int clone_errno = errno;
  ::close(log_fd);
  ::close(setup[1]);
  if (pid > 0) {
    char byte;
    while (::read(setup[0], &byte, 1) < 0 && errno == EINTR) {
    }
  }
  ::close(setup[0]);
  if (pid < 0) {
    reply.error = "cannot fork a supervisor: clone3: " + errnoText(clone_errno);
    return reply;
  }
  reply.pid = pid;
  return reply;
}

// The signal state every supervisor must start with, set once for the launcher's whole life
// instead of in each forked child (a system call per signal there was a fifth of a trivial
// step's system calls): every disposition default, whatever the launcher was started with, and
// the supervisor's handled signals blocked, so one sent in a child's first moments waits for
// its signalfd instead of killing it without a report (as posix_spawn's mask does for an exec'd
// drover-stepd). The launcher itself needs no signal: droverd stops it by closing its socket.
void settleSignalState() {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) ::sigaction(sig, &dfl, nullptr);   // EINVAL: fine
  }
  const sigset_t handled = supervisorSignals();
  ::sigprocmask(SIG_SETMASK, &handled, nullptr);
}

}  // namespace

Status launcherSupported() {
  auto address = threadIdAddress();
  if (!address) return makeError(address.error());
  // clone3 with an invalid size fails with EINVAL where it exists, ENOSYS where it does not.
  if (::syscall(SYS_clone3, nullptr, 0) < 0 && errno == ENOSYS) {
    return makeError("the kernel has no clone3 (Linux 5.3 or later is needed)");
  }
  return okStatus();
}

int runLauncher(int fd, const std::function<int(const LaunchOrder&)>& supervise) {
  auto tid_address = threadIdAddress();
  if (!tid_address) {
    std::cerr << "drover-stepd launcher: " << tid_address.error() << "\n";
    return 2;
  }
  settleSignalState();
  const std::vector<AddressRange> image = moveImageToHugePages(ownReadOnlyImageRanges());
  // Ready: droverd waits for this (its own pid) before its first order.
  if (auto ready = writeFrame(fd, encodeLaunchReply(LaunchReply{::getpid(), {}})); !ready) {
    std::cerr << "drover-stepd launcher: " << ready.error() << "; exiting\n";
    return 2;
  }
  for (;;) {
    auto frame = readFrame(fd);
    if (!frame) {
      std::cerr << "drover-stepd launcher: " << frame.error() << "; exiting\n";
      return 2;
    }
    if (!*frame) return 0;   // droverd closed its end: it exited, or starts another launcher
    LaunchReply reply;
    auto order = decodeLaunchOrder(**frame);
    if (!order) {
      reply.error = order.error();
    } else {
      reply = launchOne(*order, *tid_address, supervise, image);
    }
    if (auto sent = writeFrame(fd, encodeLaunchReply(reply)); !sent) {
      std::cerr << "drover-stepd launcher: " << sent.error() << "; exiting\n";
      return 2;
    }
  }
}

}  // namespace drover::stepd
