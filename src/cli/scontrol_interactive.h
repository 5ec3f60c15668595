#pragma once
// scontrol's interactive mode: with no command on its command line scontrol reads commands from
// stdin, one a line, and runs each as if it had been given on the command line. What is kept
// here is what the reference Slurm 22.05's scontrol did with those lines (checked on it by
// piping lines in); running a command is left to the caller's dispatcher.
#include <functional>
#include <istream>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace drover::cli {

// The words of one interactive line, split as the reference's scontrol split them (not as a
// shell would): spaces and tabs separate words, except inside quotes; a ' or " opens a quote
// only after the first character of a word, each kind on its own (a " inside '...' opens a
// second quote that must close too), and the quotes stay in the word. So
// `update jobid=5 comment="a b"` is three words, the last `comment="a b"` with its quotes (the
// reference stored the comment as "a b", quotes and all), while `"comment=a b"` is two words.
std::vector<std::string> splitInteractiveLine(std::string_view line);

// Runs one command's words; returns its exit status (0 or 1), as on the command line.
using InteractiveRunner = std::function<int(const std::vector<std::string>& words)>;

// Reads lines from `in` until end of input, `quit` or `exit` (`ex`, `exi`): before each read
// the prompt "scontrol: " on `out`; with `echo` (stdin is no terminal) the line read after it,
// as the reference's readline echoed it; at end of input a newline. `!!` runs the last
// command again (nothing before it: status 1, silently). Blank lines do nothing. quit/exit
// with arguments say "too many arguments for keyword:WORD" on `err` and still end it.
// Returns the session's exit status as the reference gave it: 1 once any line failed, even
// when later lines succeed, except that `ping` and `show config` (whose controller check
// sets it outright in the reference) leave their own status.
int runInteractiveSession(std::istream& in, std::ostream& out, std::ostream& err, bool echo,
                          const InteractiveRunner& run);

}  // namespace drover::cli
