#include "cli/sbcast.h"

#include <getopt.h>

#include <cctype>
#include <cstdlib>
#include <iostream>

#include "cli/bcast_defaults.h"
#include "cli/cli_common.h"
#include "cli/controller_client.h"
#include "cli/file_broadcast.h"
#include "cli/library_broadcast.h"
#include "common/bcast_compress.h"
#include "common/bcast_path.h"
#include "config/client_settings.h"

namespace drover::cli {
namespace {

constexpr const char* kProg = "sbcast";

enum LongOnly { kOptUsage = 1000, kOptSendLibs, kOptExclude };

constexpr const char* kUsage = "Usage: sbcast [-CfFjpstvV] SOURCE DEST\n";

constexpr const char* kHelp =
    "Usage: sbcast [OPTIONS] SOURCE DEST\n"
    "  -C, --compress[=lib]  compress the file being transmitted (lz4, zlib or none)\n"
    "  --exclude=<NONE|path1,...,pathN> shared object directory paths to exclude\n"
    "  -f, --force           replace destination file as required\n"
    "  -F, --fanout=num      specify message fanout\n"
    "  -j, --jobid=#[+#][.#] specify job ID with optional hetjob offset and/or step ID\n"
    "  -p, --preserve        preserve modes and times of source file\n"
    "  --send-libs[=yes|no]  autodetect and broadcast executable's shared objects\n"
    "  -s, --size=num        block size in bytes (rounded off)\n"
    "  -t, --timeout=secs    specify message timeout (seconds)\n"
    "  -v, --verbose         provide detailed event logging\n"
    "  -V, --version         print version information and exit\n"
    "\n"
    "Help options:\n"
    "  --help                show this help message\n"
    "  --usage               display brief usage message\n";

bool digitsOnly(const std::string& s, std::size_t max_len) {
  return !s.empty() && s.size() <= max_len && allAsciiDigits(s);
}

Result<int> positiveNumber(const char* what, const std::string& text) {
  if (!digitsOnly(text, 9) || std::stoi(text) <= 0) {
    return makeError(std::string("Invalid ") + what + " value: " + text);
  }
  return std::stoi(text);
}

}  // namespace

Result<SbcastJobRef> parseSbcastJobId(const std::string& text) {
  const std::string bad = "Invalid job ID " + text;
  SbcastJobRef ref;
  std::string rest = text;
  std::string step;
  if (const auto dot = rest.find('.'); dot != std::string::npos) {
    step = rest.substr(dot + 1);
    rest.resize(dot);
    if (!digitsOnly(step, 9)) return makeError(bad);
    ref.step_id = std::stoll(step);
  }
  if (const auto plus = rest.find('+'); plus != std::string::npos) {
    const std::string offset = rest.substr(plus + 1);
    rest.resize(plus);
    if (!digitsOnly(offset, 9)) return makeError(bad);
    if (std::stoll(offset) != 0) {
      return makeError("Job " + rest + "+" + offset +
                       ": no such heterogeneous job component (Drover has no heterogeneous jobs)");
    }
  }
  if (!digitsOnly(rest, 19)) return makeError(bad);
  try {
    ref.job_id = std::stoull(rest);
  } catch (...) {
    return makeError(bad);
  }
  if (ref.job_id == 0) return makeError(bad);
  return ref;
}

Result<std::uint64_t> parseSbcastSize(const std::string& text) {
  const std::string bad = "Invalid size value: " + text;
  std::string digits = text;
  std::uint64_t unit = 1;
  if (!digits.empty()) {
    const char last = static_cast<char>(std::tolower(static_cast<unsigned char>(digits.back())));
    if (last == 'k') unit = 1024;
    if (last == 'm') unit = 1024 * 1024;
    if (unit != 1) digits.pop_back();
  }
  if (!digitsOnly(digits, 12)) return makeError(bad);
  const std::uint64_t value = std::stoull(digits) * unit;
  if (value == 0) return makeError(bad);
  return value;
}

Result<SbcastCommand> parseSbcastArgs(const std::vector<std::string>& args) {
  static const option kLong[] = {
      {"compress", optional_argument, nullptr, 'C'},
      {"exclude", required_argument, nullptr, kOptExclude},
      {"fanout", required_argument, nullptr, 'F'},   {"force", no_argument, nullptr, 'f'},
      {"jobid", required_argument, nullptr, 'j'},    {"preserve", no_argument, nullptr, 'p'},
      {"send-libs", optional_argument, nullptr, kOptSendLibs},
      {"size", required_argument, nullptr, 's'},     {"timeout", required_argument, nullptr, 't'},
      {"verbose", no_argument, nullptr, 'v'},        {"version", no_argument, nullptr, 'V'},
      {"help", no_argument, nullptr, 'h'},           {"usage", no_argument, nullptr, kOptUsage},
      {nullptr, 0, nullptr, 0},
  };
  GetoptArgs argv(kProg, args);
  SbcastCommand cmd;
  opterr = 0;
  optind = 0;
  int c;
  while ((c = getopt_long(argv.argc(), argv.argv(), ":C::fF:j:ps:t:vV", kLong, nullptr)) != -1) {
    switch (c) {
      case 'C': {
        const std::string lib = optarg != nullptr && *optarg != '\0' ? optarg : "lz4";
        if (!parseBcastCodec(lib)) {
          return makeError("Compression library '" + lib +
                           "' is not supported (lz4, zlib or none)");
        }
        cmd.compress = lib;
        break;
      }
      case 'f': cmd.force = true; break;
      case 'F': {
        auto n = positiveNumber("fanout", optarg);
        if (!n) return makeError(n.error());
        cmd.fanout = *n;
        break;
      }
      case 'j': {
        auto ref = parseSbcastJobId(optarg);
        if (!ref) return makeError(ref.error());
        cmd.job = *ref;
        break;
      }
      case 'p': cmd.preserve = true; break;
      case 's': {
        auto size = parseSbcastSize(optarg);
        if (!size) return makeError(size.error());
        cmd.block_size = *size;
        break;
      }
      case 't': {
        auto n = positiveNumber("timeout", optarg);
        if (!n) return makeError(n.error());
        cmd.timeout_s = *n;
        break;
      }
      case 'v': ++cmd.verbose; break;
      case 'V': cmd.version = true; break;
      case 'h': cmd.help = true; break;
      case kOptUsage: cmd.usage = true; break;
      case kOptSendLibs: {
        const std::string v = optarg != nullptr ? optarg : "yes";
        const auto send = parseSendLibs(v);
        if (!send) return makeError("Invalid --send-libs value: " + v);
        cmd.send_libs = *send;
        break;
      }
      case kOptExclude: {
        if (auto dirs = parseBcastExclude(optarg); !dirs) return makeError(dirs.error());
        cmd.exclude = optarg;
        break;
      }
      default: return makeError(unrecognizedOption(kProg, c, argv[optind - 1], kLong));
    }
  }
  // getopt_long moved the operands behind the options: read them from its (permuted) array.
  for (int i = optind; i < argv.argc(); ++i) cmd.files.emplace_back(argv.argv()[i]);
  return cmd;
}

Result<SbcastFiles> sbcastFiles(const SbcastCommand& cmd) {
  if (cmd.files.size() != 2) {
    return makeError("Need two file names, have " + std::to_string(cmd.files.size()) + " names");
  }
  if (cmd.files[0].empty() || cmd.files[1].empty()) {
    return makeError("Need two file names, have an empty one");
  }
  return SbcastFiles{cmd.files[0], cmd.files[1]};
}

int runSbcast(int argc, char** argv) {
  const auto args = argsWithEnvironment(argc, argv,
                                        {{"SBCAST_COMPRESS", "--compress"},
                                         {"SBCAST_EXCLUDE", "--exclude"},
                                         {"SBCAST_FANOUT", "--fanout"},
                                         {"SBCAST_FORCE", "--force", false},
                                         {"SBCAST_PRESERVE", "--preserve", false},
                                         {"SBCAST_SEND_LIBS", "--send-libs"},
                                         {"SBCAST_SIZE", "--size"},
                                         {"SBCAST_TIMEOUT", "--timeout"}});
  auto cmd = parseSbcastArgs(args);
  if (!cmd) {
    printError(kProg, cmd.error());
    return 1;
  }
  if (printedInfo(*cmd, kHelp, kUsage)) return 0;
  const auto files = sbcastFiles(*cmd);
  if (!files) {
    std::cerr << files.error() << "\nTry \"sbcast --help\" for more information\n";
    return 1;
  }

  SbcastJobRef target;
  if (cmd->job) {
    target = *cmd->job;
  } else {
    const char* job = std::getenv("SLURM_JOB_ID");
    if (job == nullptr || *job == '\0') job = std::getenv("SLURM_JOBID");
    if (job == nullptr || *job == '\0') {
      printError(kProg,
                 "Need a job id to run this command.  Run from within a Slurm job or use the "
                 "--jobid option.");
      return 1;
    }
    auto ref = parseSbcastJobId(job);
    if (!ref) {
      printError(kProg, ref.error());
      return 1;
    }
    target = *ref;
    // Inside a step (an srun task) the step's nodes, as Slurm's sbcast reads SLURM_STEP_ID.
    const char* step = std::getenv("SLURM_STEP_ID");
    if (step != nullptr && allAsciiDigits(step) && *step != '\0' && std::string(step).size() <= 9) {
      target.step_id = std::stoll(step);
    }
  }

  auto settings = config::loadClientSettings(config::defaultConfigPath());
  if (!settings) {
    printError(kProg, settings.error());
    return 1;
  }
  const config::BcastConfig& defaults = settings->bcast;
  const bool send_libs = sendLibsFor(cmd->send_libs, defaults);
  const std::string exclude = bcastExcludeFor(cmd->exclude, defaults);
  BroadcastPlan plan;
  plan.job_id = target.job_id;
  plan.step_id = target.step_id;
  plan.source = files->source;
  // A relative DEST is created in BcastParameters' DestDir, else where sbcast runs (man sbcast).
  plan.dest = files->dest.front() == '/'
                  ? files->dest
                  : bcastDirectoryFor(defaults, workingDirectory()) + "/" + files->dest;
  plan.name_step = target.step_id ? std::to_string(*target.step_id) : "batch";
  plan.force = cmd->force;
  plan.preserve = cmd->preserve;
  plan.block_size = boundedBlockSize(cmd->block_size);
  plan.timeout_ms = cmd->timeout_s * 1000;
  plan.codec = bcastCodecFor(cmd->compress, defaults);
  plan.fanout = static_cast<std::uint32_t>(cmd->fanout);
  if (cmd->verbose > 0) {
    std::cerr << "sbcast: -----------------------------\n"
              << "sbcast: block_size = " << plan.block_size << "\n"
              << "sbcast: compress   = " << bcastCodecName(plan.codec) << "\n"
              << "sbcast: force      = " << (plan.force ? "true" : "false") << "\n"
              << "sbcast: fanout     = " << cmd->fanout << "\n"
              << "sbcast: jobid      = " << plan.job_id << "\n"
              << "sbcast: stepid     = "
              << (target.step_id ? std::to_string(*target.step_id) : "none") << "\n"
              << "sbcast: preserve   = " << (plan.preserve ? "true" : "false") << "\n"
              << "sbcast: send_libs  = " << (send_libs ? "true" : "false") << "\n"
              << "sbcast: exclude    = " << exclude << "\n"
              << "sbcast: timeout    = " << cmd->timeout_s << "\n"
              << "sbcast: verbose    = " << cmd->verbose << "\n"
              << "sbcast: source     = " << plan.source << "\n"
              << "sbcast: dest       = " << plan.dest << "\n"
              << "sbcast: -----------------------------\n";
  }
  auto client = ControllerClient::fromSettings(*settings);
  const auto outcome = broadcastFile(client, plan);
  if (const auto* failed = std::get_if<BroadcastFailure>(&outcome)) {
    printBroadcastError(kProg, failed->lines);
    return failed->exit_code;
  }
  const auto* sent = &std::get<BroadcastResult>(outcome);
  if (cmd->verbose > 0) {
    for (std::size_t i = 0; i < sent->nodes.size(); ++i) {
      std::cerr << "sbcast: " << sent->nodes[i] << ": " << sent->paths[i] << "\n";
    }
    std::cerr << "sbcast: sent " << sent->bytes << " bytes in " << sent->blocks << " blocks to "
              << sent->nodes.size() << " nodes\n";
  }
  if (cmd->verbose > 1) {
    std::cerr << "sbcast: " << sent->wire_bytes << " bytes on the wire, at most "
              << sent->peak_parallel_writes << " nodes written at once\n";
  }
  if (!send_libs) return 0;
  const auto libs = broadcastLibraries(client, plan, plan.name_step, exclude);
  if (const auto* failed = std::get_if<BroadcastFailure>(&libs)) {
    printBroadcastError(kProg, failed->lines);
    return failed->exit_code;
  }
  const auto& done = std::get<LibrariesSent>(libs);
  for (const auto& lib : done.not_found) {
    std::cerr << "sbcast: warning: " << lib.name << " (needed by " << lib.needed_by
              << ") not found: not sent\n";
  }
  if (cmd->verbose > 0) {
    for (const auto& lib : done.sent) std::cerr << "sbcast: library " << lib.path << " sent\n";
    for (const auto& lib : done.excluded) {
      std::cerr << "sbcast: library " << lib.path << " excluded\n";
    }
  }
  return 0;
}

}  // namespace drover::cli
