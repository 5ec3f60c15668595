#include "cli/srun_bcast.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "cli/bcast_defaults.h"
#include "cli/cli_common.h"
#include "cli/file_broadcast.h"
#include "cli/library_broadcast.h"
#include "common/bcast_compress.h"
#include "common/bcast_path.h"

namespace drover::cli {
namespace {

std::string fromDirectory(const std::string& path, const std::string& cwd) {
  if (!path.empty() && path.front() == '/') return path;
  return cwd + (cwd.empty() || cwd.back() != '/' ? "/" : "") + path;
}

bool isExecutableFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::string bcastDestination(const std::string& value, const std::optional<std::string>& chdir,
                             const std::string& cwd, const std::string& dest_dir) {
  if (!value.empty()) return fromDirectory(value, cwd);
  std::string dir = !dest_dir.empty()               ? dest_dir
                    : chdir && !chdir->empty() ? fromDirectory(*chdir, cwd)
                                               : cwd;
  if (dir.empty() || dir.back() != '/') dir += '/';
  return dir;
}

std::optional<std::string> findExecutable(const std::string& name, const std::string& path_env,
                                          const std::string& cwd) {
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string::npos) {
    const std::string path = fromDirectory(name, cwd);
    return isExecutableFile(path) ? std::optional<std::string>(path) : std::nullopt;
  }
  std::size_t start = 0;
  for (;;) {
    const auto colon = path_env.find(':', start);
    const std::string dir =
        path_env.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    const std::string candidate = fromDirectory((dir.empty() ? cwd : dir) + "/" + name, cwd);
    if (isExecutableFile(candidate)) return candidate;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return std::nullopt;
}

Status broadcastExecutable(ControllerClient& client, const jobspec::JobSpec& options,
                           const config::BcastConfig& defaults, v1::StepSpec& spec) {
  if (spec.argv_size() == 0 || spec.argv(0).empty()) {
    return makeError("--bcast: no command to copy");
  }
  const std::string cwd = workingDirectory();
  const char* path_env = std::getenv("PATH");
  auto program = findExecutable(spec.argv(0), path_env != nullptr ? path_env : "", cwd);
  if (!program) return makeError("Unable to find executable " + spec.argv(0) + " to broadcast");
  // Checked before anything is sent: a wrong value sends nothing.
  if (options.compress && !options.compress->empty() && !parseBcastCodec(*options.compress)) {
    return makeError("--compress: library '" + *options.compress + "' is not supported (lz4, zlib or none)");
  }
  std::optional<bool> send_libs_option;
  if (options.send_libs) {
    send_libs_option = parseSendLibs(*options.send_libs);
    if (!send_libs_option) return makeError("Invalid --send-libs value: " + *options.send_libs);
  }
  if (options.bcast_exclude) {
    if (auto dirs = parseBcastExclude(*options.bcast_exclude); !dirs) {
      return makeError("--bcast-exclude: " + dirs.error());
    }
  }
  const bool send_libs = sendLibsFor(send_libs_option, defaults);
  const std::string exclude = bcastExcludeFor(options.bcast_exclude, defaults);
  BroadcastPlan plan;
  plan.job_id = spec.job_id();
  plan.codec = bcastCodecFor(options.compress, defaults);
  plan.source = *program;
  plan.dest = bcastDestination(options.bcast.value_or(""), options.chdir, cwd, defaults.dest_dir);
  plan.force = true;   // srun --bcast replaces an older copy
  plan.reserve_step = isBcastDirectory(plan.dest);
  const auto outcome = broadcastFile(client, plan);
  if (const auto* failed = std::get_if<BroadcastFailure>(&outcome)) return makeError(failed->lines);
  const auto* sent = &std::get<BroadcastResult>(outcome);
  if (plan.reserve_step) {
    spec.set_reserved_step_id(sent->reserved_step_id);
    spec.set_bcast_dir(plan.dest);
  } else {
    spec.set_argv(0, plan.dest);
  }
  if (send_libs) {
    const std::string name_step =
        plan.reserve_step ? std::to_string(sent->reserved_step_id) : plan.name_step;
    const auto libs = broadcastLibraries(client, plan, name_step, exclude);
    if (const auto* failed = std::get_if<BroadcastFailure>(&libs)) return makeError(failed->lines);
    for (const auto& lib : std::get<LibrariesSent>(libs).not_found) {
      std::cerr << "srun: warning: " << lib.name << " (needed by " << lib.needed_by
                << ") not found: not sent\n";
    }
    if (options.verbose > 0) {
      for (const auto& lib : std::get<LibrariesSent>(libs).sent) {
        std::cerr << "srun: bcast library " << lib.path << "\n";
      }
    }
    // The tasks find them first: the node puts <its copy>_libs at LD_LIBRARY_PATH's front.
    spec.set_bcast_send_libs(true);
  }
  if (options.verbose > 0) {
    for (std::size_t i = 0; i < sent->nodes.size(); ++i) {
      std::cerr << "srun: bcast " << *program << " to " << sent->nodes[i] << ":"
                << sent->paths[i] << "\n";
    }
  }
  return okStatus();
}

}  // namespace drover::cli
