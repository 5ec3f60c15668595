#pragma once
// srun --multi-prog: the configuration file that gives each task of a step its own program and
// arguments (man srun, "MULTIPLE PROGRAM CONFIGURATION"). One line per group of tasks:
//
//   # comment (a '#' first on the line; blank lines are skipped too)
//   4-6     hostname
//   1,7     echo task:%t          %t: the task's rank
//   0,2-3   echo offset:%o        %o: the task's offset among its line's ranks (0, 1, 2 here)
//   *       echo 'not %t' "a b"   '*': every task no other line names; the last line
//
// Fields are separated by blanks; single quotes keep what they enclose as it is (blanks, %t
// and %o), double quotes keep blanks but still replace %t and %o. Every rank of the step must
// be on exactly one line. srun parses the file before it asks for anything (syntax, rank
// ranges, ranks on two lines) and checks coverage when it knows the task count; the controller
// checks coverage again once it has laid the step out, and gives each node its tasks' argv.
//
// Pure code: the file's text comes in, values or "FILE:LINE: what; accepted" errors go out.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drover/result.h"

namespace drover::jobspec {

struct RankRange {
  std::uint32_t first = 0;
  std::uint32_t last = 0;  // inclusive
  bool operator==(const RankRange&) const = default;
};

// Part of one word: text from single quotes is literal, the rest gets %t and %o replaced.
struct WordPiece {
  std::string text;
  bool literal = false;
  bool operator==(const WordPiece&) const = default;
};
using ProgramWord = std::vector<WordPiece>;

struct MultiProgLine {
  std::size_t line = 0;          // 1-based, in the file
  bool all_others = false;       // '*'
  std::vector<RankRange> ranks;  // as written; empty for '*'
  std::vector<ProgramWord> words;  // the program, then its arguments
};

struct MultiProgConfig {
  std::string file;  // the name errors give
  std::vector<MultiProgLine> lines;
};

// The most a rank may be: ranks count tasks, which are uint32.
inline constexpr std::uint32_t kMaxTaskRank = UINT32_MAX - 1;

// Syntax, ranges written backwards, a rank on two lines, lines after the '*' line, a file
// with no program line.
Result<MultiProgConfig> parseMultiProg(std::string_view text, std::string_view file);

// Which line runs each rank of a step, without a table as long as the step: a lookup over the
// lines' sorted ranges.
class MultiProgAssignment {
 public:
  // Every rank below ntasks must be on one line (or left to '*') and no line may name a rank
  // at or above it. The error names the first rank without a program, or the line with a rank
  // out of range.
  static Result<MultiProgAssignment> assign(MultiProgConfig config, std::uint32_t ntasks);

  // The task's argv: its line's program and arguments, %t and %o replaced outside single
  // quotes, then `extra` (srun's arguments after the file name) as they are.
  std::vector<std::string> argvOf(std::uint32_t rank, const std::vector<std::string>& extra) const;

 private:
  struct Span {
    RankRange range;
    std::size_t line_index;
    std::uint32_t offset_base;  // the line's ranks below range.first
  };
  struct Slot {
    std::size_t line_index;
    std::uint32_t offset;
  };
  Slot slotOf(std::uint32_t rank) const;

  MultiProgConfig config_;
  std::vector<Span> spans_;  // sorted by first rank, none overlapping
  std::vector<std::uint64_t> named_below_;  // ranks named by lines in spans_[0..i)
  std::optional<std::size_t> all_others_line_;
};

}  // namespace drover::jobspec
