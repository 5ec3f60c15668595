// srun --multi-prog configuration files (jobspec/multi_prog.h). Input: a whole file. Every
// input must either parse into lines that keep the parser's promises, or give one error line
// that starts with the file's name. A parsed file is then assigned to steps of 1..32 tasks and
// each task's argv compared with a brute-force reading of the same lines: every rank on one
// line exactly, its offset its position among that line's ranks.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "jobspec/multi_prog.h"

namespace {

using namespace drover::jobspec;

constexpr std::uint32_t kMaxCheckedTasks = 32;

// The line (index) and offset of each rank below ntasks, by walking every line's ranges;
// nullopt when a rank has no line or one is out of range.
std::optional<std::vector<std::pair<std::size_t, std::uint32_t>>> bruteForce(
    const MultiProgConfig& config, std::uint32_t ntasks) {
  std::vector<std::optional<std::size_t>> line_of(ntasks);
  std::optional<std::size_t> rest;
  for (std::size_t i = 0; i < config.lines.size(); ++i) {
    if (config.lines[i].all_others) rest = i;
    for (const auto& r : config.lines[i].ranks) {
      if (r.last >= ntasks) return std::nullopt;
      for (std::uint64_t k = r.first; k <= r.last; ++k) line_of[k] = i;
    }
  }
  std::vector<std::pair<std::size_t, std::uint32_t>> out;
  std::vector<std::uint32_t> seen(config.lines.size(), 0);
  for (std::uint32_t k = 0; k < ntasks; ++k) {
    if (!line_of[k] && !rest) return std::nullopt;
    const std::size_t line = line_of[k] ? *line_of[k] : *rest;
    out.emplace_back(line, seen[line]++);
  }
  return out;
}

void checkConfig(const MultiProgConfig& config) {
  FUZZ_CHECK(!config.lines.empty(), "parsed with no lines");
  std::vector<bool> named;
  for (std::size_t i = 0; i < config.lines.size(); ++i) {
    const MultiProgLine& line = config.lines[i];
    FUZZ_CHECK(!line.words.empty(), "line %zu without a program", line.line);
    FUZZ_CHECK(line.all_others == line.ranks.empty(), "line %zu: '*' xor ranks", line.line);
    FUZZ_CHECK(!line.all_others || i + 1 == config.lines.size(), "'*' not last");
    FUZZ_CHECK(i == 0 || line.line > config.lines[i - 1].line, "line numbers out of order");
    for (const auto& word : line.words) {
      FUZZ_CHECK(!word.empty(), "empty word");
      for (const auto& piece : word) FUZZ_CHECK(piece.text.find('\0') == std::string::npos, "NUL kept");
    }
    for (const auto& r : line.ranks) {
      FUZZ_CHECK(r.first <= r.last && r.last <= kMaxTaskRank, "range %u-%u", r.first, r.last);
      // Small ranks only: a bitmap of what is named so far catches a rank on two lines.
      if (r.last >= 4096) continue;
      if (named.size() <= r.last) named.resize(r.last + 1, false);
      for (std::uint32_t k = r.first; k <= r.last; ++k) {
        FUZZ_CHECK(!named[k], "rank %u named twice", k);
        named[k] = true;
      }
    }
  }
}

void checkAssignments(const MultiProgConfig& config) {
  const std::vector<std::string> extra = {"--extra", "%t"};
  for (std::uint32_t ntasks = 1; ntasks <= kMaxCheckedTasks; ++ntasks) {
    auto assignment = MultiProgAssignment::assign(config, ntasks);
    auto expected = bruteForce(config, ntasks);
    FUZZ_CHECK(assignment.ok() == expected.has_value(), "assign %s for %u tasks: %s",
               assignment.ok() ? "accepted" : "refused", ntasks,
               assignment.ok() ? "" : assignment.error().c_str());
    if (!assignment.ok()) {
      FUZZ_CHECK(assignment.error().starts_with(config.file), "error without the file: %s",
                 assignment.error().c_str());
      continue;
    }
    for (std::uint32_t rank = 0; rank < ntasks; ++rank) {
      const auto [line_index, offset] = (*expected)[rank];
      const MultiProgLine& line = config.lines[line_index];
      const auto argv = assignment->argvOf(rank, extra);
      FUZZ_CHECK(argv.size() == line.words.size() + extra.size(), "argv size for rank %u", rank);
      FUZZ_CHECK(argv[argv.size() - 1] == "%t", "extra arguments substituted");
      // A word without '%' comes through exactly; the program always does.
      for (std::size_t w = 0; w < line.words.size(); ++w) {
        std::string plain;
        bool has_percent = false;
        for (const auto& piece : line.words[w]) {
          plain += piece.text;
          has_percent = has_percent || (!piece.literal && piece.text.find('%') != std::string::npos);
        }
        if (w == 0 || !has_percent) FUZZ_CHECK(argv[w] == plain, "word %zu of rank %u", w, rank);
      }
      // "%o" alone as an argument gives the brute-force offset, "%t" the rank.
      for (std::size_t w = 1; w < line.words.size(); ++w) {
        if (line.words[w].size() != 1 || line.words[w][0].literal) continue;
        if (line.words[w][0].text == "%o") FUZZ_CHECK(argv[w] == std::to_string(offset), "offset of %u", rank);
        if (line.words[w][0].text == "%t") FUZZ_CHECK(argv[w] == std::to_string(rank), "rank %u", rank);
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto config = parseMultiProg(text, "f.conf");
  if (!config.ok()) {
    const std::string& e = config.error();
    FUZZ_CHECK(e.starts_with("f.conf:"), "error without the file: %s", e.c_str());
    FUZZ_CHECK(e.find('\n') == std::string::npos, "error of more than one line: %s", e.c_str());
    return 0;
  }
  checkConfig(*config);
  checkAssignments(*config);
  return 0;
}
