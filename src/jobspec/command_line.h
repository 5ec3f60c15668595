#pragma once
// getopt_long-compatible option scanning over the option table: "--opt=value", "--opt value",
// unambiguous prefixes ("--part=x"), "-Jname", "-J name", clustered flags ("-HvJx"), "--" and
// the first non-option argument end the options (the script or command follows), and getopt's
// exact error messages followed by 'Try "<tool> --help" for more information'.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "jobspec/cli_error.h"
#include "jobspec/options.h"

namespace drover::jobspec {

// Applies the options in `args` to `pc` as coming from `source`. Everything from the first
// non-option argument on is appended to `positional` when given (and ignored otherwise).
std::optional<CliError> applyArguments(ParsedCommand& pc, std::span<const std::string> args,
                                       OptionSource source, std::int64_t now,
                                       std::vector<std::string>* positional);

// The command line alone (argv without argv[0]).
CliResult<ParsedCommand> parseCommandLine(Tool tool, const std::vector<std::string>& args,
                                          std::int64_t now);

// Prefixes each line of `text` with "<tool>: ".
std::string prefixLines(Tool tool, std::string_view text);

}  // namespace drover::jobspec
