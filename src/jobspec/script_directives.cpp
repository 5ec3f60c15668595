#include "jobspec/script_directives.h"

namespace drover::jobspec {

namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::vector<std::string> splitWords(std::string_view text) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && isSpace(text[i])) ++i;
    if (i >= text.size() || text[i] == '#') break;
    std::string word;
    while (i < text.size() && !isSpace(text[i])) {
      char c = text[i];
      if (c == '"' || c == '\'') {
        std::size_t close = text.find(c, i + 1);
        if (close == std::string_view::npos) close = text.size();
        word.append(text.substr(i + 1, close - i - 1));
        i = close + 1;
        continue;
      }
      word += c;
      ++i;
    }
    words.push_back(std::move(word));
  }
  return words;
}

}  // namespace

std::optional<CliError> checkBatchScript(std::string_view script) {
  if (script.empty()) return CliError{"sbatch: error: Batch script is empty!", kExitError};
  bool only_space = true;
  for (char c : script) only_space = only_space && (isSpace(c) || c == '\n');
  if (only_space) return CliError{"sbatch: error: Batch script contains only whitespace!", kExitError};
  if (!script.starts_with("#!")) {
    return CliError{
        "sbatch: error: This does not look like a batch script.  The first\n"
        "sbatch: error: line must start with #! followed by the path to an interpreter.\n"
        "sbatch: error: For instance: #!/bin/sh",
        kExitError};
  }
  if (script.find("\r\n") != std::string_view::npos) {
    return CliError{
        "sbatch: error: Batch script contains DOS line breaks (\\r\\n)\n"
        "sbatch: error: instead of expected UNIX line breaks (\\n).",
        kExitError};
  }
  if (script.find('\0') != std::string_view::npos) {
    return CliError{"sbatch: error: The batch script contains a NULL character", kExitError};
  }
  return std::nullopt;
}

std::vector<Directive> extractDirectives(std::string_view script, std::string_view magic) {
  std::vector<Directive> out;
  std::size_t pos = 0;
  std::size_t line_no = 0;
  while (pos < script.size()) {
    std::size_t nl = script.find('\n', pos);
    if (nl == std::string_view::npos) nl = script.size();
    std::string_view line = script.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (line.starts_with(magic) &&
        (line.size() == magic.size() || isSpace(line[magic.size()]))) {
      Directive d{line_no, splitWords(line.substr(magic.size()))};
      if (!d.tokens.empty()) out.push_back(std::move(d));
      continue;
    }
    std::size_t first = 0;
    while (first < line.size() && isSpace(line[first])) ++first;
    if (first == line.size() || line[first] == '#') continue;  // blank or comment
    break;  // the first command ends the directives
  }
  return out;
}

std::string wrapScript(std::string_view command) {
  return "#!/bin/sh\n# This script was created by sbatch --wrap.\n\n" + std::string(command) + "\n";
}

}  // namespace drover::jobspec
