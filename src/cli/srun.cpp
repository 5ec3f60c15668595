#include "cli/srun.h"

#include <limits.h>
#include <unistd.h>

#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "cli/cli_common.h"
#include "cli/controller_client.h"
#include "cli/job_spec_wire.h"
#include "cli/srun_allocation.h"
#include "cli/srun_multi_prog.h"
#include "cli/srun_run.h"
#include "cli/srun_signals.h"
#include "cli/srun_step.h"
#include "config/client_settings.h"
#include "jobspec/layout_specs.h"


namespace drover::cli {
namespace {

constexpr const char* kProg = "srun";

constexpr const char* kHelp =
    "Usage: srun [OPTIONS(0)... [executable(0) [args(0)...]]] [ : [OPTIONS(N)...]] executable(N) [args(N)...]\n"
    "\n"
    "Options are Slurm's (see `man srun`); Drover's support for each is listed in\n"
    "docs/cli-compatibility.md. Common ones:\n"
    "  -c, --cpus-per-task=ncpus   number of cpus required per task\n"
    "  -D, --chdir=path            change remote current working directory\n"
    "  -e, --error=err             location of stderr redirection\n"
    "      --export=env_vars|NONE  environment variables passed to launcher\n"
    "      --gres=list             required generic resources\n"
    "  -i, --input=in              location of stdin redirection\n"
    "  -I, --immediate[=secs]      exit if resources not available in \"secs\"\n"
    "      --jobid=id              run under already allocated job\n"
    "  -J, --job-name=jobname      name of job\n"
    "  -K, --kill-on-bad-exit      kill the job if any task terminates with a\n"
    "                              non-zero exit code\n"
    "  -l, --label                 prepend task number to lines of stdout/err\n"
    "  -m, --distribution=type     distribution method for processes to nodes\n"
    "  -n, --ntasks=ntasks         number of tasks to run\n"
    "  -N, --nodes=N               number of nodes on which to run (N = min[-max])\n"
    "  -o, --output=out            location of stdout redirection\n"
    "  -p, --partition=partition   partition requested\n"
    "  -t, --time=minutes          time limit\n"
    "  -u, --unbuffered            do not line-buffer stdout/err\n"
    "  -W, --wait=sec              seconds to wait after first task exits\n"
    "                              before killing job\n"
    "  -w, --nodelist=hosts...     request a specific list of hosts\n"
    "\n"
    "Help options:\n"
    "  -h, --help                  show this help message\n"
    "      --usage                 display brief usage message\n";

constexpr const char* kUsage =
    "Usage: srun [-N nnodes] [-n ntasks] [-c ncpus] [-p partition] [-t minutes]\n"
    "            [-J jobname] [-o out] [-e err] [-i in] [-D path] [-l] [-u]\n"
    "            [--jobid=id] [--gres=list] [--export[=names]] executable [args...]\n";

}  // namespace

int runSrun(int argc, char** argv) {
  ParsedLaunch parsed = parseLaunch(jobspec::Tool::Srun, argc, argv, kHelp, kUsage);
  if (!parsed.input) return parsed.exit_code;
  jobspec::StepRequest& request = parsed.input->request;
  if (request.spec.mpi && *request.spec.mpi == "list") {
    // As Slurm's: the list on stdout, whatever else was asked, and nothing run.
    std::cout << "MPI plugin types are...\n";
    for (std::string_view type : jobspec::mpiTypes()) std::cout << '\t' << type << '\n';
    return 0;
  }
  if (auto warning = jobspec::fitNodesToTasks(jobspec::Tool::Srun, request.spec)) std::cerr << *warning;
  if (request.spec.multi_prog) {
    auto loaded = loadMultiProg(request);
    if (!loaded.ok()) {
      printError(kProg, loaded.error());
      return 1;
    }
    parsed.input->context.multi_prog = std::move(*loaded);
  }
  const StepContext& context = parsed.input->context;

  auto settings = config::loadClientSettings(config::defaultConfigPath());
  if (!settings.ok()) {
    printError(kProg, settings.error());
    return 1;
  }
  // cluster.conf's steps.mpi_default (Slurm's MpiDefault) when neither --mpi nor
  // SLURM_MPI_TYPE named a type.
  if (!request.spec.mpi && settings->steps.mpi_default != "none")
    request.spec.mpi = settings->steps.mpi_default;
  ControllerClient client = ControllerClient::fromSettings(*settings);
  SignalWatch signals({.window_size = request.spec.pty});

  if (auto job_id = allocationJobId(request.spec)) {
    return runStep(client, request.spec, toStepSpec(request, context, *job_id, true), signals,
                   /*owns_allocation=*/false);
  }

  if (asksZeroNodes(request.spec)) {
    std::cerr << formatAllocFailure(kProg, kZeroNodesRefusal);
    return 1;
  }
  if (auto fit = jobspec::fitNodesToNodelist(jobspec::Tool::Srun, request.spec); !fit.message.empty()) {
    printError(kProg, fit.message);  // the list trimmed to -N's most, the step goes on
  }
  AllocationRequest alloc;
  alloc.prog = kProg;
  alloc.spec = toAllocationSpec(request, context, "srun");
  alloc.immediate_seconds = request.spec.immediate_seconds;
  alloc.quiet = request.spec.quiet;
  auto got = acquireAllocation(client, alloc, signals);
  if (!got.allocation) return got.exit_code;
  const std::uint64_t job_id = got.allocation->job.job_id();
  const int status = runStep(client, request.spec, toStepSpec(request, context, job_id, false),
                             signals, /*owns_allocation=*/true);
  const auto end = allocationEndOf(status);
  releaseAllocation(client, kProg, job_id, end.exit_code, end.signal);
  return status;
}

}  // namespace drover::cli
