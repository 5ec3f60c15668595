#include "cli/salloc.h"

#include <limits.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "cli/cli_common.h"
#include "cli/controller_client.h"
#include "cli/passwd_file.h"
#include "cli/salloc_env.h"
#include "cli/job_spec_wire.h"
#include "cli/srun_allocation.h"
#include "cli/srun_signals.h"
#include "cli/srun_step.h"
#include "drover/config.h"

namespace drover::cli {
namespace {

constexpr const char* kProg = "salloc";

constexpr const char* kHelp =
    "Usage: salloc [OPTIONS(0)...] [ : [OPTIONS(N)...]] [command(0) [args(0)...]]\n"
    "\n"
    "Options are Slurm's (see `man salloc`); Drover's support for each is listed in\n"
    "docs/cli-compatibility.md. Common ones:\n"
    "  -A, --account=name          charge job to specified account\n"
    "  -c, --cpus-per-task=ncpus   number of cpus required per task\n"
    "      --gres=list             required generic resources\n"
    "  -I, --immediate[=secs]      exit if resources not available in \"secs\"\n"
    "  -J, --job-name=jobname      name of job\n"
    "  -n, --ntasks=ntasks         number of tasks to run\n"
    "  -N, --nodes=N               number of nodes on which to run (N = min[-max])\n"
    "  -p, --partition=partition   partition requested\n"
    "  -t, --time=minutes          time limit\n"
    "\n"
    "Help options:\n"
    "  -h, --help                  show this help message\n"
    "      --usage                 display brief usage message\n";

constexpr const char* kUsage =
    "Usage: salloc [-N numnodes|[min nodes]-[max nodes]] [-n num-processors]\n"
    "              [-c ncpus] [-p partition] [-t minutes] [-J jobname]\n"
    "              [--gres=list] [executable [args...]]\n";

// How often salloc asks whether its job still runs while the command runs.
constexpr auto kJobCheck = std::chrono::seconds(2);

// $SHELL, else the login shell /etc/passwd gives (read by hand: cli/passwd_file.h), else sh.
std::string userShell(const std::map<std::string, std::string>& env) {
  if (auto it = env.find("SHELL"); it != env.end() && !it->second.empty()) return it->second;
  std::ifstream file("/etc/passwd");
  const std::string passwd((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  return loginShellOf(static_cast<std::uint32_t>(getuid()), passwd).value_or("/bin/sh");
}

// Forks the command with `env`; the child restores the signal mask and dispositions salloc
// changed. Returns the child's pid, or -1.
pid_t startCommand(const std::vector<std::string>& command, const std::map<std::string, std::string>& env,
                   const sigset_t& mask) {
  std::vector<std::string> env_storage;
  for (const auto& [k, v] : env) env_storage.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> arg_storage(command);
  std::vector<char*> argvp;
  for (auto& a : arg_storage) argvp.push_back(a.data());
  argvp.push_back(nullptr);
  const std::string not_found = "salloc: error: _fork_command: Unable to find command \"" + command.front() + "\"\n";
  const pid_t pid = fork();
  if (pid != 0) return pid;
  signal(SIGPIPE, SIG_DFL);
  sigprocmask(SIG_SETMASK, &mask, nullptr);
  execvpe(argvp[0], argvp.data(), envp.data());
  (void)!write(2, not_found.data(), not_found.size());
  _exit(127);
}

}  // namespace

bool ringsBell(std::optional<bool> bell, bool stdout_is_terminal,
               std::chrono::steady_clock::duration pending) {
  if (!stdout_is_terminal) return false;
  return bell.value_or(pending > std::chrono::seconds(10));
}

int runSalloc(int argc, char** argv) {
  ParsedLaunch parsed = parseLaunch(jobspec::Tool::Salloc, argc, argv, kHelp, kUsage);
  if (!parsed.input) return parsed.exit_code;
  jobspec::StepRequest& request = parsed.input->request;
  const StepContext& context = parsed.input->context;
  std::vector<std::string> command = request.command;
  // --no-shell ignores a command, as Slurm's salloc; the job is then named "no-shell".
  if (request.spec.no_shell) command = {"no-shell"};
  if (command.empty()) command.push_back(userShell(context.environment));

  auto client = ControllerClient::fromConfig();
  if (!client.ok()) {
    printError(kProg, client.error());
    return 1;
  }
  SignalWatch signals({.child = true});

  if (asksZeroNodes(request.spec)) {
    std::cerr << formatAllocFailure(kProg, kZeroNodesRefusal);
    return 1;
  }
  if (auto fit = jobspec::fitNodesToNodelist(jobspec::Tool::Salloc, request.spec); fit.refused) {
    printError(kProg, fit.message);
    return 1;
  }
  AllocationRequest alloc;
  alloc.prog = kProg;
  jobspec::StepRequest named = request;
  named.command = command;
  alloc.spec = toAllocationSpec(named, context, "salloc");
  alloc.immediate_seconds = request.spec.immediate_seconds;
  alloc.quiet = request.spec.quiet;
  auto got = acquireAllocation(*client, alloc, signals);
  if (!got.allocation) return got.exit_code;
  const v1::JobInfo& job = got.allocation->job;
  const std::uint64_t job_id = job.job_id();
  if (ringsBell(request.spec.bell, ::isatty(STDOUT_FILENO) == 1, got.allocation->pending)) {
    (void)!::write(STDOUT_FILENO, "\a", 1);
  }
  // --no-shell: the allocation stays until its time limit, scancel, or `scontrol update
  // JobId=N EndTime=now`; `srun --jobid=N` runs steps in it.
  if (request.spec.no_shell) return 0;

  SallocContext sc;
  sc.cluster_name = got.allocation->cluster_name;
  sc.controller_host = client->address().host;
  sc.controller_port = client->address().port;
  const auto& env = context.environment;
  if (auto it = env.find("DROVER_CONF"); it != env.end()) sc.conf_path = it->second;
  else sc.conf_path = config::defaultConfigPath();
  sc.submit_dir = context.cwd;
  sc.submit_host = context.host;
  sc.mem_per_cpu_given = request.spec.mem_per_cpu_mb.has_value();
  auto child_env = env;
  for (const auto& [k, v] : sallocVariables(job, sc)) child_env[k] = v;

  const pid_t child = startCommand(command, child_env, signals.previousMask());
  if (child < 0) {
    printError(kProg, std::string("fork: ") + strerror(errno));
    std::cerr << "salloc: Relinquishing job allocation " << job_id << "\n";
    releaseAllocation(*client, kProg, job_id, 1, 0);
    return 1;
  }

  int status = 0;
  bool revoked = false;
  auto next_check = std::chrono::steady_clock::now() + kJobCheck;
  for (;;) {
    const pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child) break;
    const auto sig = signals.wait(500);
    if (sig && *sig != SIGCHLD && *sig != SIGINT) kill(child, *sig);
    if (!revoked && std::chrono::steady_clock::now() >= next_check) {
      next_check = std::chrono::steady_clock::now() + kJobCheck;
      if (!allocationStillRuns(*client, kProg, job_id)) {
        revoked = true;
        std::cerr << "salloc: Job allocation " << job_id << " has been revoked.\n";
        kill(child, SIGHUP);
      }
    }
  }
  int exit_code = 0;
  int exit_signal = 0;
  if (WIFEXITED(status)) exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) exit_signal = WTERMSIG(status);
  if (!request.spec.quiet) std::cerr << "salloc: Relinquishing job allocation " << job_id << "\n";
  if (!revoked) releaseAllocation(*client, kProg, job_id, exit_code, exit_signal);
  return exit_signal != 0 ? 128 + exit_signal : exit_code;
}

}  // namespace drover::cli
