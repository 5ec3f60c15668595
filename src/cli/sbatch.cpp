#include "cli/sbatch.h"

#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>
#include <thread>

#include "cli/cli_common.h"
#include "cli/controller_client.h"
#include "cli/job_spec_wire.h"
#include "cli/job_values.h"
#include "cli/node_values.h"
#include "jobspec/build_spec.h"
#include "jobspec/command_line.h"


namespace drover::cli {
namespace {

constexpr const char* kProg = "sbatch";

constexpr const char* kHelp =
    "Usage: sbatch [OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0) [args(0)...]\n"
    "\n"
    "Options are Slurm's (see `man sbatch`); Drover's support for each is listed in\n"
    "docs/cli-compatibility.md. Common ones:\n"
    "  -a, --array=indexes         job array index values\n"
    "  -A, --account=name          charge job to specified account\n"
    "  -c, --cpus-per-task=ncpus   number of cpus required per task\n"
    "  -d, --dependency=type:jobid[:time] defer job until condition on jobid is satisfied\n"
    "  -D, --chdir=directory       set working directory for batch script\n"
    "  -e, --error=err             file for batch script's standard error\n"
    "      --export[=names]        specify environment variables to export\n"
    "      --gres=list             required generic resources\n"
    "  -H, --hold                  submit job in held state\n"
    "  -J, --job-name=jobname      name of job\n"
    "  -n, --ntasks=ntasks         number of tasks to run\n"
    "  -N, --nodes=N               number of nodes on which to run (N = min[-max])\n"
    "  -o, --output=out            file for batch script's standard output\n"
    "  -p, --partition=partition   partition requested\n"
    "      --parsable              outputs only the jobid and cluster name (if present),\n"
    "                              separated by semicolon, only on successful submission.\n"
    "  -t, --time=minutes          time limit\n"
    "      --test-only             validate the job and report when it would start\n"
    "  -W, --wait                  wait for completion of submitted job\n"
    "      --wrap[=command string] wrap command string in a sh script and submit\n"
    "\n"
    "Help options:\n"
    "  -h, --help                  show this help message\n"
    "      --usage                 display brief usage message\n";

constexpr const char* kUsage =
    "Usage: sbatch [-N nnodes] [-n ntasks] [-c ncpus] [-p partition] [-t minutes]\n"
    "              [-J jobname] [-o out] [-e err] [-D path] [--array=indexes]\n"
    "              [--dependency=type:jobid] [--gres=list] [--export[=names]]\n"
    "              [--parsable] [--test-only] [--wait] [--wrap=command] executable [args...]\n";

}  // namespace

std::string formatSubmitted(const v1::SubmitJobReply& reply, bool parsable, bool with_cluster) {
  if (parsable) {
    std::string out = std::to_string(reply.job_id());
    if (with_cluster && !reply.cluster_name().empty()) out += ";" + reply.cluster_name();
    return out + "\n";
  }
  return "Submitted batch job " + std::to_string(reply.job_id()) + "\n";
}

std::string formatTestOnly(const v1::SubmitJobReply& reply) {
  std::string out = "sbatch: Job " + std::to_string(reply.job_id()) + " to start at " +
                    formatIsoTime(reply.expected_start(), "Unknown") + " using " +
                    std::to_string(reply.test_only_cpus()) + " processors on nodes " +
                    reply.test_only_nodes();
  if (!reply.test_only_partition().empty()) out += " in partition " + reply.test_only_partition();
  return out + "\n";
}

// `test_only`: --test-only's refusal, which the reference printed as `allocation failure: <why>`
// (no "sbatch: error:" label), the hint lines before it as usual.
std::string formatSubmitFailure(const std::string& controller_message, bool test_only) {
  static const std::string kPrefix = "Batch job submission failed: ";
  std::vector<std::string> lines;
  std::istringstream in(controller_message);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) lines.push_back(line);
  if (lines.empty()) lines.push_back("Unexpected failure");
  bool prefixed = false;
  for (const auto& l : lines)
    if (l.rfind(kPrefix, 0) == 0) prefixed = true;
  // Slurm prints these bare (golden 009).
  const bool bare = lines.size() == 1 && lines.back() == "Invalid generic resource (gres) specification";
  if (test_only) {
    std::string why = lines.back();
    if (why.rfind(kPrefix, 0) == 0) why.erase(0, kPrefix.size());
    lines.pop_back();
    std::string out;
    for (const auto& l : lines) out += "sbatch: error: " + l + "\n";
    return out + "allocation failure: " + why + "\n";
  }
  if (!prefixed && !bare) lines.back() = kPrefix + lines.back();
  std::string out;
  for (const auto& l : lines) out += "sbatch: error: " + l + "\n";
  return out;
}

// As the reference's sbatch --wait: the job's exit code when it exited, 1 when a signal ended it
// (`kill -9 $$` and a scancel'ed running job: 1), 0 for one that never ran (cancelled pending).
int waitExitStatus(const v1::JobInfo& job) {
  if (job.exit_signal() != 0) return 1;
  return static_cast<int>(job.exit_code() & 0xff);
}

int runSbatch(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const std::int64_t now = static_cast<std::int64_t>(std::time(nullptr));
  auto env = processEnvironment();
  auto cl = jobspec::parseCommandLine(jobspec::Tool::Sbatch, args, now);
  if (!cl) {
    std::cerr << cl.error().text << "\n";
    return cl.error().exit_code;
  }
  if (cl->version) {
    std::cout << kVersionLine << "\n";
    return 0;
  }
  if (cl->help || cl->usage) {
    std::cout << (cl->help ? kHelp : kUsage);
    return 0;
  }
  std::optional<std::string> script_text;
  if (!cl->spec.wrap) {
    std::string text;
    if (cl->positional.empty()) {
      if (isatty(STDIN_FILENO)) std::cerr << "sbatch: Reading batch script from stdin\n";
      text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    } else {
      const int fd = ::open(cl->positional.front().c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        printError(kProg, "Unable to open file " + cl->positional.front());
        return 1;
      }
      // A file that opens but does not read (a directory) is an empty script, as the
      // reference says of one ("Batch script is empty!").
      char buf[65536];
      for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) != 0;) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
          text.clear();
          break;
        }
        text.append(buf, static_cast<std::size_t>(n));
      }
      ::close(fd);
    }
    script_text = std::move(text);
  }
  auto request = jobspec::buildBatchRequest(*cl, env, script_text, now);
  if (!request) {
    std::cerr << request.error().text << "\n";
    return request.error().exit_code;
  }
  if (auto warning = jobspec::fitNodesToTasks(jobspec::Tool::Sbatch, request->spec)) std::cerr << *warning;
  if (request->spec.mail_type || request->spec.mail_user) {
    // Accepted for compatibility; Drover sends no mail.
    if (request->spec.verbose > 0) std::cerr << "sbatch: mail is not configured; --mail-* ignored\n";
  }

  if (asksZeroNodes(request->spec)) {
    std::cerr << formatSubmitFailure(kZeroNodesRefusal, request->spec.test_only);
    return 1;
  }
  if (auto fit = jobspec::fitNodesToNodelist(jobspec::Tool::Sbatch, request->spec); fit.refused) {
    printError(kProg, fit.message);
    return 1;
  }
  SubmitContext context;
  context.environment = std::move(env);
  context.cwd = workingDirectory();
  context.host = hostName();
  context.submit_line = submitLine("sbatch", args);

  auto client = ControllerClient::fromConfig();
  if (!client.ok()) {
    printError(kProg, client.error());
    return 1;
  }
  v1::SubmitJobRequest submit;
  *submit.mutable_spec() = toWireSpec(*request, context);
  auto reply = client->submitJob(submit);
  if (!reply.ok()) {
    const auto kind = client->lastFailure();
    if (kind == FailureKind::kInvalid || kind == FailureKind::kNotFound || kind == FailureKind::kOther) {
      std::cerr << formatSubmitFailure(reply.error(), request->spec.test_only);
    } else {
      printError(kProg, reply.error());
    }
    return 1;
  }
  for (const auto& w : reply->warnings()) std::cerr << "sbatch: " << w << "\n";
  if (request->spec.test_only) {
    // A controller that does not fill these gets the request's own figures.
    v1::SubmitJobReply shown = *reply;
    const auto& spec = submit.spec();
    if (shown.test_only_cpus() == 0) {
      const std::uint32_t tasks = spec.ntasks() > 0 ? spec.ntasks() : std::max(1u, spec.min_nodes());
      shown.set_test_only_cpus(tasks * std::max(1u, spec.cpus_per_task()));
    }
    if (shown.test_only_partition().empty()) shown.set_test_only_partition(spec.partition());
    std::cerr << formatTestOnly(shown);
    return 0;
  }
  const bool with_cluster = request->spec.accepted_only.count("clusters") != 0 ||
                            request->spec.accepted_only.count("cluster") != 0;
  std::cout << formatSubmitted(*reply, request->spec.parsable, with_cluster);
  std::cout.flush();
  if (!request->spec.wait) return 0;

  // --wait: poll until the job (every task of an array) has finished.
  auto delay = std::chrono::milliseconds(100);
  for (;;) {
    std::this_thread::sleep_for(delay);
    if (delay < std::chrono::seconds(2)) delay *= 2;
    v1::GetJobsRequest query;
    query.add_job_ids(std::to_string(reply->job_id()));
    query.set_include_finished(true);
    auto jobs = client->getJobs(query);
    if (!jobs.ok()) {
      if (client->lastFailure() == FailureKind::kUnreachable) continue;  // controller restarting
      printError(kProg, jobs.error());
      return 1;
    }
    bool active = false;
    int status = 0;
    for (const auto& j : jobs->jobs()) {
      if (isActiveState(j.state())) active = true;
      status = std::max(status, waitExitStatus(j));
    }
    if (!active && jobs->jobs_size() > 0) return status;
  }
}

}  // namespace drover::cli
