#pragma once
// Everything a user writes to describe a job (sbatch/salloc) or a step (srun), as parsed values.
// An unset optional means "not given"; `sources` says where each given option came from.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "jobspec/array_spec.h"
#include "jobspec/begin_time.h"
#include "jobspec/dependency_spec.h"
#include "jobspec/export_spec.h"
#include "jobspec/gres_spec.h"
#include "jobspec/layout_specs.h"
#include "jobspec/signal_spec.h"

namespace drover::jobspec {

// Lowest to highest precedence: later sources override earlier ones.
enum class OptionSource { Directive, Environment, CommandLine };

struct JobSpec {
  // Identity and placement.
  std::optional<std::string> job_name;
  std::optional<std::string> partition;
  std::optional<std::string> account;
  std::optional<std::string> qos;
  std::optional<std::string> reservation;
  std::optional<std::string> comment;
  std::optional<std::string> constraint;
  std::optional<std::string> prefer;  // --prefer
  std::string gpu_freq;               // --gpu-freq, checked
  std::optional<std::string> nodelist;  // hostlist expression (validated)
  std::optional<std::string> exclude;   // hostlist expression (validated)
  std::optional<std::string> wckey;
  std::optional<std::string> licenses;
  // --uid/--gid as written (a name or a number): whom root submits for. The controller
  // resolves them: a fully static CLI must not load NSS modules (libnss_systemd crashed in
  // sbatch for a name /etc/passwd lacks), and the controller knows the site's users anyway.
  std::optional<std::string> run_as_user;
  std::optional<std::string> run_as_group;
  bool reboot = false;  // --reboot: admins only

  // Time: minutes, kUnlimitedMinutes for UNLIMITED.
  std::optional<std::int64_t> time_limit_minutes;
  std::optional<std::int64_t> time_min_minutes;
  std::optional<std::int64_t> begin_time;  // seconds since the epoch
  std::optional<std::int64_t> deadline;    // seconds since the epoch

  // Layout.
  std::optional<NodeRange> nodes;
  std::optional<std::uint32_t> ntasks;
  std::optional<std::uint32_t> cpus_per_task;
  std::optional<std::uint32_t> ntasks_per_node;
  std::optional<std::uint32_t> ntasks_per_gpu;
  std::optional<std::uint32_t> mincpus;
  std::optional<Distribution> distribution;
  bool overcommit = false;
  bool oversubscribe = false;
  bool contiguous = false;
  bool spread_job = false;
  bool use_min_nodes = false;

  // Memory in MiB. At most one of the three is set (a higher-precedence source replaces the
  // others, as in Slurm).
  std::optional<std::uint64_t> mem_mb;
  std::optional<std::uint64_t> mem_per_cpu_mb;
  std::optional<std::uint64_t> mem_per_gpu_mb;
  std::optional<std::uint64_t> tmp_mb;

  // Generic resources.
  std::vector<GresRequest> gres;
  std::optional<GpuCount> gpus;
  std::optional<GpuCount> gpus_per_node;
  std::optional<GpuCount> gpus_per_task;
  std::optional<GpuCount> gpus_per_socket;
  std::optional<std::uint32_t> cpus_per_gpu;
  std::optional<std::string> gpu_bind;  // as given; a step's binding is stepGpuBind's
  // gpus is -n divided by --ntasks-per-gpu, not a --gpus given (no SLURM_GPUS, no TresPerJob).
  bool gpus_implied = false;

  // I/O and environment. Patterns are kept unexpanded (see filename_pattern.h).
  std::optional<std::string> output;
  std::optional<std::string> error;
  std::optional<std::string> input;
  std::optional<std::string> chdir;
  // srun --bcast[=dest_path]: "" when given without a path (the copy goes to --chdir or the
  // current directory). With it: --compress[=lib] ("" = lz4), --send-libs[=yes|no] ("" = yes)
  // and --bcast-exclude, checked when srun broadcasts (cli/srun_bcast.cpp).
  std::optional<std::string> bcast;
  std::optional<std::string> compress;
  std::optional<std::string> send_libs;
  std::optional<std::string> bcast_exclude;
  std::optional<ExportSpec> export_env;
  std::optional<OpenMode> open_mode;

  // Arrays, dependencies and scheduling.
  std::optional<ArraySpec> array;
  std::optional<DependencySpec> dependency;
  bool hold = false;
  std::optional<bool> requeue;  // --requeue / --no-requeue
  std::optional<ExclusiveMode> exclusive;
  std::optional<std::int64_t> nice;
  std::optional<std::uint32_t> priority;
  std::optional<SignalSpec> signal;
  bool no_kill = false;

  // Notifications (accepted; mail delivery is not configured).
  std::optional<std::uint32_t> mail_type;  // mail::k* bits
  std::optional<std::string> mail_user;

  // sbatch behaviour.
  std::optional<std::string> wrap;  // --wrap command string
  bool parsable = false;
  bool test_only = false;
  bool wait = false;  // sbatch -W
  bool ignore_pbs = false;
  bool get_user_env = false;

  // srun step options.
  bool label = false;
  bool unbuffered = false;
  bool kill_on_bad_exit = false;
  std::optional<std::uint32_t> wait_seconds;  // srun -W
  std::optional<std::string> cpu_bind;
  std::optional<std::string> mpi;
  bool overlap = false;
  bool exact = false;
  std::optional<std::uint32_t> immediate_seconds;  // srun/salloc -I (0: no timeout given)
  std::optional<std::uint32_t> jobid;               // srun --jobid
  bool multi_prog = false;
  bool pty = false;
  bool no_shell = false;   // salloc --no-shell: allocate, run nothing, leave the job running
  std::optional<bool> bell;  // salloc --bell / --no-bell; none: ring after a long wait only
  std::optional<std::uint32_t> relative;
  std::optional<std::string> task_prolog;
  std::optional<std::string> task_epilog;
  bool quit_on_interrupt = false;

  // Verbosity.
  int verbose = 0;
  bool quiet = false;

  // Options Slurm documents that Drover accepts without acting on them: long name -> value
  // ("" for flags).
  std::map<std::string, std::string> accepted_only;

  // Long name of every option given -> where it came from.
  std::map<std::string, OptionSource> sources;

  bool isSet(const std::string& long_name) const { return sources.count(long_name) != 0; }

  // srun "-i all": stdin goes to every task.
  bool inputToAllTasks() const { return input && *input == "all"; }
};

}  // namespace drover::jobspec
