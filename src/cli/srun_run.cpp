#include "cli/srun_run.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_common.h"
#include "cli/file_broadcast.h"
#include "cli/srun_allocation.h"
#include "cli/srun_bcast.h"
#include "cli/srun_step.h"
#include "cli/srun_terminal.h"
#include "config/client_settings.h"
#include "stepio/step_io_server.h"

namespace drover::cli {
namespace {

using Clock = std::chrono::steady_clock;

// How long srun waits for every node to connect before it asks whether the job still runs.
constexpr auto kConnectCheck = std::chrono::seconds(10);
// After it killed the step: how long it waits for the tasks' exits before giving up (Slurm's
// srun waits the kill wait, 30 s by default, and two more).
constexpr auto kAbortWait = std::chrono::seconds(32);
// After it killed the step over the I/O stream: when it also asks the controller to.
constexpr auto kCancelAfter = std::chrono::seconds(3);
// The controller's refusal while other exclusive steps hold what a step asks for.
constexpr const char* kNodesBusy = "Requested nodes are busy";

bool activeState(v1::JobState s) {
  return s == v1::JOB_PENDING || s == v1::JOB_RUNNING || s == v1::JOB_SUSPENDED ||
         s == v1::JOB_COMPLETING;
}

class StepRun {
 public:
  StepRun(ControllerClient& client, const jobspec::JobSpec& options, SignalWatch& signals,
          bool owns_allocation)
      : client_(client), options_(options), signals_(signals), owns_allocation_(owns_allocation) {}

  int run(v1::StepSpec spec) {
    const StdinPlan plan = stdinPlan(options_);
    stepio::StepIoOptions io;
    io.num_tasks = std::max<std::uint32_t>(1, spec.ntasks());
    io.label = options_.label;
    io.unbuffered = options_.unbuffered;
    if (spec.pty()) {
      auto terminal = PtyTerminal::open(STDIN_FILENO);
      if (!terminal.ok()) {
        printError("srun", terminal.error());
        return 1;
      }
      terminal_ = std::move(*terminal);
      io.unbuffered = true;  // Slurm's --pty implies --unbuffered
    }
    io.stdin_mode = plan.mode;
    io.stdin_task = plan.task;
    io.advertise_host = localAddressToward(client_.address().host, client_.address().port);
    io.on_task_end = [this](const stepio::TaskEnd& end) { taskEnded(end); };
    io.pmi = spec.mpi() == "pmi2";
    auto server = stepio::StepIoServer::listen(io);
    if (!server.ok()) {
      printError("srun", server.error());
      return 1;
    }
    server_ = std::move(*server);
    if (spec.pty()) {
      auto size = terminal_->size();
      if (!size) size = windowSizeOf(STDOUT_FILENO);
      setPtyRequest(spec, size ? size->rows : 0, size ? size->cols : 0, server_->port());
    }
    spec.set_io_address(server_->address());
    spec.set_io_key(server_->key());
    job_id_ = spec.job_id();
    // --bcast: the executable goes to the nodes first and the step runs the copies (an
    // --multi-prog step has no one executable: nothing to copy).
    if (options_.bcast && !spec.has_multi_prog()) {
      // Its defaults (BcastParameters) are read only by the steps that broadcast.
      auto settings = config::loadClientSettings(config::defaultConfigPath());
      if (!settings) {
        printError("srun", settings.error());
        return 1;
      }
      if (auto sent = broadcastExecutable(client_, options_, settings->bcast, spec); !sent) {
        printBroadcastError("srun", sent.error());
        return 1;
      }
    }

    v1::CreateStepRequest create;
    *create.mutable_spec() = spec;
    auto reply = client_.createStep(create);
    // Other --exclusive steps hold the CPUs or GPUs asked for: Slurm's srun waits and
    // retries until they are free (the job's time limit or the user's Ctrl-C ends the wait).
    for (bool said = false; !reply.ok() && reply.error().find(kNodesBusy) != std::string::npos;) {
      if (!said) {
        std::cerr << "srun: Job " << job_id_ << " step creation temporarily disabled, retrying ("
                  << kNodesBusy << ")\n";
        said = true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      reply = client_.createStep(create);
      if (reply.ok()) std::cerr << "srun: Step created for StepId=" << job_id_ << "." << reply->step_id() << "\n";
    }
    if (!reply.ok()) {
      std::cerr << formatStepFailure(job_id_, reply.error());
      return 1;
    }
    // Raw only now: srun's messages until here were written to a terminal in its own mode.
    bool raw_failed = false;
    if (terminal_) {
      if (auto raw = terminal_->enterRawMode(); !raw.ok()) {
        printError("srun", raw.error());
        raw_failed = true;
      }
    }
    step_ = std::to_string(reply->job_id() ? reply->job_id() : job_id_) + "." +
            std::to_string(reply->step_id());
    if (options_.verbose > 0) {
      std::cerr << "srun: launching StepId=" << step_ << " on host(s) " << reply->nodelist()
                << "\n";
    }
    std::uint32_t ntasks = reply->ntasks();
    if (ntasks == 0)
      for (const auto& n : reply->nodes()) ntasks += static_cast<std::uint32_t>(n.ranks_size());
    server_->setNumTasks(ntasks);
    total_tasks_ = std::max<std::uint32_t>(1, ntasks);
    expected_nodes_ = static_cast<std::size_t>(reply->nodes_size());
    if (reply->launch_errors_size() > 0) launchFailed(*reply);
    if (raw_failed) {
      std::cerr << "srun: error: Terminating StepId=" << step_ << "\n";
      abort();
    }
    const int code = loop();
    // Close the step's connections now, not when srun exits: each supervisor waits for that
    // after its last frame before it reports the step's end to the controller.
    server_.reset();
    return code;
  }

 private:
  void taskEnded(const stepio::TaskEnd& end) {
    // Nothing more is typed to task 0: srun's messages from now on go to the terminal in its
    // own mode again.
    if (terminal_ && end.rank == 0) terminal_->restore();
    // Said a moment later (flushEnds), so that tasks of a node that ended together make one
    // line, as the reference's "node01: tasks 0-2: Exited with exit code 1" (each task's end
    // comes in a frame of its own).
    if (!stepio::taskOutcome(end).empty()) {
      if (unreported_ends_.empty()) flush_ends_at_ = Clock::now() + kEndsGathered;
      unreported_ends_.push_back(end);
    }
    if (end.signal != 0 && !aborting_) signalled_ = true;
    if (!first_end_) first_end_ = Clock::now();
    if (options_.kill_on_bad_exit && (end.exit_code != 0 || end.signal != 0 || end.lost)) bad_exit_ = true;
  }

  void flushEnds() {
    for (const std::string& line : taskEndLines(unreported_ends_)) std::cerr << line << "\n";
    unreported_ends_.clear();
  }

  void launchFailed(const v1::CreateStepReply& reply) {
    for (const auto& e : reply.launch_errors()) {
      const auto colon = e.find(':');
      const std::string node = colon == std::string::npos ? e : e.substr(0, colon);
      std::cerr << "srun: error: Task launch for StepId=" << step_ << " failed on node " << e << "\n";
      for (const auto& n : reply.nodes()) {
        if (n.node() != node) continue;
        server_->markLost(std::vector<std::uint32_t>(n.ranks().begin(), n.ranks().end()), n.node());
        --expected_nodes_;
      }
    }
    std::cerr << "srun: error: Application launch failed\n";
    abort();
    cancelQuietly(client_, step_);  // nodes that launched but never connect hear it this way
  }

  void sayAborted() {
    if (said_aborted_) return;
    said_aborted_ = true;
    std::cerr << "srun: Job step aborted: Waiting up to " << kAbortWait.count()
              << " seconds for job step to finish.\n";
  }

  void killOverStream() {
    server_->forwardSignal(SIGCONT);
    server_->forwardSignal(SIGKILL);
  }

  // As Slurm's srun after a task's PMI abort: the controller cancels the step, so each node's
  // supervisor says so on the step's stderr (its "*** STEP ... CANCELLED AT ... ***" line)
  // as it kills the tasks; the stream's SIGKILL only if they still run a moment later.
  void cancelStep() {
    aborting_ = true;
    abort_deadline_ = Clock::now() + kAbortWait;
    cancelQuietly(client_, step_);
    stream_kill_at_ = Clock::now() + kCancelAfter;
  }

  void abort() {
    if (aborting_) return;
    aborting_ = true;
    abort_deadline_ = Clock::now() + kAbortWait;
    killOverStream();
    // The controller's cancel (SIGTERM, then SIGKILL after the kill wait) only when the stream
    // could not end the tasks: sent at once it races the SIGKILL and the tasks end by SIGTERM.
    cancel_at_ = Clock::now() + kCancelAfter;
  }

  std::vector<std::uint32_t> runningRanks() const {
    std::vector<std::uint32_t> running;
    std::vector<bool> ended;
    for (const auto& e : server_->taskEnds()) {
      if (ended.size() <= e.rank) ended.resize(e.rank + 1, false);
      ended[e.rank] = true;
    }
    for (std::uint32_t r = 0; r < ntasksSeen(); ++r)
      if (r >= ended.size() || !ended[r]) running.push_back(r);
    return running;
  }

  std::uint32_t ntasksSeen() const {
    std::uint32_t n = 0;
    for (const auto& e : server_->taskEnds()) n = std::max(n, e.rank + 1);
    return std::max(n, total_tasks_);
  }

  void onSignal(int sig) {
    // --pty: srun's terminal was resized; the task's terminal follows (never forwarded).
    if (sig == SIGWINCH) {
      if (auto size = terminal_ ? terminal_->resized() : std::nullopt)
        server_->resizeTerminal(size->rows, size->cols);
      return;
    }
    if (sig == SIGINT) {
      const auto now = Clock::now();
      if (aborting_) {
        ++interrupts_after_abort_;
        std::cerr << "srun: interrupt (abort already in progress)\n";
        return;
      }
      if (options_.quit_on_interrupt || (last_interrupt_ && now - *last_interrupt_ < std::chrono::seconds(1))) {
        std::cerr << "srun: forcing job termination\n";
        sayAborted();
        abort();
        return;
      }
      last_interrupt_ = now;
      std::cerr << "srun: interrupt (one more within 1 sec to abort)\n";
      const auto running = runningRanks();
      if (!running.empty()) {
        std::cerr << "srun: StepId=" << step_ << (running.size() == 1 ? " task " : " tasks ")
                  << compressRanks(running) << ": running\n";
      }
      server_->forwardSignal(SIGINT);
      return;
    }
    server_->forwardSignal(sig);
  }

  // The job ended under srun (scancel of the job, time limit) before every node connected.
  bool jobGone() {
    v1::GetJobsRequest query;
    query.add_job_ids(std::to_string(job_id_));
    query.set_include_finished(true);
    auto jobs = client_.getJobs(query);
    if (!jobs.ok()) return false;
    for (const auto& j : jobs->jobs())
      if (activeState(j.state())) return false;
    return true;
  }

  int loop() {
    std::vector<pollfd> fds;
    auto next_check = Clock::now() + kConnectCheck;
    auto next_notice_check = Clock::now() + kNoticeCheck;
    std::optional<Clock::time_point> wait_deadline;
    while (!server_->done()) {
      const auto now = Clock::now();
      if (bad_exit_ && !aborting_) {
        std::cerr << "srun: error: Terminating StepId=" << step_ << "\n";
        abort();
      }
      if (options_.wait_seconds && *options_.wait_seconds > 0 && first_end_ && !wait_deadline) {
        wait_deadline = *first_end_ + std::chrono::seconds(*options_.wait_seconds);
      }
      if (wait_deadline && now >= *wait_deadline && !aborting_) {
        std::cerr << "srun: error: First task exited " << *options_.wait_seconds << "s ago\n";
        const auto running = runningRanks();
        if (!running.empty()) {
          std::cerr << "srun: error: StepId=" << step_ << (running.size() == 1 ? " task " : " tasks ")
                    << compressRanks(running) << ": running\n";
        }
        std::cerr << "srun: error: Terminating StepId=" << step_ << "\n";
        abort();
      }
      if (stream_kill_at_ && now >= *stream_kill_at_) {
        stream_kill_at_.reset();
        killOverStream();
      }
      if (cancel_at_ && now >= *cancel_at_) {
        cancel_at_.reset();
        cancelQuietly(client_, step_);
      }
      if (aborting_ && (now >= abort_deadline_ || interrupts_after_abort_ > 0)) break;
      // scontrol notify's messages, asked briefly: this loop also carries the tasks' output,
      // which a controller that does not answer (restarting, stopped) must not hold up for
      // long; after such a try srun asks again only kNoticeBackoff later.
      if (owns_allocation_ && now >= next_notice_check) {
        const bool answered = pollAllocation(client_, "srun", job_id_, kNoticeTimeoutMs).has_value();
        next_notice_check = Clock::now() + (answered ? kNoticeCheck : kNoticeBackoff);
      }
      if (now >= next_check) {
        next_check = now + std::chrono::seconds(5);
        if (server_->connectedNodes() < expected_nodes_ && jobGone()) {
          std::cerr << "srun: error: StepId=" << step_ << ": the job ended before every node started its tasks\n";
          break;
        }
      }
      fds.assign(1, pollfd{signals_.fd(), POLLIN, 0});
      server_->addPollFds(fds);
      int wait_ms = 500;
      if (!unreported_ends_.empty()) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(flush_ends_at_ - now);
        wait_ms = static_cast<int>(std::clamp<std::int64_t>(left.count(), 0, wait_ms));
      }
      const int ready = poll(fds.data(), fds.size(), wait_ms);
      if (ready > 0 && fds[0].revents != 0)
        while (auto sig = signals_.take()) onSignal(*sig);
      if (ready > 0) server_->handlePoll(fds, 1);
      // Both are said as soon as their frames came: before the task ends that came with them
      // are printed, and before the loop ends with those.
      // An MPI task called PMI abort (MPI_Abort): the whole step goes, as Slurm's.
      if (!server_->takePmiAborts().empty() && !aborting_) {
        sayAborted();
        cancelStep();
      }
      // The controller is ending the step (scancel, the time limit): said once, as Slurm's.
      if (server_->stepAborted()) sayAborted();
      if (!unreported_ends_.empty() && Clock::now() >= flush_ends_at_) flushEnds();
    }
    flushEnds();
    auto ends = server_->taskEnds();
    // A task killed by a signal nobody here sent (the reference's "kill -9 $$"); not after
    // the step was aborted, which said so.
    if (signalled_ && !aborting_ && !said_aborted_)
      std::cerr << "srun: Force Terminated StepId=" << step_ << "\n";
    if (ends.size() < total_tasks_) return std::max(1, stepio::srunExitCode(ends));
    return stepio::srunExitCode(ends);
  }

  ControllerClient& client_;
  const jobspec::JobSpec& options_;
  SignalWatch& signals_;
  const bool owns_allocation_;
  // How often an srun holding its own allocation asks for scontrol notify's messages.
  static constexpr std::chrono::seconds kNoticeCheck{2};
  static constexpr std::chrono::seconds kNoticeBackoff{30};
  static constexpr int kNoticeTimeoutMs = 500;
  std::unique_ptr<stepio::StepIoServer> server_;
  std::vector<stepio::TaskEnd> unreported_ends_;  // since the last flushEnds
  Clock::time_point flush_ends_at_{};              // when they are said at the latest
  // How long the first unreported end waits for others of its node and outcome.
  static constexpr std::chrono::milliseconds kEndsGathered{100};
  std::unique_ptr<PtyTerminal> terminal_;   // --pty: srun's terminal, raw while the step runs
  std::uint64_t job_id_ = 0;
  std::string step_;
  std::size_t expected_nodes_ = 0;
  std::uint32_t total_tasks_ = 0;
  bool aborting_ = false;
  bool signalled_ = false;
  bool said_aborted_ = false;   // "Job step aborted: ..." was printed
  bool bad_exit_ = false;
  int interrupts_after_abort_ = 0;
  Clock::time_point abort_deadline_{};
  std::optional<Clock::time_point> last_interrupt_;
  std::optional<Clock::time_point> first_end_;
  std::optional<Clock::time_point> cancel_at_;
  std::optional<Clock::time_point> stream_kill_at_;   // cancelStep's fallback
};

}  // namespace

std::string localAddressToward(const std::string& host, std::uint16_t port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port ? port : 9).c_str(), &hints, &found) != 0)
    return "";
  std::string out;
  for (addrinfo* ai = found; ai != nullptr && out.empty(); ai = ai->ai_next) {
    const int fd = socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    sockaddr_storage local{};
    socklen_t len = sizeof local;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0) {
      char text[INET6_ADDRSTRLEN] = {};
      const void* addr = local.ss_family == AF_INET6
                             ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&local)->sin6_addr)
                             : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&local)->sin_addr);
      if (inet_ntop(local.ss_family, addr, text, sizeof text)) out = text;
    }
    close(fd);
  }
  freeaddrinfo(found);
  return out;
}

int runStep(ControllerClient& client, const jobspec::JobSpec& options, v1::StepSpec spec,
            SignalWatch& signals, bool owns_allocation) {
  StepRun run(client, options, signals, owns_allocation);
  return run.run(std::move(spec));
}

}  // namespace drover::cli
