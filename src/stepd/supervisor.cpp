#include "stepd/supervisor.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "common/step_usage_socket.h"
#include "jobspec/filename_pattern.h"
#include "jobspec/gpu_bind.h"
#include "launch/job_env.h"
#include "stepd/cancel_notice.h"
#include "stepd/io_forwarder.h"
#include "stepd/login_environment.h"
#include "stepd/memory_cgroup.h"
#include "stepd/pmi_service.h"
#include "stepd/process_scan.h"
#include "stepd/step_report.h"
#include "stepd/task_spawn.h"
#include "stepd/task_usage.h"
#include "stepd/usage_sampler.h"

namespace drover::stepd {
namespace {

using Clock = std::chrono::steady_clock;
// After the last task ended: how long output still held open by escaped processes is
// forwarded, then how long srun gets to take the remaining frames.
constexpr auto kDrainWait = std::chrono::seconds(2);
constexpr auto kSendWait = std::chrono::seconds(30);
// How long the step's end waits for the writer of its cancel notice (tellWhy): the line must be
// in the output file before the end is reported, since a requeued job may start again at once
// and append to the same file; a writer stuck on a hung file system is not waited for longer.
constexpr auto kNoticeWait = std::chrono::seconds(5);
constexpr int kStartFailureExitCode = 2;

std::int64_t unixNow() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

sigset_t handledSignals() {
  sigset_t set;
  sigemptyset(&set);
  // SIGPIPE is blocked so a task that closes its stdin is an EPIPE for the I/O forwarder.
  for (int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGRTMIN}) sigaddset(&set, sig);
  return set;
}

// The script is one file in the spool dir, which only root may write: nothing the user owns is
// on the path root writes through (a user-owned job directory, as before, let its owner plant
// a symlink where root wrote a requeued job's next script), and no directory per job is left
// behind. O_NOFOLLOW besides. (Measured: no CPU difference per job against the directory.)
Result<std::string> writeBatchScript(const drover::v1::LaunchStepRequest& req,
                                     const std::string& spool_dir) {
  const std::string path = batchScriptPath(spool_dir, req.step().job_id());
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0700);
  if (fd < 0 && errno == ENOENT) {
    mkdir(spool_dir.c_str(), 0755);
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0700);
  }
  if (fd < 0) return makeError("cannot write batch script " + path + ": " + strerror(errno));
  const std::string& text = req.script();
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(fd);
      return makeError("cannot write batch script " + path + ": " + strerror(err));
    }
    done += static_cast<std::size_t>(n);
  }
  // An existing file (a requeued job's last run) keeps its mode: set it, and the owner.
  (void)!::fchmod(fd, 0700);
  if (geteuid() == 0) (void)!::fchown(fd, req.uid(), req.gid());
  ::close(fd);
  return path;
}

class StepRun {
 public:
  StepRun(const drover::v1::LaunchStepRequest& req, const SupervisorOptions& opts)
      : req_(req),
        opts_(opts),
        task_usage_(opts.cpu_clock != nullptr ? *opts.cpu_clock : own_clock_.emplace()) {}

  StepOutcome run(const std::function<void(int)>& on_started) {
    // However the step ends, as Slurm the node keeps no copy of the batch script after it.
    struct RemoveScript {
      std::string path;
      ~RemoveScript() {
        if (!path.empty()) ::unlink(path.c_str());
      }
    } remove_script{isBatch() ? batchScriptPath(opts_.spool_dir, req_.step().job_id()) : ""};
    outcome_.start_time = unixNow();
    if (!spawnAll()) {
      outcome_.end_time = unixNow();
      return outcome_;
    }
    outcome_.started = true;
    if (on_started) on_started(tasks_.front());
    supervise();
    finish();
    if (cgroup_ && cgroup_->oomKills() > 0) outcome_.out_of_memory = true;
    return outcome_;
  }

 private:
  bool isBatch() const { return req_.step().step_id() == kBatchStepId; }

  // What local task `local` of the node's `node_tasks` sees of the step's GPUs here
  // (--gpu-bind, else --gpus-per-task; jobspec/gpu_bind.h).
  jobspec::TaskGpuView gpuView(std::uint32_t local, std::uint32_t node_tasks) const {
    const auto& gpus = req_.allocation().gpu_indices();
    return jobspec::taskGpuView(req_.gpu_bind(), req_.gpus_per_task(), {gpus.begin(), gpus.end()},
                                node_tasks, local);
  }

  bool spawnAll() {
    std::vector<std::string> argv;
    if (isBatch()) {
      auto script = writeBatchScript(req_, opts_.spool_dir);
      if (!script) return fail(script.error());
      argv.push_back(*script);
    }
    for (const auto& arg : req_.argv()) argv.push_back(arg);
    // srun --multi-prog: each task has its own argv (task_argv) and argv is empty.
    const bool own_argv = !isBatch() && req_.task_argv_size() > 0;
    if (argv.empty() && !own_argv) return fail("no command given for the step");

    // Numbered steps name their ranks (cyclic and plane layouts are not contiguous).
    std::vector<std::uint32_t> ranks(req_.task_ranks().begin(), req_.task_ranks().end());
    // The batch script runs once, whatever the job's task count on its first node (its
    // num_tasks is that count, for SLURM_TASKS_PER_NODE); srun starts the tasks.
    if (isBatch()) ranks = {0};
    if (ranks.empty()) {
      const std::uint32_t count = std::max<std::uint32_t>(1, req_.num_tasks());
      for (std::uint32_t i = 0; i < count; ++i) ranks.push_back(req_.first_task() + i);
    }
    const auto ntasks = static_cast<std::uint32_t>(ranks.size());
    if (own_argv && static_cast<std::size_t>(req_.task_argv_size()) != ranks.size()) {
      return fail("the launch names " + std::to_string(req_.task_argv_size()) +
                  " task programs (--multi-prog) for " + std::to_string(ranks.size()) + " tasks");
    }
    launch::Environment base(req_.environment().begin(), req_.environment().end());
    if (isBatch()) addLoginEnvironment(base);
    if (!req_.io_address().empty()) {
      IoForwarder::Hello hello{req_.io_key(), req_.node_id(), opts_.node_name, ranks};
      auto io = IoForwarder::connect(req_.io_address(), hello);
      if (!io) return fail(io.error());
      io_ = std::move(*io);
      // srun --mpi=pmi2: this node's PMI server, sharing the step's keys through srun.
      if (req_.mpi() == "pmi2") {
        pmi::NodeServer::Options pmi;
        pmi.jobid =
            std::to_string(req_.step().job_id()) + "." + std::to_string(req_.step().step_id());
        pmi.size = std::max<std::uint32_t>(req_.step_num_tasks(), ntasks);
        pmi.ranks = ranks;
        pmi_ = std::make_unique<PmiService>(std::move(pmi), *io_);
      }
    }

    limitMemory();
    for (std::uint32_t local = 0; local < ntasks; ++local) {
      launch::TaskContext task;
      task.global_rank = ranks[local];
      task.local_rank = local;
      task.node_id = req_.node_id();
      task.node_name = opts_.node_name;
      task.node_global_ranks = ranks;
      task.pytorch = req_.pytorch_env();
      jobspec::TaskGpuView view = gpuView(local, ntasks);
      if (view.hidden) launch::hideStepGpus(base);
      TaskSpec spec;
      const auto& step_gpus = req_.allocation().gpu_indices();
      spec.stderr_notice =
          jobspec::gpuBindNotice(view, {step_gpus.begin(), step_gpus.end()}, local, opts_.node_name);
      task.bound_gpus = std::move(view.gpus);
      task.tres_bind = std::move(view.tres_bind);
      if (own_argv) {
        const auto& mine = req_.task_argv(static_cast<int>(local)).argv();
        spec.argv.assign(mine.begin(), mine.end());
      } else {
        spec.argv = argv;
      }
      spec.uid = req_.uid();
      spec.gid = req_.gid();
      spec.user = req_.user();
      if (opts_.groups) spec.groups = &*opts_.groups;
      spec.work_dir = req_.work_dir();
      if (!req_.std_in().empty()) spec.stdin_path = taskPath(req_.std_in(), task.global_rank);
      if (!req_.std_out().empty()) spec.stdout_path = taskPath(req_.std_out(), task.global_rank);
      spec.stderr_path = req_.std_err().empty() ? spec.stdout_path
                                                : taskPath(req_.std_err(), task.global_rank);
      // Tasks sharing one file (a pattern without %t) append after the first opened it, so
      // they do not overwrite each other from offset 0.
      spec.append = req_.open_append() || !opened_.insert(spec.stdout_path).second;
      if (cgroup_) spec.cgroup_procs_fd = cgroup_->procsFd();
      launch::Environment vars = launch::taskVariables(task);
      if (pmi_) {
        auto fd = pmi_->openTask(local);
        if (!fd) return failStart(ranks, fd.error());
        spec.pmi_fd = *fd;
        for (auto& [name, value] : pmi_->taskVariables(local, *fd)) vars[name] = std::move(value);
      }
      spec.env = launch::renderEnvironment(base, vars);
      const bool terminal = io_ && req_.pty() && task.global_rank == 0;
      if (terminal) {
        // srun --pty: the terminal is all three of task 0's streams, whatever -i/-o/-e say.
        auto ends = io_->openTerminalTask(task.global_rank, req_.pty_rows(), req_.pty_cols(),
                                          req_.uid());
        if (!ends) return failStart(ranks, "task 0's pseudo-terminal: " + ends.error());
        spec.terminal_fd = ends->terminal_fd;
      } else if (io_) {
        auto pipes = io_->openTask(task.global_rank);
        if (!pipes) return failStart(ranks, pipes.error());
        // srun's -i/-o/-e files win over its stream, as Slurm's: stderr follows -o unless -e.
        // With --pty the other tasks' stream output goes to /dev/null (Slurm's --pty).
        const bool out_file = !req_.std_out().empty();
        if (req_.std_in().empty()) spec.stdin_fd = pipes->stdin_fd;
        if (!out_file && !req_.pty()) spec.stdout_fd = pipes->stdout_fd;
        if (req_.std_err().empty() && !out_file && !req_.pty()) spec.stderr_fd = pipes->stderr_fd;
      }
      if (!terminal) spec.process_group = pgid_;
      int exec_errno = 0;
      auto pid = spawnTask(spec, &exec_errno);
      if (io_) io_->closeTaskEnds(task.global_rank);
      if (pmi_) pmi_->closeTaskEnd(local);
      if (!pid) return failStart(ranks, pid.error(), exec_errno);
      // Task 0 of --pty leads a session of its own, which the other tasks cannot join: they
      // make the step's process group without it.
      if (terminal) terminal_session_ = *pid;
      else if (pgid_ == 0) pgid_ = *pid;
      tasks_.push_back(*pid);
      task_usage_.watch(*pid, task.global_rank);
      running_.insert({*pid, true});
      rank_of_[*pid] = task.global_rank;
    }
    return true;
  }

  // The job's memory on this node becomes the limit of a cgroup holding the step's tasks, as
  // Slurm's task/cgroup does. Without usable cgroups the step runs unlimited, and says so.
  void limitMemory() {
    const std::uint64_t mb = req_.allocation().memory_mb();
    if (mb == 0) return;
    const std::string mount = opts_.cgroup_mount.empty() ? "/sys/fs/cgroup" : opts_.cgroup_mount;
    const auto create = [&](const CgroupRoot& root) {
      return MemoryCgroup::create(root, req_.step().job_id(), req_.step().step_id(),
                                  mb * 1024 * 1024);
    };
    auto cg = [&]() -> Result<MemoryCgroup> {
      if (opts_.memory_cgroup_root) {
        if (auto known = create(*opts_.memory_cgroup_root)) return known;
        // The root the launcher found once may be gone since (an admin removed it): look again.
      }
      return create(findMemoryCgroupRoot(mount));
    }();
    if (!cg) {
      std::fprintf(stderr, "drover-stepd: memory limit of %llu MB not enforced: %s\n",
                   static_cast<unsigned long long>(mb), cg.error().c_str());
      return;
    }
    cgroup_.emplace(std::move(*cg));
  }

  // A numbered step's file pattern for one task (%t %n %N %j %s %u %x %A %a %%); the batch
  // step's paths arrive expanded.
  std::string taskPath(const std::string& pattern, std::uint32_t rank) const {
    if (isBatch()) return pattern;
    jobspec::PatternContext ctx;
    ctx.job_id = static_cast<std::uint32_t>(req_.step().job_id());
    ctx.user = req_.user();
    ctx.node = opts_.node_name;
    ctx.node_index = req_.node_id();
    ctx.step_id = static_cast<std::uint32_t>(req_.step().step_id());
    ctx.task_id = rank;
    const auto& env = req_.environment();
    if (auto it = env.find("SLURM_JOB_NAME"); it != env.end()) ctx.job_name = it->second;
    auto array_job = env.find("SLURM_ARRAY_JOB_ID");
    auto array_task = env.find("SLURM_ARRAY_TASK_ID");
    if (array_job != env.end() && array_task != env.end()) {
      ctx.array_job_id = static_cast<std::uint32_t>(std::stoul(array_job->second));
      ctx.array_task_id = static_cast<std::uint32_t>(std::stoul(array_task->second));
    }
    return jobspec::expandFilenamePattern(pattern, ctx);
  }

  std::string selfName() const {
    return opts_.node_name.empty() ? "drover-stepd" : "drover-stepd-" + opts_.node_name;
  }

  // Slurm's line for a step ended by a cancel, a requeue or its time limit (cancel_notice.h),
  // once, on the first task's stderr of the step's first node: through srun's stream, or
  // appended to its file by a short-lived writer running as the user (never the supervisor
  // itself, as root, on a path the user chose).
  void tellWhy(v1::SignalStepRequest::KillReason reason) {
    // One line per step, from its first node, as the reference's step daemons wrote it.
    if (tasks_.empty() || req_.node_id() != 0) return;
    const std::uint32_t first = rank_of_[tasks_.front()];
    const std::string line =
        cancelNotice(selfName(), req_.step().job_id(), req_.step().step_id(), opts_.node_name,
                     static_cast<std::int64_t>(std::time(nullptr)), reason);
    if (line.empty()) return;
    if (io_ && (req_.pty() || (req_.std_err().empty() && req_.std_out().empty()))) {
      io_->notice(first, line);
      return;
    }
    const std::string& err = req_.std_err().empty() ? req_.std_out() : req_.std_err();
    if (err.empty()) return;
    TaskSpec writer;
    writer.stderr_path = taskPath(err, first);
    if (writer.stderr_path == "/dev/null") return;
    writer.append = true;
    writer.argv = {"/bin/sh", "-c", "printf '%s' \"$0\" >&2", line};
    writer.env = {"PATH=/usr/bin:/bin"};
    writer.uid = req_.uid();
    writer.gid = req_.gid();
    writer.user = req_.user();
    if (opts_.groups) writer.groups = &*opts_.groups;
    writer.work_dir = req_.work_dir();
    writer.stdout_path = "/dev/null";
    if (auto pid = spawnTask(writer); !pid) {
      std::fprintf(stderr, "drover-stepd: the cancel notice was not written: %s\n",
                   pid.error().c_str());
    } else {
      notice_writer_ = *pid;
      notice_until_ = Clock::now() + kNoticeWait;
    }
  }

  // Tasks already started are killed; srun hears why on every task's stderr, then each
  // task's exit, under the step daemon's name and node as the reference's
  // ("slurmstepd-node01: error: execve(): prog: No such file ..."). A failed exec's exit code
  // is its errno, the step's too (the reference's: 2 for a program not found, 13 for one that
  // may not run, 8 for one without "#!"); any other failure's is 2 for the tasks.
  bool failStart(const std::vector<std::uint32_t>& ranks, const std::string& why,
                 int exec_errno = 0) {
    killAll(SIGKILL);
    reapAll();
    pmi_.reset();
    const int code = exec_errno != 0 ? exec_errno : kStartFailureExitCode;
    if (io_) io_->failStart(ranks, selfName() + ": error: " + why + "\n", code);
    io_.reset();
    return fail(why, exec_errno != 0 ? exec_errno : 1);
  }

  // A batch job submitted with --export other than the default or --get-user-env (sbatch put
  // SLURM_GET_USER_ENV=1 among its variables): the user's login environment under the job's
  // own variables, as Slurm's (its default timeout, 8 s). Needs root (su); without it, or when
  // su fails, the job runs with its own variables alone and the supervisor's log says why.
  void addLoginEnvironment(launch::Environment& env) {
    const auto wanted = env.find("SLURM_GET_USER_ENV");
    if (wanted == env.end() || wanted->second != "1") return;
    if (geteuid() != 0) {
      std::fprintf(stderr, "drover-stepd: not root: the login environment of %s is not loaded\n",
                   req_.user().c_str());
      return;
    }
    auto login = loginEnvironment(req_.user(), std::chrono::seconds(8));
    if (!login) {
      std::fprintf(stderr, "drover-stepd: the login environment of %s was not loaded: %s\n",
                   req_.user().c_str(), login.error().c_str());
      return;
    }
    for (auto& [name, value] : *login) env.emplace(name, value);
  }

  bool fail(const std::string& why, int exit_code = 1) {
    outcome_.start_error = why;
    outcome_.exit_code = exit_code;
    return false;
  }

  void killAll(int sig) {
    if (pgid_ > 0) kill(-pgid_, sig);
    // An interactive shell puts each of its jobs in a process group of its own: the whole
    // session goes, as Slurm's process tracking ends everything the step started.
    if (terminal_session_ > 0) signalSession(terminal_session_, sig);
  }

  void deliver(int sig, bool batch_shell_only) {
    if (batch_shell_only && !tasks_.empty()) {
      kill(tasks_.front(), sig);
    } else {
      killAll(sig);
    }
  }

  // `reason`: a SignalStepRequest::KillReason, for the line on the step's stderr (the time
  // limit's own when timed out), with kKillAtOnceFlag for SIGKILL straight away.
  void terminate(bool timed_out, int reason = v1::SignalStepRequest::QUIET) {
    if (terminating_) return;
    terminating_ = true;
    if (timed_out) outcome_.timed_out = true;
    const auto why = timed_out ? v1::SignalStepRequest::TIME_LIMIT
                               : static_cast<v1::SignalStepRequest::KillReason>(reason & 0xff);
    tellWhy(why);
    if (io_ && why != v1::SignalStepRequest::QUIET) io_->stepAborted();
    if ((reason & kKillAtOnceFlag) != 0) {
      killAll(SIGKILL);
      return;
    }
    killAll(SIGCONT);
    killAll(SIGTERM);
    kill_at_ = Clock::now() + std::chrono::seconds(req_.kill_wait_s());
  }

  void supervise() {
    sigset_t set = handledSignals();
    int sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    const auto start = Clock::now();
    if (req_.time_limit_s() > 0) {
      limit_at_ = start + std::chrono::seconds(req_.time_limit_s());
      if (req_.signal_number() > 0) {
        auto warn = std::max<std::int64_t>(0, req_.time_limit_s() - req_.signal_seconds());
        warn_at_ = start + std::chrono::seconds(warn);
      }
    }
    // The first sample waits one interval: short steps are covered by getrusage at the end.
    auto next_sample = start + std::chrono::milliseconds(opts_.usage_sample_ms);
    UsageSampler sampler(pgid_, terminal_session_);
    openUsageSocket();

    std::vector<pollfd> fds;
    while (!running_.empty() || (io_ && !io_->finished()) || writingNotice(Clock::now())) {
      const auto now = Clock::now();
      if (io_ && running_.empty() && !drain_at_) {
        // Whatever the tasks left in their group goes now, so their pipes reach EOF.
        killAll(SIGKILL);
        drain_at_ = now + kDrainWait;
      }
      if (drain_at_ && now >= *drain_at_) {
        if (pipes_abandoned_) break;  // srun stopped reading: give up on it
        io_->abandonPipes();
        pipes_abandoned_ = true;
        drain_at_ = now + kSendWait;
      }
      if (io_ && io_->connectionLost() && !running_.empty() && !outcome_.cancelled) {
        // Nobody reads the output any more: srun is gone, the step ends as if cancelled.
        outcome_.cancelled = true;
        terminate(/*timed_out=*/false);
      }
      if (now >= next_sample) {
        const std::vector<ProcStat> processes = readAllProcStats();
        sampler.sample(processes);
        task_usage_.sample(processes);
        next_sample = now + std::chrono::milliseconds(opts_.usage_sample_ms);
      }
      if (warn_at_ && now >= *warn_at_) {
        deliver(req_.signal_number(), req_.signal_batch_only());
        warn_at_.reset();
      }
      if (limit_at_ && now >= *limit_at_) {
        terminate(/*timed_out=*/true);
        limit_at_.reset();
      }
      if (kill_at_ && now >= *kill_at_) {
        killAll(SIGKILL);
        kill_at_.reset();
      }
      auto deadline = next_sample;
      for (const auto& t : {warn_at_, limit_at_, kill_at_, drain_at_, notice_until_})
        if (t) deadline = std::min(deadline, *t);
      auto wait_ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
      fds.assign(1, pollfd{sfd, POLLIN, 0});
      if (io_) io_->addPollFds(fds);
      const std::size_t usage_slot = fds.size();
      if (usage_fd_ >= 0) fds.push_back(pollfd{usage_fd_, POLLIN, 0});
      const std::size_t pmi_first = fds.size();
      if (pmi_) pmi_->addPollFds(fds);
      int ready = poll(fds.data(), fds.size(),
                       static_cast<int>(std::clamp<std::int64_t>(wait_ms, 0, 1000)));
      if (ready > 0 && fds[0].revents != 0) handleSignal(sfd);
      if (ready > 0 && usage_fd_ >= 0 && fds[usage_slot].revents != 0) {
        answerUsageRequest(usage_fd_, [this] { return currentUsage(); });
      }
      if (ready > 0 && io_) {
        io_->handlePoll(fds, 1);
        for (int sig : io_->takeSignals()) deliver(sig, /*batch_shell_only=*/false);
      }
      if (pmi_) {
        if (ready > 0) pmi_->handlePoll(fds, pmi_first);
        pmi_->exchange();
      }
      reapAll();
    }
    if (sfd >= 0) close(sfd);
    closeUsageSocket();
    pmi_.reset();  // before the stream it uses
    io_.reset();   // EOF to srun after the last exit frame
    outcome_.max_rss_kb = sampler.maxRssKb();
    outcome_.ave_rss_kb = sampler.aveRssKb();
    // Whatever the tasks left behind in their group goes with them, as Slurm's proctrack.
    killAll(SIGKILL);
  }

  // sstat's figures come from here (common/step_usage_socket.h). A step whose socket cannot be
  // made runs on; sstat then reports this node as not answering.
  void openUsageSocket() {
    const auto& step = req_.step();
    const RunNumber run =
        step.has_restart_count() ? RunNumber(step.restart_count()) : std::nullopt;
    auto fd = listenForUsage(
        stepUsageSocketName(opts_.spool_dir, opts_.node_name, step.job_id(), step.step_id(), run));
    if (!fd) {
      std::fprintf(stderr, "drover-stepd: no usage socket for sstat: %s\n", fd.error().c_str());
      return;
    }
    usage_fd_ = *fd;
  }

  void closeUsageSocket() {
    if (usage_fd_ >= 0) close(usage_fd_);
    usage_fd_ = -1;
  }

  std::string currentUsage() {
    auto now = task_usage_.current();
    drover::v1::StepUsage usage;
    for (const auto& f : now.tasks) setTaskUsage(usage.add_tasks(), f, opts_.node_name);
    for (const auto& tree : now.trees) {
      auto* processes = usage.add_task_processes();
      processes->set_task(tree.task);
      for (pid_t pid : tree.pids) {
        processes->add_pids(pid);
        usage.add_pids(pid);
      }
    }
    return usage.SerializeAsString();
  }

  void handleSignal(int sfd) {
    signalfd_siginfo info;
    while (read(sfd, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
      const int sig = static_cast<int>(info.ssi_signo);
      if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP) {
        outcome_.cancelled = true;
        // The agent queues its kills with why (StepTable::signal); any other sender is quiet.
        terminate(/*timed_out=*/false, sig == SIGTERM && info.ssi_code == SI_QUEUE ? info.ssi_int : 0);
      } else if (sig == SIGRTMIN) {
        const int value = info.ssi_int;
        deliver(value & 0xff, (value & kBatchShellOnlyFlag) != 0);
      }
      // SIGCHLD: reapAll() runs after every wakeup.
    }
  }

  void reapAll() {
    for (;;) {
      // Peek first: until it is reaped, an ended task's /proc entry still holds its final
      // I/O figures and last CPU (task_usage.h).
      siginfo_t info{};
      if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid <= 0) return;
      const pid_t pid = info.si_pid;
      task_usage_.ended(pid);
      int status = 0;
      rusage usage{};
      if (wait4(pid, &status, 0, &usage) != pid) return;
      task_usage_.reaped(pid, usage);
      if (pid == notice_writer_) {
        notice_writer_ = 0;
        notice_until_.reset();
      }
      if (running_.erase(pid) == 0) continue;
      const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
      const int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
      outcome_.exit_code = std::max(outcome_.exit_code, code);
      if (sig != 0) outcome_.exit_signal = sig;
      if (io_) io_->taskEnded(rank_of_[pid], code, sig);
    }
  }

  void finish() {
    rusage usage{};
    getrusage(RUSAGE_CHILDREN, &usage);
    auto ms = [](const timeval& tv) {
      return static_cast<std::uint64_t>(tv.tv_sec) * 1000 + tv.tv_usec / 1000;
    };
    outcome_.user_cpu_ms = ms(usage.ru_utime);
    outcome_.system_cpu_ms = ms(usage.ru_stime);
    outcome_.max_rss_kb = std::max<std::uint64_t>(outcome_.max_rss_kb, usage.ru_maxrss);
    if (outcome_.ave_rss_kb == 0) outcome_.ave_rss_kb = outcome_.max_rss_kb;
    outcome_.tasks = task_usage_.figures();
    outcome_.end_time = unixNow();
  }

  const drover::v1::LaunchStepRequest& req_;
  const SupervisorOptions& opts_;
  StepOutcome outcome_;
  pid_t pgid_ = 0;
  pid_t terminal_session_ = 0;         // srun --pty: task 0's session (its pid), 0 = none
  std::vector<pid_t> tasks_;
  std::map<pid_t, bool> running_;
  std::map<pid_t, std::uint32_t> rank_of_;
  std::set<std::string> opened_;  // output files a task of this step already opened
  std::unique_ptr<IoForwarder> io_;   // srun's I/O stream, for steps with an io_address
  std::unique_ptr<PmiService> pmi_;   // srun --mpi=pmi2: the tasks' PMI server; uses io_
  std::optional<MemoryCgroup> cgroup_;  // the step's memory limit, when cgroups are usable
  std::optional<CpuClock> own_clock_;    // when the options bring none
  TaskUsageGatherer task_usage_;         // each task's figures for sacct (Max*/Ave*/Min*)
  int usage_fd_ = -1;                    // listening for sstat's requests; -1 = none
  bool terminating_ = false;
  bool pipes_abandoned_ = false;
  std::optional<Clock::time_point> warn_at_, limit_at_, kill_at_, drain_at_;
  pid_t notice_writer_ = 0;  // the cancel notice's writer, and how long it is waited for,
  std::optional<Clock::time_point> notice_until_;  // until it is reaped

  bool writingNotice(Clock::time_point now) const { return notice_until_ && now < *notice_until_; }
};

}  // namespace

void blockSupervisorSignals() {
  sigset_t set = handledSignals();
  sigprocmask(SIG_BLOCK, &set, nullptr);
}

std::string batchScriptPath(const std::string& spool_dir, std::uint64_t job_id) {
  return spool_dir + "/job" + std::to_string(job_id) + ".script";
}

StepOutcome runStep(const drover::v1::LaunchStepRequest& request, const SupervisorOptions& opts,
                    const std::function<void(int pid)>& on_started) {
  StepRun run(request, opts);
  return run.run(on_started);
}

}  // namespace drover::stepd
