#include <algorithm>
#include <array>

#include "drover/hostlist.h"
#include "common/ascii_case.h"
#include "common/comma_list.h"
#include "drover/time_spec.h"
#include "jobspec/gpu_bind.h"
#include "jobspec/options.h"
#include "jobspec/parse_util.h"

namespace drover::jobspec {

namespace {

using Arg = std::optional<std::string_view>;
using Out = std::optional<OptionError>;

constexpr unsigned B = static_cast<unsigned>(Tool::Sbatch);
constexpr unsigned R = static_cast<unsigned>(Tool::Srun);
constexpr unsigned A = static_cast<unsigned>(Tool::Salloc);
constexpr unsigned ALL = B | R | A;

OptionError invalidSpec(const ApplyContext& ctx) {
  return {"error: Invalid --" + std::string(ctx.long_name) + " specification", kExitBadOption};
}

OptionError invalidNumeric(Arg arg, const ApplyContext& ctx) {
  return {"error: Invalid numeric value \"" + std::string(arg.value_or("")) + "\" for --" +
              std::string(ctx.long_name) + ".",
          kExitError};
}

template <auto Field>
Out setString(ParsedCommand& pc, Arg arg, const ApplyContext&) {
  pc.spec.*Field = std::string(arg.value_or(""));
  return std::nullopt;
}

template <auto Field>
Out setTrue(ParsedCommand& pc, Arg, const ApplyContext&) {
  pc.spec.*Field = true;
  return std::nullopt;
}

// Positive 32-bit count ("-n 4"); Slurm rejects 0 and junk with its numeric-value message.
template <auto Field>
Out setPositive(ParsedCommand& pc, Arg arg, const ApplyContext& ctx) {
  auto v = detail::parseUnsigned(arg.value_or(""), UINT32_MAX);
  if (!v || *v == 0) return invalidNumeric(arg, ctx);
  pc.spec.*Field = static_cast<std::uint32_t>(*v);
  return std::nullopt;
}

template <auto Field>
Out setNonNegative(ParsedCommand& pc, Arg arg, const ApplyContext& ctx) {
  auto v = detail::parseUnsigned(arg.value_or(""), UINT32_MAX);
  if (!v) return invalidNumeric(arg, ctx);
  pc.spec.*Field = static_cast<std::uint32_t>(*v);
  return std::nullopt;
}

template <auto Field>
Out setMinutes(ParsedCommand& pc, Arg arg, const ApplyContext& ctx) {
  auto m = parseTimeLimitMinutes(arg.value_or(""));
  if (!m) return invalidSpec(ctx);
  pc.spec.*Field = *m;
  return std::nullopt;
}

// -t/--time: as setMinutes, but "A time limit of zero requests that no time limit be imposed"
// (sbatch(1)): the reference refused `-t 0` as it refused `-t UNLIMITED` in partitions with a
// MaxTime (sbatch, srun and salloc alike).
Out setTimeLimit(ParsedCommand& pc, Arg arg, const ApplyContext& ctx) {
  auto m = parseTimeLimitMinutes(arg.value_or(""));
  if (!m) return invalidSpec(ctx);
  pc.spec.time_limit_minutes = *m == 0 ? kUnlimitedMinutes : *m;
  return std::nullopt;
}

template <auto Field>
Out setGpuCount(ParsedCommand& pc, Arg arg, const ApplyContext&) {
  auto g = parseGpuCount(arg.value_or(""));
  if (!g) return OptionError{"error: Invalid generic resource (gres) specification", kExitError};
  pc.spec.*Field = *g;
  return std::nullopt;
}

template <auto Field>
Out setHostlist(ParsedCommand& pc, Arg arg, const ApplyContext&) {
  std::string_view text = arg.value_or("");
  // A '/' means a file of host names, which the CLI reads; keep it as written.
  if (text.find('/') == std::string_view::npos) {
    auto hosts = hostlist::expand(text);
    if (!hosts) return OptionError{"error: Invalid node name specified: " + std::string(text), kExitError};
  }
  pc.spec.*Field = std::string(text);
  return std::nullopt;
}

Out acceptOnly(ParsedCommand& pc, Arg arg, const ApplyContext& ctx) {
  pc.spec.accepted_only[std::string(ctx.long_name)] = std::string(arg.value_or(""));
  return std::nullopt;
}

// --mem, --mem-per-cpu and --mem-per-gpu exclude each other within one source; a higher
// source replaces what a lower one set.
template <auto Field>
Out setMemory(ParsedCommand& pc, Arg arg, const ApplyContext& ctx) {
  auto mb = parseJobMemoryMb(arg.value_or(""));
  if (!mb) return invalidSpec(ctx);
  struct Other {
    const char* name;
    std::optional<std::uint64_t> JobSpec::*field;
  };
  const std::array<Other, 3> trio = {{{"mem", &JobSpec::mem_mb},
                                      {"mem-per-cpu", &JobSpec::mem_per_cpu_mb},
                                      {"mem-per-gpu", &JobSpec::mem_per_gpu_mb}}};
  for (const auto& o : trio) {
    if (o.field == Field || !(pc.spec.*(o.field))) continue;
    auto src = pc.spec.sources.find(o.name);
    if (src != pc.spec.sources.end() && src->second == ctx.source) {
      return OptionError{"fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.",
                         kExitError};
    }
    pc.spec.*(o.field) = std::nullopt;
    pc.spec.sources.erase(o.name);
  }
  pc.spec.*Field = *mb;
  return std::nullopt;
}

Out applyNodes(ParsedCommand& pc, Arg arg, const ApplyContext&) {
  auto r = parseNodeRange(arg.value_or(""));
  if (!r) return OptionError{"error: " + r.error(), kExitBadOption};
  pc.spec.nodes = *r;
  return std::nullopt;
}

Out applyGres(ParsedCommand& pc, Arg arg, const ApplyContext&) {
  auto g = parseGresList(arg.value_or(""));
  if (!g) return OptionError{"error: Invalid generic resource (gres) specification", kExitError};
  pc.spec.gres = std::move(*g);
  return std::nullopt;
}

Out applyArray(ParsedCommand& pc, Arg arg, const ApplyContext&) {
  auto a = parseArraySpec(arg.value_or(""));
  if (!a) {
    return OptionError{"error: Batch job submission failed: Invalid job array specification",
                       kExitError};
  }
  pc.spec.array = std::move(*a);
  return std::nullopt;
}

Out applyDependency(ParsedCommand& pc, Arg arg, const ApplyContext& ctx) {
  auto d = parseDependencySpec(arg.value_or(""));
  if (!d) {
    std::string what = ctx.tool == Tool::Sbatch   ? "Batch job submission failed"
                       : ctx.tool == Tool::Salloc ? "Job submit/allocate failed"
                                                  : "Unable to allocate resources";
    return OptionError{"error: " + what + ": Job dependency problem", kExitError};
  }
  pc.spec.dependency = std::move(*d);
  return std::nullopt;
}

Out applySignal(ParsedCommand& pc, Arg arg, const ApplyContext& ctx) {
  auto s = parseSignalSpec(arg.value_or(""));
  if (!s) return invalidSpec(ctx);
  pc.spec.signal = *s;
  return std::nullopt;
}

Out applyBegin(ParsedCommand& pc, Arg arg, const ApplyContext& ctx) {
  auto t = parseBeginTime(arg.value_or(""), ctx.now);
  if (!t) {
    OptionError error = invalidSpec(ctx);
    error.preamble = t.error();   // Slurm's "Invalid time specification (pos=N): X" first
    return error;
  }
  if (ctx.long_name == "deadline") {
    pc.spec.deadline = *t;
  } else {
    pc.spec.begin_time = *t;
  }
  return std::nullopt;
}

Out applyExport(ParsedCommand& pc, Arg arg, const ApplyContext& ctx) {
  auto e = parseExportSpec(arg.value_or("ALL"));
  if (!e) return invalidSpec(ctx);
  pc.spec.export_env = std::move(*e);
  return std::nullopt;
}

Out applyDistribution(ParsedCommand& pc, Arg arg, const ApplyContext& ctx) {
  auto d = parseDistribution(arg.value_or(""));
  if (!d) return invalidSpec(ctx);
  pc.spec.distribution = std::move(*d);
  return std::nullopt;
}

Out applyOpenMode(ParsedCommand& pc, Arg arg, const ApplyContext& ctx) {
  auto m = parseOpenMode(arg.value_or(""));
  if (!m) return invalidSpec(ctx);
  pc.spec.open_mode = *m;
  return std::nullopt;
}

Out applyMailType(ParsedCommand& pc, Arg arg, const ApplyContext& ctx) {
  auto m = parseMailType(arg.value_or(""));
  if (!m) return invalidSpec(ctx);
  pc.spec.mail_type = *m;
  return std::nullopt;
}

Out applyExclusive(ParsedCommand& pc, Arg arg, const ApplyContext& ctx) {
  auto m = parseExclusive(arg);
  if (!m) return invalidSpec(ctx);
  pc.spec.exclusive = *m;
  return std::nullopt;
}

// The value is read as strtol reads it, as the reference does: an optional sign and the
// leading digits, the rest ignored ("5abc" is 5, "abc" 0); only a number out of range is refused.
Out applyNice(ParsedCommand& pc, Arg arg, const ApplyContext&) {
  constexpr std::int64_t kMaxNice = 2147483645;  // NICE_OFFSET - 3, as Slurm bounds it
  if (!arg) {
    pc.spec.nice = 100;
    return std::nullopt;
  }
  std::string_view text = *arg;
  const bool negative = !text.empty() && text.front() == '-';
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) text.remove_prefix(1);
  std::int64_t value = 0;
  for (std::size_t i = 0; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    value = value * 10 + (text[i] - '0');
    if (value > kMaxNice) {
      return OptionError{"error: Invalid --nice value, out of range (+/- 2147483645)", kExitBadOption};
    }
  }
  pc.spec.nice = negative ? -value : value;
  return std::nullopt;
}

Out applyRequeue(ParsedCommand& pc, Arg, const ApplyContext& ctx) {
  pc.spec.requeue = ctx.long_name == "requeue";
  return std::nullopt;
}

Out applyBell(ParsedCommand& pc, Arg, const ApplyContext& ctx) {
  pc.spec.bell = ctx.long_name == "bell";
  return std::nullopt;
}

Out applyCpuBind(ParsedCommand& pc, Arg arg, const ApplyContext&) {
  auto c = parseCpuBind(arg.value_or(""));
  if (!c) return OptionError{"error: " + c.error() + "\nfatal: Failed to parse --cpu-bind= values.", kExitError};
  pc.spec.cpu_bind = *c;
  return std::nullopt;
}

Out applyGpuBind(ParsedCommand& pc, Arg arg, const ApplyContext&) {
  const std::string text(arg.value_or(""));
  if (auto b = parseGpuBind(text); !b) {
    // Slurm's line (its "gpu:" prefix included) and exit code, with what was wrong after it.
    return OptionError{"error: Invalid --gpu-bind argument: gpu:" + text + " (" + b.error() + ")",
                       kExitBadOption};
  }
  pc.spec.gpu_bind = text;
  return std::nullopt;
}

Out applyMpi(ParsedCommand& pc, Arg arg, const ApplyContext&) {
  auto m = parseMpiType(arg.value_or(""));
  if (!m) return OptionError{"error: " + m.error(), kExitError};
  pc.spec.mpi = *m;
  return std::nullopt;
}

Out applyImmediate(ParsedCommand& pc, Arg arg, const ApplyContext& ctx) {
  if (!arg) {
    pc.spec.immediate_seconds = 0;
    return std::nullopt;
  }
  auto v = detail::parseUnsigned(*arg, UINT32_MAX);
  if (!v) return invalidNumeric(arg, ctx);
  pc.spec.immediate_seconds = static_cast<std::uint32_t>(*v);
  return std::nullopt;
}

// --gpu-freq=[<type>=]<value>[,<type>=<value>][,verbose] (sbatch(1)): type "memory" or none
// (the GPU's clock), a value low, medium, high, highm1 or MHz, lower case; empty items skipped,
// as the reference took `high,`. Anything else is refused with the reference's words and exit
// code 255 (`--gpu-freq=bogus`: "Invalid --gpu-freq argument: gpu:bogus"; `HIGH` too).
Out applyGpuFreq(ParsedCommand& pc, Arg arg, const ApplyContext&) {
  const std::string value(arg.value_or(""));
  auto level = [](std::string_view v) {
    return v == "low" || v == "medium" || v == "high" || v == "highm1" ||
           (!v.empty() && v.size() <= 9 && v.find_first_not_of("0123456789") == std::string_view::npos);
  };
  const std::vector<std::string> items = splitCommas(value);
  const bool ok = !items.empty() && std::all_of(items.begin(), items.end(), [&](std::string_view item) {
    if (item.substr(0, 7) == "memory=") item.remove_prefix(7);
    return item == "verbose" || level(item);
  });
  if (!ok) return OptionError{"error: Invalid --gpu-freq argument: gpu:" + value, 255};
  pc.spec.gpu_freq = value;
  return std::nullopt;
}

Out applyTmp(ParsedCommand& pc, Arg arg, const ApplyContext& ctx) {
  auto mb = parseJobMemoryMb(arg.value_or(""));
  if (!mb) return invalidSpec(ctx);
  pc.spec.tmp_mb = *mb;
  return std::nullopt;
}

Out applyPriority(ParsedCommand& pc, Arg arg, const ApplyContext& ctx) {
  std::string_view v = arg.value_or("");
  if (equalsIgnoreCase(v, "top")) {
    pc.spec.priority = UINT32_MAX - 1;
    return std::nullopt;
  }
  auto p = detail::parseUnsigned(v, UINT32_MAX - 2);
  if (!p) return invalidSpec(ctx);
  pc.spec.priority = static_cast<std::uint32_t>(*p);
  return std::nullopt;
}

// "-K", "--kill-on-bad-exit[=0|1]", "--no-kill[=off]": an argument of 0/off turns it off.
template <auto Field>
Out setOptionalFlag(ParsedCommand& pc, Arg arg, const ApplyContext&) {
  pc.spec.*Field = !(arg && (*arg == "0" || equalsIgnoreCase(*arg, "off")));
  return std::nullopt;
}

Out applyVerbose(ParsedCommand& pc, Arg, const ApplyContext&) {
  ++pc.spec.verbose;
  return std::nullopt;
}

Out applyHelp(ParsedCommand& pc, Arg, const ApplyContext&) {
  pc.help = true;
  return std::nullopt;
}
Out applyUsage(ParsedCommand& pc, Arg, const ApplyContext&) {
  pc.usage = true;
  return std::nullopt;
}
Out applyVersion(ParsedCommand& pc, Arg, const ApplyContext&) {
  pc.version = true;
  return std::nullopt;
}

Out applyExportFlag(ParsedCommand& pc, Arg arg, const ApplyContext& ctx) {
  return applyExport(pc, arg, ctx);
}

// Rows follow the order of Slurm's --help so that ambiguity messages list possibilities the
// same way. Tools: B sbatch, R srun, A salloc.
const OptionDef kOptions[] = {
    {"array", 'a', ArgKind::Required, B, applyArray},
    {"account", 'A', ArgKind::Required, ALL, setString<&JobSpec::account>},
    {"acctg-freq", 0, ArgKind::Required, ALL, acceptOnly},
    {"bb", 0, ArgKind::Required, ALL, acceptOnly},
    {"bbf", 0, ArgKind::Required, ALL, acceptOnly},
    {"bcast", 0, ArgKind::Optional, R, setString<&JobSpec::bcast>},
    {"bcast-exclude", 0, ArgKind::Required, R, setString<&JobSpec::bcast_exclude>},
    {"begin", 'b', ArgKind::Required, ALL, applyBegin},
    {"bell", 0, ArgKind::None, A, applyBell},
    {"batch", 0, ArgKind::Required, B, acceptOnly},
    {"comment", 0, ArgKind::Required, ALL, setString<&JobSpec::comment>},
    {"compress", 0, ArgKind::Optional, R, setString<&JobSpec::compress>},
    {"container", 0, ArgKind::Required, ALL, acceptOnly},
    {"cpu-freq", 0, ArgKind::Required, ALL, acceptOnly},
    {"cpus-per-task", 'c', ArgKind::Required, ALL, setPositive<&JobSpec::cpus_per_task>},
    {"dependency", 'd', ArgKind::Required, ALL, applyDependency},
    {"deadline", 0, ArgKind::Required, ALL, applyBegin},
    {"delay-boot", 0, ArgKind::Required, ALL, acceptOnly},
    {"chdir", 'D', ArgKind::Required, ALL, setString<&JobSpec::chdir>},
    {"error", 'e', ArgKind::Required, B | R, setString<&JobSpec::error>},
    {"epilog", 0, ArgKind::Required, R, acceptOnly},
    {"preserve-env", 'E', ArgKind::None, R, acceptOnly},
    {"export", 0, ArgKind::Optional, B, applyExportFlag},
    {"export", 0, ArgKind::Required, R | A, applyExport},
    {"export-file", 0, ArgKind::Required, B, acceptOnly},
    {"get-user-env", 0, ArgKind::Optional, B | A, setTrue<&JobSpec::get_user_env>},
    {"gid", 0, ArgKind::Required, B | A, setString<&JobSpec::run_as_group>},
    {"gres", 0, ArgKind::Required, ALL, applyGres},
    {"gres-flags", 0, ArgKind::Required, ALL, acceptOnly},
    {"hold", 'H', ArgKind::None, ALL, setTrue<&JobSpec::hold>},
    {"hint", 0, ArgKind::Required, ALL, acceptOnly},
    {"ignore-pbs", 0, ArgKind::None, B, setTrue<&JobSpec::ignore_pbs>},
    {"input", 'i', ArgKind::Required, B | R, setString<&JobSpec::input>},
    {"immediate", 'I', ArgKind::Optional, R | A, applyImmediate},
    {"jobid", 0, ArgKind::Required, R, setPositive<&JobSpec::jobid>},
    {"job-name", 'J', ArgKind::Required, ALL, setString<&JobSpec::job_name>},
    {"no-kill", 'k', ArgKind::Optional, ALL, setOptionalFlag<&JobSpec::no_kill>},
    {"kill-on-bad-exit", 'K', ArgKind::Optional, R, setOptionalFlag<&JobSpec::kill_on_bad_exit>},
    {"kill-command", 'K', ArgKind::Optional, A, acceptOnly},
    {"kill-on-invalid-dep", 0, ArgKind::Required, B, acceptOnly},
    {"label", 'l', ArgKind::None, R, setTrue<&JobSpec::label>},
    {"licenses", 'L', ArgKind::Required, ALL, setString<&JobSpec::licenses>},
    {"clusters", 'M', ArgKind::Required, ALL, acceptOnly},
    {"distribution", 'm', ArgKind::Required, ALL, applyDistribution},
    {"mail-type", 0, ArgKind::Required, ALL, applyMailType},
    {"mail-user", 0, ArgKind::Required, ALL, setString<&JobSpec::mail_user>},
    {"mcs-label", 0, ArgKind::Required, ALL, acceptOnly},
    {"mem-bind", 0, ArgKind::Required, ALL, acceptOnly},
    {"mpi", 0, ArgKind::Required, R, applyMpi},
    {"multi-prog", 0, ArgKind::None, R, setTrue<&JobSpec::multi_prog>},
    {"ntasks", 'n', ArgKind::Required, ALL, setPositive<&JobSpec::ntasks>},
    {"network", 0, ArgKind::Required, ALL, acceptOnly},
    {"nice", 0, ArgKind::Optional, ALL, applyNice},
    {"no-bell", 0, ArgKind::None, A, applyBell},
    {"no-requeue", 0, ArgKind::None, B, applyRequeue},
    {"no-shell", 0, ArgKind::None, A, setTrue<&JobSpec::no_shell>},
    {"ntasks-per-node", 0, ArgKind::Required, ALL, setPositive<&JobSpec::ntasks_per_node>},
    {"nodes", 'N', ArgKind::Required, ALL, applyNodes},
    {"output", 'o', ArgKind::Required, B | R, setString<&JobSpec::output>},
    {"overcommit", 'O', ArgKind::None, ALL, setTrue<&JobSpec::overcommit>},
    {"overlap", 0, ArgKind::None, R, setTrue<&JobSpec::overlap>},
    {"het-group", 0, ArgKind::Required, R, acceptOnly},
    {"open-mode", 0, ArgKind::Required, B | R, applyOpenMode},
    {"partition", 'p', ArgKind::Required, ALL, setString<&JobSpec::partition>},
    {"parsable", 0, ArgKind::None, B, setTrue<&JobSpec::parsable>},
    {"power", 0, ArgKind::Required, ALL, acceptOnly},
    {"priority", 0, ArgKind::Required, ALL, applyPriority},
    {"prolog", 0, ArgKind::Required, R, acceptOnly},
    {"profile", 0, ArgKind::Required, ALL, acceptOnly},
    {"propagate", 0, ArgKind::Optional, B | R, acceptOnly},
    {"pty", 0, ArgKind::None, R, setTrue<&JobSpec::pty>},
    {"quit-on-interrupt", 0, ArgKind::None, R, setTrue<&JobSpec::quit_on_interrupt>},
    {"qos", 'q', ArgKind::Required, ALL, setString<&JobSpec::qos>},
    {"quiet", 'Q', ArgKind::None, ALL, setTrue<&JobSpec::quiet>},
    {"reboot", 0, ArgKind::None, ALL, setTrue<&JobSpec::reboot>},
    {"relative", 'r', ArgKind::Required, R, setNonNegative<&JobSpec::relative>},
    {"requeue", 0, ArgKind::None, B, applyRequeue},
    {"oversubscribe", 's', ArgKind::None, ALL, setTrue<&JobSpec::oversubscribe>},
    {"core-spec", 'S', ArgKind::Required, ALL, acceptOnly},
    {"send-libs", 0, ArgKind::Optional, R, setString<&JobSpec::send_libs>},
    {"signal", 0, ArgKind::Required, ALL, applySignal},
    {"slurmd-debug", 0, ArgKind::Required, R, acceptOnly},
    {"spread-job", 0, ArgKind::None, ALL, setTrue<&JobSpec::spread_job>},
    {"switches", 0, ArgKind::Required, ALL, acceptOnly},
    {"task-epilog", 0, ArgKind::Required, R, setString<&JobSpec::task_epilog>},
    {"task-prolog", 0, ArgKind::Required, R, setString<&JobSpec::task_prolog>},
    {"test-only", 0, ArgKind::None, B | R, setTrue<&JobSpec::test_only>},
    {"thread-spec", 0, ArgKind::Required, ALL, acceptOnly},
    {"threads", 'T', ArgKind::Required, R, acceptOnly},
    {"time", 't', ArgKind::Required, ALL, setTimeLimit},
    {"time-min", 0, ArgKind::Required, ALL, setMinutes<&JobSpec::time_min_minutes>},
    {"uid", 0, ArgKind::Required, B | A, setString<&JobSpec::run_as_user>},
    {"unbuffered", 'u', ArgKind::None, R, setTrue<&JobSpec::unbuffered>},
    {"use-min-nodes", 0, ArgKind::None, ALL, setTrue<&JobSpec::use_min_nodes>},
    {"verbose", 'v', ArgKind::None, ALL, applyVerbose},
    {"wait", 'W', ArgKind::None, B, setTrue<&JobSpec::wait>},
    {"wait", 'W', ArgKind::Required, R, setNonNegative<&JobSpec::wait_seconds>},
    {"wait-all-nodes", 0, ArgKind::Required, B | A, acceptOnly},
    {"wckey", 0, ArgKind::Required, ALL, setString<&JobSpec::wckey>},
    {"wrap", 0, ArgKind::Required, B, setString<&JobSpec::wrap>},
    {"disable-status", 'X', ArgKind::None, R, acceptOnly},
    {"x11", 0, ArgKind::Optional, B | A, acceptOnly},
    {"cluster-constraint", 0, ArgKind::Required, ALL, acceptOnly},
    {"contiguous", 0, ArgKind::None, ALL, setTrue<&JobSpec::contiguous>},
    {"constraint", 'C', ArgKind::Required, ALL, setString<&JobSpec::constraint>},
    {"prefer", 0, ArgKind::Required, ALL, setString<&JobSpec::prefer>},
    {"nodefile", 'F', ArgKind::Required, B | A, acceptOnly},
    {"mem", 0, ArgKind::Required, ALL, setMemory<&JobSpec::mem_mb>},
    {"mincpus", 0, ArgKind::Required, ALL, setPositive<&JobSpec::mincpus>},
    {"reservation", 0, ArgKind::Required, ALL, setString<&JobSpec::reservation>},
    {"tmp", 0, ArgKind::Required, ALL, applyTmp},
    {"nodelist", 'w', ArgKind::Required, ALL, setHostlist<&JobSpec::nodelist>},
    {"exclude", 'x', ArgKind::Required, ALL, setHostlist<&JobSpec::exclude>},
    {"no-allocate", 'Z', ArgKind::None, R, acceptOnly},
    {"exact", 0, ArgKind::None, R, setTrue<&JobSpec::exact>},
    {"exclusive", 0, ArgKind::Optional, ALL, applyExclusive},
    {"mem-per-cpu", 0, ArgKind::Required, ALL, setMemory<&JobSpec::mem_per_cpu_mb>},
    {"resv-ports", 0, ArgKind::Optional, R, acceptOnly},
    {"sockets-per-node", 0, ArgKind::Required, ALL, acceptOnly},
    {"cores-per-socket", 0, ArgKind::Required, ALL, acceptOnly},
    {"threads-per-core", 0, ArgKind::Required, ALL, acceptOnly},
    {"extra-node-info", 'B', ArgKind::Required, ALL, acceptOnly},
    {"ntasks-per-core", 0, ArgKind::Required, ALL, acceptOnly},
    {"ntasks-per-socket", 0, ArgKind::Required, ALL, acceptOnly},
    {"ntasks-per-gpu", 0, ArgKind::Required, ALL, setPositive<&JobSpec::ntasks_per_gpu>},
    {"cpu-bind", 0, ArgKind::Required, R, applyCpuBind},
    {"cpus-per-gpu", 0, ArgKind::Required, ALL, setPositive<&JobSpec::cpus_per_gpu>},
    {"gpus", 'G', ArgKind::Required, ALL, setGpuCount<&JobSpec::gpus>},
    {"gpu-bind", 0, ArgKind::Required, ALL, applyGpuBind},
    {"gpu-freq", 0, ArgKind::Required, ALL, applyGpuFreq},
    {"gpus-per-node", 0, ArgKind::Required, ALL, setGpuCount<&JobSpec::gpus_per_node>},
    {"gpus-per-socket", 0, ArgKind::Required, ALL, setGpuCount<&JobSpec::gpus_per_socket>},
    {"gpus-per-task", 0, ArgKind::Required, ALL, setGpuCount<&JobSpec::gpus_per_task>},
    {"mem-per-gpu", 0, ArgKind::Required, ALL, setMemory<&JobSpec::mem_per_gpu_mb>},
    {"help", 'h', ArgKind::None, ALL, applyHelp},
    {"usage", 0, ArgKind::None, ALL, applyUsage},
    {"version", 'V', ArgKind::None, ALL, applyVersion},
};

}  // namespace

std::string_view toolName(Tool tool) {
  switch (tool) {
    case Tool::Sbatch: return "sbatch";
    case Tool::Srun: return "srun";
    case Tool::Salloc: return "salloc";
  }
  return "sbatch";
}

std::span<const OptionDef> optionTable() { return kOptions; }

const OptionDef* findOption(Tool tool, std::string_view long_name) {
  for (const auto& def : kOptions) {
    if (def.long_name == long_name && acceptedBy(def, tool)) return &def;
  }
  return nullptr;
}

}  // namespace drover::jobspec
