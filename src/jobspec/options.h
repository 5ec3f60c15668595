#pragma once
// The option table shared by sbatch, srun and salloc: one row per option with its Slurm names,
// argument kind, the tools that accept it and how it is applied to a ParsedCommand.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jobspec/cli_error.h"
#include "jobspec/job_spec.h"

namespace drover::jobspec {

enum class Tool : unsigned { Sbatch = 1, Srun = 2, Salloc = 4 };
std::string_view toolName(Tool tool);

enum class ArgKind { None, Required, Optional };

// What the command line (or a directive line, or the environment) asked for.
struct ParsedCommand {
  Tool tool = Tool::Sbatch;
  JobSpec spec;
  std::vector<std::string> positional;  // script + its args (sbatch), command (srun/salloc)
  std::vector<std::string> args;        // the arguments parsed, kept to re-apply them
  bool help = false;
  bool usage = false;
  bool version = false;
};

struct ApplyContext {
  Tool tool = Tool::Sbatch;
  OptionSource source = OptionSource::CommandLine;
  std::int64_t now = 0;          // for --begin / --deadline
  std::string_view long_name;    // the row's long name, for messages
};

// A value error. Each line of `text` is printed after "<tool>: ".
struct OptionError {
  std::string text;
  int exit_code = 255;
  // Printed as it is before the tool's labelled lines (a bad time spec's own line).
  std::string preamble = {};
};

using ApplyFn = std::optional<OptionError> (*)(ParsedCommand&, std::optional<std::string_view>,
                                               const ApplyContext&);

struct OptionDef {
  std::string_view long_name;
  char short_name = 0;
  ArgKind arg = ArgKind::None;
  unsigned tools = 0;  // bit set of Tool
  ApplyFn apply = nullptr;
};

std::span<const OptionDef> optionTable();

inline bool acceptedBy(const OptionDef& def, Tool tool) {
  return (def.tools & static_cast<unsigned>(tool)) != 0;
}

// Exact long-name lookup for one tool (no prefix matching); nullptr when unknown.
const OptionDef* findOption(Tool tool, std::string_view long_name);

}  // namespace drover::jobspec
