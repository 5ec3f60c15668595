#pragma once
// What every Drover CLI shares: the version line and Slurm-style error reporting.
#include <getopt.h>

#include <initializer_list>
#include <iostream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/ascii_case.h"
#include "common/comma_list.h"

namespace drover::cli {

// `--version` / `-V`: Slurm prints "slurm 22.05.8"; Drover names itself.
inline constexpr std::string_view kVersionLine = "drover 0.1.0";

// "<prog>: error: <message>" on stderr, as Slurm's commands print errors; a message starting
// with kBareMark (below) is printed as it is, without the mark.
void printError(std::string_view prog, std::string_view message);

// Whether `word` abbreviates `full` (any case, `min` letters at least): scontrol's verbs and
// entities, which Slurm accepts in any unambiguous abbreviation.
inline bool abbrev(std::string_view word, std::string_view full, std::size_t min = 1) {
  return word.size() >= min && startsWithIgnoreCase(full, word);
}

// A command keyword's word count (the keyword first) within [least, most]; otherwise prints
// Slurm's bare `too few|too many arguments for keyword:<keyword as typed>` and says false.
bool keywordArgumentsOk(const std::vector<std::string>& words, std::size_t least, std::size_t most);

// -M/--clusters naming anything: every Drover CLI refuses it with this text.
inline constexpr std::string_view kClustersUnsupported =
    "--clusters is not supported: Drover runs one cluster";

// What Slurm's squeue and sinfo say, as "fatal", of -o (sinfo: also -O) with -l on one
// command line.
inline constexpr std::string_view kFormatWithLong =
    "Options -o(--format) and -l(--long) are mutually exclusive. Please remove one and retry.";

// A parse error Slurm's command reports as "fatal" rather than "error" (sacct's bad job id or
// state) starts with this; printParseError prints "<prog>: fatal: <rest>".
inline constexpr std::string_view kFatalMark = "fatal: ";
// A parse error Slurm's command prints without its name (sacct's "Invalid time specification
// (pos=0): X", scancel's bad state, getopt's words) starts with this; printError and
// printParseError print only the rest.
inline constexpr std::string_view kBareMark = "bare: ";

// printError, except that kFormatWithLong and a message starting with kFatalMark are printed
// as Slurm's "<prog>: fatal: ...".
void printParseError(std::string_view prog, std::string_view message);


// What sbatch, srun and salloc record about their own invocation.
std::map<std::string, std::string> processEnvironment();  // environ as NAME -> value
std::string workingDirectory();                           // "" when getcwd fails
std::string hostName();                                   // "" when gethostname fails
// "<prog> <args...>" with each argument shell-quoted where needed (Slurm's SubmitLine).
std::string submitLine(std::string_view prog, const std::vector<std::string>& args);

// An input environment variable standing for an option, as Slurm's commands read them:
// SQUEUE_FORMAT=x -> "--format=x"; a flag variable (SCANCEL_BATCH) -> "--batch" when set.
struct EnvOption {
  const char* variable;
  const char* option;
  bool takes_value = true;
};

// The options the environment gives, then argv[1..], so the command line wins.
std::vector<std::string> argsWithEnvironment(int argc, char** argv,
                                             std::initializer_list<EnvOption> table);

// getopt_long wants mutable char* strings; this owns them. Index 0 is the program name.
class GetoptArgs {
 public:
  GetoptArgs(std::string_view prog, const std::vector<std::string>& args);
  GetoptArgs(const GetoptArgs&) = delete;
  GetoptArgs& operator=(const GetoptArgs&) = delete;
  int argc() const { return static_cast<int>(storage_.size()); }
  char** argv() { return pointers_.data(); }
  // As getopt_long left it: it moves the options before the operands ("scancel 5 -v" reads as
  // "scancel -v 5", as GNU getopt does for Slurm's commands), so operands are read from here.
  std::string operator[](int i) const { return pointers_[static_cast<std::size_t>(i)]; }

 private:
  std::vector<std::string> storage_;
  std::vector<char*> pointers_;
};

// What a command prints for the option getopt_long just rejected, in glibc getopt's words, as
// Slurm's commands print them (they leave getopt to say it): "squeue: unrecognized option
// '--bad'", "invalid option -- 'Z'", "option requires an argument -- 'u'", "option '--user'
// requires an argument", "option '--help' doesn't allow an argument", then, with `try_line`
// (every command but sacct and sstat), `Try "squeue --help" for more information`. `result` is
// what getopt_long returned: '?', or ':' for a missing argument (the optstring starts with ':');
// `consumed` is argv[optind - 1], the word it took (a rejected short option is in optopt);
// `longopts` the table getopt_long read, for the full name of an abbreviated long option. The
// message is bare (kBareMark): printed as it is, the command's name included.
std::string unrecognizedOption(std::string_view prog, int result, std::string_view consumed,
                               const option* longopts, bool try_line = true);

// --version, --help and --usage: prints what was asked and returns true (the command is done).
template <typename Command>
bool printedInfo(const Command& cmd, std::string_view help, std::string_view usage) {
  if (cmd.version) {
    std::cout << kVersionLine << "\n";
    return true;
  }
  if (cmd.help || cmd.usage) {
    std::cout << (cmd.help ? help : usage);
    return true;
  }
  return false;
}

}  // namespace drover::cli
