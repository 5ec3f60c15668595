#include "cli/scontrol_interactive.h"

#include "cli/cli_common.h"

namespace drover::cli {
namespace {

constexpr std::string_view kPrompt = "scontrol: ";

bool isQuit(const std::string& word) { return abbrev(word, "exit", 2) || abbrev(word, "quit", 4); }

// In the reference, ping (and show config, which ends with the same controller check) set the
// exit status to their own result where every other command only ever raises it to 1.
bool setsStatusOutright(const std::vector<std::string>& words) {
  if (abbrev(words[0], "ping", 2)) return true;
  return abbrev(words[0], "show", 3) && words.size() > 1 && abbrev(words[1], "config", 1);
}

}  // namespace

std::vector<std::string> splitInteractiveLine(std::string_view line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false, in_single = false, in_double = false;
  for (char c : line) {
    const bool quoted = in_single || in_double;
    if (!quoted && (c == ' ' || c == '\t' || c == '\r')) {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    // A quote as a word's first character is an ordinary character, as in the reference.
    if (in_word && c == '\'') in_single = !in_single;
    if (in_word && c == '"') in_double = !in_double;
    word += c;
    in_word = true;
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

int runInteractiveSession(std::istream& in, std::ostream& out, std::ostream& err, bool echo,
                          const InteractiveRunner& run) {
  int status = 0;
  std::vector<std::string> last;
  std::string line;
  for (;;) {
    out << kPrompt << std::flush;
    if (!std::getline(in, line)) {
      out << "\n" << std::flush;
      break;
    }
    if (echo) out << line << "\n" << std::flush;
    std::vector<std::string> words = splitInteractiveLine(line);
    if (words.empty()) continue;
    if (words.size() == 1 && words[0] == "!!") {
      if (last.empty()) {
        status = 1;
        continue;
      }
      words = last;
    }
    last = words;
    if (isQuit(words[0])) {
      if (words.size() > 1) {
        err << "too many arguments for keyword:" << words[0] << "\n" << std::flush;
        status = 1;
      }
      break;
    }
    const int rc = run(words);
    out.flush();
    if (setsStatusOutright(words)) status = rc;
    else if (rc != 0) status = rc;
  }
  return status;
}

}  // namespace drover::cli
