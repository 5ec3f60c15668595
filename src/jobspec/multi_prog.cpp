#include "jobspec/multi_prog.h"

#include <algorithm>
#include <map>
#include <utility>

#include "common/ascii_case.h"
#include "common/comma_list.h"
#include "jobspec/parse_util.h"

namespace drover::jobspec {
namespace {

constexpr const char* kLineForm = "each line is 'RANKS PROGRAM [ARGUMENTS...]'";
constexpr const char* kRanksAccepted =
    "accepted: task ranks as numbers and ranges separated by commas (0, 1-3, 0,2-3), or '*' "
    "alone for every task no other line names";

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string rangeText(const RankRange& r) {
  return r.first == r.last ? std::to_string(r.first)
                           : std::to_string(r.first) + "-" + std::to_string(r.last);
}

class LineParser {
 public:
  LineParser(std::string_view file, std::size_t line_no, std::string_view text)
      : file_(file), line_no_(line_no), text_(text) {}

  Error fail(const std::string& why) const {
    return makeError(std::string(file_) + ":" + std::to_string(line_no_) + ": " + why);
  }

  // The rank field: '*', or comma-separated numbers and ranges.
  Status ranks(std::string_view field, MultiProgLine& out) const {
    if (field == "*") {
      out.all_others = true;
      return okStatus();
    }
    const std::string quoted = "'" + std::string(field) + "'";
    for (std::string_view part : splitFields(field, ',')) {
      if (part.empty()) return fail("empty element in the task ranks " + quoted + " (" + kRanksAccepted + ")");
      if (part == "*") {
        return fail("'*' combined with other ranks in " + quoted + " (" + kRanksAccepted + ")");
      }
      const auto dash = part.find('-');
      const std::string_view first_text = part.substr(0, dash);
      const std::string_view last_text =
          dash == std::string_view::npos ? part : part.substr(dash + 1);
      if (!allAsciiDigits(first_text) || !allAsciiDigits(last_text)) {
        return fail("invalid task rank '" + std::string(part) + "' in " + quoted + " (" +
                    kRanksAccepted + ")");
      }
      const auto first = detail::parseUnsigned(first_text, kMaxTaskRank);
      const auto last = detail::parseUnsigned(last_text, kMaxTaskRank);
      if (!first || !last) {
        return fail("task rank '" + std::string(part) + "' is too large (ranks go up to " +
                    std::to_string(kMaxTaskRank) + ")");
      }
      if (*last < *first) {
        return fail("task rank range '" + std::string(part) +
                    "' runs backwards: write the smaller rank first (" + std::string(last_text) +
                    "-" + std::string(first_text) + ")");
      }
      out.ranks.push_back({static_cast<std::uint32_t>(*first), static_cast<std::uint32_t>(*last)});
    }
    return okStatus();
  }

  // The program and its arguments, from `pos` on: words split at blanks outside quotes.
  Status words(std::size_t pos, MultiProgLine& out) const {
    while (true) {
      while (pos < text_.size() && blank(text_[pos])) ++pos;
      if (pos >= text_.size()) return okStatus();
      ProgramWord word;
      auto append = [&word](std::string_view piece, bool literal) {
        if (piece.empty()) return;
        if (!word.empty() && word.back().literal == literal) word.back().text += piece;
        else word.push_back({std::string(piece), literal});
      };
      while (pos < text_.size() && !blank(text_[pos])) {
        const char c = text_[pos];
        if (c == '\'' || c == '"') {
          const auto close = text_.find(c, pos + 1);
          if (close == std::string_view::npos) {
            return fail(std::string("unterminated ") + (c == '\'' ? "single" : "double") +
                        " quote opened at column " + std::to_string(pos + 1) +
                        " (accepted: a quoted argument ends on its line with the same quote)");
          }
          append(text_.substr(pos + 1, close - pos - 1), c == '\'');
          pos = close + 1;
        } else {
          append(text_.substr(pos, 1), false);
          ++pos;
        }
      }
      if (word.empty()) word.push_back({"", true});  // '' or "": an empty argument
      out.words.push_back(std::move(word));
    }
  }

 private:
  std::string_view file_;
  std::size_t line_no_;
  std::string_view text_;
};

// Replaces %t and %o; any other '%' stays as written.
void substitute(std::string_view text, std::uint32_t rank, std::uint32_t offset, std::string& out) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 1 < text.size() && (text[i + 1] == 't' || text[i + 1] == 'o')) {
      out += std::to_string(text[i + 1] == 't' ? rank : offset);
      ++i;
    } else {
      out += text[i];
    }
  }
}

}  // namespace

Result<MultiProgConfig> parseMultiProg(std::string_view text, std::string_view file) {
  MultiProgConfig config;
  config.file = std::string(file);
  // Where each rank range was named: first rank -> (last rank, line), to find a rank on two
  // lines in n log n.
  std::map<std::uint32_t, std::pair<std::uint32_t, std::size_t>> named;
  std::size_t all_others_line = 0;
  std::size_t line_no = 0;
  for (std::size_t start = 0; start < text.size();) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_no;
    const LineParser parser(file, line_no, line);

    std::size_t pos = 0;
    while (pos < line.size() && blank(line[pos])) ++pos;
    if (pos == line.size() || line[pos] == '#') continue;
    if (const auto nul = line.find('\0'); nul != std::string_view::npos) {
      return parser.fail("a NUL byte at column " + std::to_string(nul + 1) +
                         " (a program or argument cannot hold one)");
    }
    if (all_others_line != 0) {
      return parser.fail("a line after the '*' line (line " + std::to_string(all_others_line) +
                         "): '*' takes every task no other line names, so it must be the last line");
    }

    MultiProgLine entry;
    entry.line = line_no;
    std::size_t field_end = pos;
    while (field_end < line.size() && !blank(line[field_end])) ++field_end;
    const std::string_view field = line.substr(pos, field_end - pos);
    if (auto ok = parser.ranks(field, entry); !ok) return Error{ok.error()};
    if (auto ok = parser.words(field_end, entry); !ok) return Error{ok.error()};
    if (entry.words.empty()) {
      return parser.fail("no program after the task ranks '" + std::string(field) + "' (" +
                         kLineForm + ")");
    }
    if (entry.all_others) all_others_line = line_no;

    for (const RankRange& r : entry.ranks) {
      std::optional<std::pair<std::uint32_t, std::size_t>> clash;  // (rank, line)
      auto next = named.upper_bound(r.first);
      if (next != named.begin()) {
        auto prev = std::prev(next);
        if (prev->second.first >= r.first) clash = {r.first, prev->second.second};
      }
      if (!clash && next != named.end() && next->first <= r.last) clash = {next->first, next->second.second};
      if (clash) {
        const std::string rank = std::to_string(clash->first);
        if (clash->second == line_no) {
          return parser.fail("task rank " + rank + " appears twice on this line (in " +
                             rangeText(r) + "): each task rank may be named once");
        }
        return parser.fail("task rank " + rank + " is already on line " +
                           std::to_string(clash->second) + ": each task rank may be on one line only");
      }
      named.emplace(r.first, std::make_pair(r.last, line_no));
    }
    config.lines.push_back(std::move(entry));
  }
  if (config.lines.empty()) {
    return makeError(std::string(file) + ": no program lines, only comments and blank lines (" +
                     kLineForm + ")");
  }
  return config;
}

Result<MultiProgAssignment> MultiProgAssignment::assign(MultiProgConfig config,
                                                        std::uint32_t ntasks) {
  MultiProgAssignment out;
  for (std::size_t i = 0; i < config.lines.size(); ++i) {
    const MultiProgLine& line = config.lines[i];
    if (line.all_others) out.all_others_line_ = i;
    for (const RankRange& r : line.ranks) {
      if (r.last >= ntasks) {
        const std::uint32_t bad = std::max(r.first, ntasks);
        return makeError(config.file + ":" + std::to_string(line.line) + ": task rank " +
                         std::to_string(bad) + " is out of range: the step has " +
                         std::to_string(ntasks) + (ntasks == 1 ? " task" : " tasks") +
                         (ntasks == 0 ? "" : " (ranks 0-" + std::to_string(ntasks - 1) + ")"));
      }
      out.spans_.push_back({r, i, 0});
    }
  }
  std::sort(out.spans_.begin(), out.spans_.end(),
            [](const Span& a, const Span& b) { return a.range.first < b.range.first; });
  // A line's offsets count its ranks in ascending order, whatever order they were written in.
  std::map<std::size_t, std::uint32_t> seen_of_line;
  out.named_below_.reserve(out.spans_.size() + 1);
  out.named_below_.push_back(0);
  for (Span& s : out.spans_) {
    std::uint32_t& seen = seen_of_line[s.line_index];
    s.offset_base = seen;
    const std::uint32_t size = s.range.last - s.range.first + 1;
    seen += size;
    out.named_below_.push_back(out.named_below_.back() + size);
  }
  if (!out.all_others_line_) {
    // The first rank below ntasks that no range covers.
    std::uint64_t expect = 0;
    for (const Span& s : out.spans_) {
      if (s.range.first > expect) break;
      expect = std::uint64_t(s.range.last) + 1;
    }
    if (expect < ntasks) {
      return makeError(config.file + ": No executable program specified for task " +
                       std::to_string(expect) + ": no line names rank " + std::to_string(expect) +
                       " and there is no '*' line (the step has " + std::to_string(ntasks) +
                       (ntasks == 1 ? " task" : " tasks") + ", ranks 0-" +
                       std::to_string(ntasks - 1) +
                       "; name each once, or end the file with a '*' line for the rest)");
    }
  }
  out.config_ = std::move(config);
  return out;
}

MultiProgAssignment::Slot MultiProgAssignment::slotOf(std::uint32_t rank) const {
  // The first span starting after rank; the one before it holds rank, if any does.
  auto after = std::upper_bound(spans_.begin(), spans_.end(), rank,
                                [](std::uint32_t r, const Span& s) { return r < s.range.first; });
  if (after != spans_.begin()) {
    const Span& s = *std::prev(after);
    if (rank <= s.range.last) return {s.line_index, s.offset_base + (rank - s.range.first)};
  }
  // '*': the offset counts the ranks it takes, which are those the lines do not name.
  const auto below = named_below_[static_cast<std::size_t>(after - spans_.begin())];
  return {all_others_line_.value_or(0), static_cast<std::uint32_t>(rank - below)};
}

std::vector<std::string> MultiProgAssignment::argvOf(std::uint32_t rank,
                                                     const std::vector<std::string>& extra) const {
  const Slot slot = slotOf(rank);
  const MultiProgLine& line = config_.lines[slot.line_index];
  std::vector<std::string> argv;
  argv.reserve(line.words.size() + extra.size());
  for (std::size_t w = 0; w < line.words.size(); ++w) {
    std::string arg;
    for (const WordPiece& piece : line.words[w]) {
      // The man page substitutes in the arguments only; the program is taken as written.
      if (piece.literal || w == 0) arg += piece.text;
      else substitute(piece.text, rank, slot.offset, arg);
    }
    argv.push_back(std::move(arg));
  }
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

}  // namespace drover::jobspec
