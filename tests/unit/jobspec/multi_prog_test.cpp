// srun --multi-prog configuration files: every syntax form of man srun's "MULTIPLE PROGRAM
// CONFIGURATION" section, and every error (with its file and line).
#include "jobspec/multi_prog.h"

#include <gtest/gtest.h>

namespace drover::jobspec {
namespace {

using Argv = std::vector<std::string>;

// Every task's argv for a file that must parse and cover ntasks.
std::vector<Argv> expand(std::string_view text, std::uint32_t ntasks, const Argv& extra = {}) {
  auto config = parseMultiProg(text, "x.conf");
  EXPECT_TRUE(config.ok()) << (config.ok() ? "" : config.error());
  if (!config.ok()) return {};
  auto assignment = MultiProgAssignment::assign(*config, ntasks);
  EXPECT_TRUE(assignment.ok()) << (assignment.ok() ? "" : assignment.error());
  if (!assignment.ok()) return {};
  std::vector<Argv> out;
  for (std::uint32_t r = 0; r < ntasks; ++r) out.push_back(assignment->argvOf(r, extra));
  return out;
}

std::string parseError(std::string_view text) {
  auto config = parseMultiProg(text, "x.conf");
  EXPECT_FALSE(config.ok()) << "parsed: " << text;
  return config.ok() ? "" : config.error();
}

std::string assignError(std::string_view text, std::uint32_t ntasks) {
  auto config = parseMultiProg(text, "x.conf");
  EXPECT_TRUE(config.ok()) << (config.ok() ? "" : config.error());
  if (!config.ok()) return "";
  auto assignment = MultiProgAssignment::assign(*config, ntasks);
  EXPECT_FALSE(assignment.ok()) << "assigned: " << text;
  return assignment.ok() ? "" : assignment.error();
}

TEST(MultiProg, ManPageExample) {
  // man srun: `srun -n8 -l --multi-prog silly.conf`.
  const char* silly =
      "###################################################################\n"
      "# srun multiple program configuration file\n"
      "#\n"
      "# srun -n8 -l --multi-prog silly.conf\n"
      "###################################################################\n"
      "4-6       hostname\n"
      "1,7       echo  task:%t\n"
      "0,2-3     echo  offset:%o\n";
  const std::vector<Argv> want = {
      {"echo", "offset:0"}, {"echo", "task:1"}, {"echo", "offset:1"}, {"echo", "offset:2"},
      {"hostname"},         {"hostname"},       {"hostname"},         {"echo", "task:7"},
  };
  EXPECT_EQ(expand(silly, 8), want);
}

TEST(MultiProg, RankForms) {
  struct Case {
    std::string text;
    std::uint32_t ntasks;
    std::vector<Argv> want;
  };
  const std::vector<Case> cases = {
      {"0 a\n", 1, {{"a"}}},
      {"0-2 a\n", 3, {{"a"}, {"a"}, {"a"}}},
      {"1 b\n0 a\n", 2, {{"a"}, {"b"}}},
      {"0,2 a\n1 b\n", 3, {{"a"}, {"b"}, {"a"}}},
      {"0-1,3 a\n2 b\n", 4, {{"a"}, {"a"}, {"b"}, {"a"}}},
      {"* a\n", 2, {{"a"}, {"a"}}},
      {"1 b\n* a\n", 3, {{"a"}, {"b"}, {"a"}}},
      {"0-2 a\n* b\n", 3, {{"a"}, {"a"}, {"a"}}},  // '*' with nothing left to take
      {"2 c\n0 a\n1 b\n", 3, {{"a"}, {"b"}, {"c"}}},
  };
  for (const auto& c : cases) EXPECT_EQ(expand(c.text, c.ntasks), c.want) << c.text;
}

TEST(MultiProg, RankAndOffsetSubstitution) {
  // %o counts a line's ranks in ascending order, whatever order the ranges were written in;
  // under '*' it counts the ranks '*' took.
  const char* text =
      "5,1-2 p %t/%o\n"
      "* q t=%t o=%o %%t %x 100%\n";
  const std::vector<Argv> want = {
      {"q", "t=0", "o=0", "%0", "%x", "100%"}, {"p", "1/0"}, {"p", "2/1"},
      {"q", "t=3", "o=1", "%3", "%x", "100%"}, {"q", "t=4", "o=2", "%4", "%x", "100%"},
      {"p", "5/2"},
  };
  EXPECT_EQ(expand(text, 6), want);
  // The program itself is taken as written (the man page substitutes in the arguments).
  EXPECT_EQ(expand("0 ./prog%t %t\n", 1), (std::vector<Argv>{{"./prog%t", "0"}}));
}

TEST(MultiProg, CommentsBlankLinesAndSpacing) {
  const char* text =
      "# a comment\n"
      "\n"
      "   \t \n"
      "  # indented comment\n"
      "0\techo\t a   b \r\n"
      "1 echo #not-a-comment\n";
  EXPECT_EQ(expand(text, 2), (std::vector<Argv>{{"echo", "a", "b"}, {"echo", "#not-a-comment"}}));
  EXPECT_EQ(expand("0 a", 1), (std::vector<Argv>{{"a"}}));  // no final newline
}

TEST(MultiProg, Quoting) {
  struct Case {
    std::string line;
    Argv want;
  };
  const std::vector<Case> cases = {
      {"0 echo 'hello world'", {"echo", "hello world"}},
      {"0 echo 'task %t'", {"echo", "task %t"}},          // single quotes: nothing replaced
      {"0 echo \"task %t here\"", {"echo", "task 0 here"}},  // double: blanks kept, %t replaced
      {"0 echo a'b c'd", {"echo", "ab cd"}},
      {"0 echo '' x", {"echo", "", "x"}},
      {"0 echo \"\"", {"echo", ""}},
      {"0 echo \"it's\" 'say \"hi\"'", {"echo", "it's", "say \"hi\""}},
      {"0 'my prog' arg", {"my prog", "arg"}},
      {"0 echo %t'%t'\"%t\"", {"echo", "0%t0"}},
  };
  for (const auto& c : cases) EXPECT_EQ(expand(c.line, 1), std::vector<Argv>{c.want}) << c.line;
}

TEST(MultiProg, ExtraArgumentsFollowEachTasksOwn) {
  // "Any arguments for the program entered on the command line will be added to the arguments
  // specified in the configuration file"; they are not substituted.
  EXPECT_EQ(expand("0 a %t\n1 b\n", 2, {"x", "%t"}),
            (std::vector<Argv>{{"a", "0", "x", "%t"}, {"b", "x", "%t"}}));
}

TEST(MultiProg, ParseErrorsNameFileLineAndWhatIsAccepted) {
  struct Case {
    std::string text;
    std::vector<std::string> expect;  // substrings of the error
  };
  const std::vector<Case> cases = {
      {"", {"x.conf: no program lines", "RANKS PROGRAM"}},
      {"# only\n\n", {"x.conf: no program lines"}},
      {"0\n", {"x.conf:1: no program after the task ranks '0'", "RANKS PROGRAM"}},
      {"# c\n1-3   \n", {"x.conf:2: no program after the task ranks '1-3'"}},
      {"a echo\n", {"x.conf:1: invalid task rank 'a'", "accepted:"}},
      {"0 a\n1-x b\n", {"x.conf:2: invalid task rank '1-x' in '1-x'", "accepted:"}},
      {"-1 a\n", {"x.conf:1: invalid task rank '-1'"}},
      {"1- a\n", {"x.conf:1: invalid task rank '1-'"}},
      {"1-2-3 a\n", {"x.conf:1: invalid task rank '1-2-3'"}},
      {"0,,1 a\n", {"x.conf:1: empty element in the task ranks '0,,1'", "accepted:"}},
      {"0, a\n", {"x.conf:1: empty element"}},
      {"*,1 a\n", {"x.conf:1: '*' combined with other ranks in '*,1'"}},
      {"**  a\n", {"x.conf:1: invalid task rank '**'"}},
      {"4-0 a\n", {"x.conf:1: task rank range '4-0' runs backwards", "(0-4)"}},
      {"4294967295 a\n", {"x.conf:1: task rank '4294967295' is too large", "4294967294"}},
      {"0-99999999999 a\n", {"x.conf:1: task rank '0-99999999999' is too large"}},
      {"0 a\n0 b\n", {"x.conf:2: task rank 0 is already on line 1", "one line only"}},
      {"0-3 a\n\n# c\n2-5 b\n", {"x.conf:4: task rank 2 is already on line 1"}},
      {"4-6 a\n1,5 b\n", {"x.conf:2: task rank 5 is already on line 1"}},
      {"4-6 a\n0-9 b\n", {"x.conf:2: task rank 4 is already on line 1"}},
      {"0-3,2 a\n", {"x.conf:1: task rank 2 appears twice on this line"}},
      {"1,1 a\n", {"x.conf:1: task rank 1 appears twice on this line"}},
      {"* a\n0 b\n", {"x.conf:2: a line after the '*' line (line 1)", "must be the last line"}},
      {"* a\n* b\n", {"x.conf:2: a line after the '*' line (line 1)"}},
      {"0 echo 'abc\n", {"x.conf:1: unterminated single quote opened at column 8"}},
      {"0 a\n1 echo \"abc\n", {"x.conf:2: unterminated double quote opened at column 8"}},
      {std::string("0 echo a\0b\n", 11), {"x.conf:1: a NUL byte at column 9"}},
  };
  for (const auto& c : cases) {
    const std::string error = parseError(c.text);
    for (const auto& e : c.expect) EXPECT_NE(error.find(e), std::string::npos) << c.text << " -> " << error;
  }
  // A comment may hold anything, a NUL byte included.
  EXPECT_EQ(expand(std::string("#\0\n0 a\n", 7), 1), (std::vector<Argv>{{"a"}}));
}

TEST(MultiProg, EveryRankOnceOrTheErrorNamesTheFirstMissingOne) {
  EXPECT_NE(assignError("0 a\n2 b\n", 3).find(
                "x.conf: No executable program specified for task 1: no line names rank 1 and "
                "there is no '*' line (the step has 3 tasks, ranks 0-2"),
            std::string::npos);
  EXPECT_NE(assignError("1-3 a\n", 4).find("for task 0:"), std::string::npos);
  EXPECT_NE(assignError("0-3 a\n", 8).find("for task 4:"), std::string::npos);
  EXPECT_NE(assignError("0 a\n", 2).find("end the file with a '*' line"), std::string::npos);
}

TEST(MultiProg, RanksBeyondTheStepAreRefusedWithTheirLine) {
  EXPECT_NE(assignError("0-3 a\n4-9 b\n", 8).find(
                "x.conf:2: task rank 8 is out of range: the step has 8 tasks (ranks 0-7)"),
            std::string::npos);
  EXPECT_NE(assignError("# c\n9 a\n* b\n", 4).find("x.conf:2: task rank 9 is out of range"),
            std::string::npos);
  EXPECT_NE(assignError("0 a\n1 b\n", 1).find("x.conf:2: task rank 1 is out of range: the step has 1 task (ranks 0-0)"),
            std::string::npos);
}

TEST(MultiProg, LargeRangesCostNoTablePerRank) {
  // A step of 4 billion tasks is checked and looked up without a table as long as the step.
  auto config = parseMultiProg("0-4294967293 a %o\n* b %o\n", "big.conf");
  ASSERT_TRUE(config.ok()) << config.error();
  auto assignment = MultiProgAssignment::assign(*config, kMaxTaskRank + 1);
  ASSERT_TRUE(assignment.ok()) << assignment.error();
  EXPECT_EQ(assignment->argvOf(4294967293u, {}), (Argv{"a", "4294967293"}));
  EXPECT_EQ(assignment->argvOf(kMaxTaskRank, {}), (Argv{"b", "0"}));
}

TEST(MultiProg, AssignmentOutlivesTheParsedConfig) {
  std::optional<MultiProgAssignment> kept;
  {
    auto config = parseMultiProg("* echo %t\n", "x.conf");
    ASSERT_TRUE(config.ok());
    auto assignment = MultiProgAssignment::assign(*config, 2);
    ASSERT_TRUE(assignment.ok());
    kept.emplace(std::move(*assignment));
  }
  EXPECT_EQ(kept->argvOf(1, {}), (Argv{"echo", "1"}));
}

}  // namespace
}  // namespace drover::jobspec
