#include "jobspec/build_spec.h"

#include "jobspec/script_directives.h"

namespace drover::jobspec {

namespace {

// Replays the command line last so that it wins over everything applied before it.
std::optional<CliError> replayCommandLine(ParsedCommand& pc, const ParsedCommand& command_line,
                                          std::int64_t now) {
  return applyArguments(pc, command_line.args, OptionSource::CommandLine, now, nullptr);
}

CliResult<StepRequest> buildInteractive(Tool tool, const std::vector<std::string>& args,
                                        const EnvMap& env, std::int64_t now) {
  auto cl = parseCommandLine(tool, args, now);
  if (!cl) return cl.error();
  ParsedCommand pc;
  pc.tool = tool;
  if (auto err = applyInputEnvironment(pc, env, now)) return *err;
  if (auto err = replayCommandLine(pc, *cl, now)) return *err;
  if (auto err = applyPlaneSize(pc, env)) return *err;
  if (tool == Tool::Srun && cl->positional.empty() && !cl->help && !cl->usage && !cl->version) {
    return CliError{"srun: fatal: No command given to execute.", kExitError};
  }
  return StepRequest{std::move(pc.spec), cl->positional};
}

}  // namespace

CliResult<BatchRequest> buildBatchRequest(const ParsedCommand& command_line, const EnvMap& env,
                                          std::optional<std::string_view> script_text,
                                          std::int64_t now) {
  BatchRequest req;
  ParsedCommand pc;
  pc.tool = Tool::Sbatch;
  std::vector<std::string> positional = command_line.positional;
  if (command_line.spec.wrap) {
    if (!positional.empty()) {
      return CliError{"sbatch: error: Script arguments not permitted with --wrap option", kExitError};
    }
    req.script = wrapScript(*command_line.spec.wrap);
  } else {
    if (!positional.empty()) {
      req.script_path = positional.front();
      req.script_args.assign(positional.begin() + 1, positional.end());
    }
    std::string_view text = script_text.value_or("");
    if (auto err = checkBatchScript(text)) return *err;
    req.script = std::string(text);
    for (const auto& d : extractDirectives(text)) {
      std::vector<std::string> ignored;  // words after a non-option end the line, as in Slurm
      if (auto err = applyArguments(pc, d.tokens, OptionSource::Directive, now, &ignored)) {
        return *err;
      }
    }
  }
  if (auto err = applyInputEnvironment(pc, env, now)) return *err;
  if (auto err = replayCommandLine(pc, command_line, now)) return *err;
  req.spec = std::move(pc.spec);
  return req;
}

CliResult<BatchRequest> buildBatchRequest(const std::vector<std::string>& args,
                                          const EnvMap& env,
                                          std::optional<std::string_view> script_text,
                                          std::int64_t now) {
  auto cl = parseCommandLine(Tool::Sbatch, args, now);
  if (!cl) return cl.error();
  return buildBatchRequest(*cl, env, script_text, now);
}

CliResult<StepRequest> buildStepRequest(const std::vector<std::string>& args, const EnvMap& env,
                                        std::int64_t now) {
  return buildInteractive(Tool::Srun, args, env, now);
}

CliResult<StepRequest> buildAllocRequest(const std::vector<std::string>& args, const EnvMap& env,
                                         std::int64_t now) {
  return buildInteractive(Tool::Salloc, args, env, now);
}

std::optional<std::string> fitNodesToTasks(Tool tool, JobSpec& spec) {
  if (!spec.nodes || !spec.ntasks || *spec.ntasks == 0 || *spec.ntasks >= spec.nodes->min) {
    return std::nullopt;
  }
  std::string warning = std::string(toolName(tool)) + ": Warning: can't run " +
                        std::to_string(*spec.ntasks) + " processes on " +
                        std::to_string(spec.nodes->min) + " nodes, setting nnodes to " +
                        std::to_string(*spec.ntasks) + "\n";
  spec.nodes->min = *spec.ntasks;
  if (spec.nodes->max > spec.nodes->min) spec.nodes->max = spec.nodes->min;
  return warning;
}

}  // namespace drover::jobspec
