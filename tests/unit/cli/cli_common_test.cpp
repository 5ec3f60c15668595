// The pieces every command's option handling shares.
#include "cli/cli_common.h"
#include "cli/iterate.h"
#include "cli/sort_keys.h"

#include <getopt.h>
#include <stdlib.h>

#include <gtest/gtest.h>

namespace drover::cli {
namespace {

TEST(ArgsWithEnvironment, VariablesComeFirstSoTheCommandLineWins) {
  setenv("DROVER_TEST_FORMAT", "%i", 1);
  setenv("DROVER_TEST_FLAG", "1", 1);
  unsetenv("DROVER_TEST_UNSET");
  setenv("DROVER_TEST_EMPTY", "", 1);
  char prog[] = "squeue", opt[] = "--format=%j";
  char* argv[] = {prog, opt, nullptr};
  auto args = argsWithEnvironment(2, argv,
                                  {{"DROVER_TEST_FORMAT", "--format"},
                                   {"DROVER_TEST_FLAG", "--batch", false},
                                   {"DROVER_TEST_UNSET", "--user"},
                                   {"DROVER_TEST_EMPTY", "--name"}});
  EXPECT_EQ(args, (std::vector<std::string>{"--format=%i", "--batch", "--format=%j"}));
}

TEST(GetoptArgs, OwnsAMutableArgvForGetopt) {
  GetoptArgs args("sinfo", {"-N", "--bogus"});
  ASSERT_EQ(args.argc(), 3);
  EXPECT_EQ(args[0], "sinfo");
  EXPECT_EQ(std::string(args.argv()[2]), "--bogus");
  EXPECT_EQ(args.argv()[3], nullptr);
}

// In glibc getopt's words, as the reference's commands printed them (2026-12-03: `squeue
// --bogus`, `-0`, `-u`, `--user`, `--help=x`; sacct and sstat without the "Try" line).
TEST(UnrecognizedOption, NamesTheOptionAsSlurmDoes) {
  static const option kLong[] = {{"long", no_argument, nullptr, 'l'},
                                 {"user", required_argument, nullptr, 'u'},
                                 {nullptr, 0, nullptr, 0}};
  for (const auto& [word, expected] : std::vector<std::pair<std::string, std::string>>{
           {"--bogus", "unrecognized option '--bogus'"},
           {"--bogus=1", "unrecognized option '--bogus=1'"},
           {"-Z", "invalid option -- 'Z'"},
           {"-u", "option requires an argument -- 'u'"},
           {"--user", "option '--user' requires an argument"},
           {"--long=x", "option '--long' doesn't allow an argument"},
           {"--us", "option '--user' requires an argument"},
           {"--lo=x", "option '--long' doesn't allow an argument"}}) {
    SCOPED_TRACE(word);
    GetoptArgs args("squeue", {word});
    opterr = 0;
    optind = 0;
    const int result = getopt_long(args.argc(), args.argv(), ":lu:", kLong, nullptr);
    ASSERT_TRUE(result == '?' || result == ':');
    EXPECT_EQ(unrecognizedOption("squeue", result, args[optind - 1], kLong),
              "bare: squeue: " + expected + "\nTry \"squeue --help\" for more information");
    EXPECT_EQ(unrecognizedOption("sacct", result, args[optind - 1], kLong, false),
              "bare: sacct: " + expected);
  }
}

TEST(SubmitLine, QuotesOnlyWhatTheShellWouldSplitOrExpand) {
  EXPECT_EQ(submitLine("sbatch", {}), "sbatch");
  EXPECT_EQ(submitLine("srun", {"-N2", "--wrap=echo hi", "it's", "$HOME", ""}),
            "srun -N2 '--wrap=echo hi' 'it'\\''s' '$HOME' ''");
}

TEST(IterateSeconds, ReadsTheLeadingNumberAsSlurmsAtoiAndRefusesBelowOne) {
  EXPECT_EQ(parseIterateSeconds("5"), 5);
  EXPECT_EQ(parseIterateSeconds(" 3"), 3);
  EXPECT_EQ(parseIterateSeconds("+2"), 2);
  EXPECT_EQ(parseIterateSeconds("1.5"), 1);   // the reference Slurm reports every second
  EXPECT_EQ(parseIterateSeconds("2x"), 2);
  EXPECT_EQ(parseIterateSeconds("2147483647"), 2147483647);
  for (const char* bad : {"0", "-1", "-0", "abc", "", " ", "x5", "2147483648", "99999999999"}) {
    EXPECT_EQ(parseIterateSeconds(bad), std::nullopt) << bad;
  }
}

TEST(SortKeys, ParseSignsAndLettersThenSortStablyByEachInTurn) {
  const auto keys = parseSortKeys("P,-t,+p,,-,xy");
  ASSERT_EQ(keys.size(), 5u);
  EXPECT_EQ(keys[0].code, 'P');
  EXPECT_FALSE(keys[0].descending);
  EXPECT_TRUE(keys[1].descending && keys[1].code == 't');
  EXPECT_TRUE(!keys[2].descending && keys[2].code == 'p' && keys[2].single_letter);
  EXPECT_EQ(keys[3].code, '\0');
  EXPECT_EQ(keys[3].item, "-");
  EXPECT_FALSE(keys[4].single_letter);
  struct Row { int a, b; char tag; };
  std::vector<Row> rows = {{1, 2, 'w'}, {2, 1, 'x'}, {1, 3, 'y'}, {1, 2, 'z'}};
  sortByKeys(rows, parseSortKeys("a,-b,q"), [](const Row& x, const Row& y, char code) {
    return code == 'a' ? threeWay(x.a, y.a) : code == 'b' ? threeWay(x.b, y.b) : 0;
  });
  std::string order;
  for (const Row& r : rows) order += r.tag;
  EXPECT_EQ(order, "ywzx");   // equal rows (w, z) keep their order
}

TEST(PrintParseError, SaysFatalForFormatWithLongAsSlurm) {
  ::testing::internal::CaptureStderr();
  printParseError("sinfo", kFormatWithLong);
  printParseError("sinfo", "bad");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "sinfo: fatal: " + std::string(kFormatWithLong) + "\nsinfo: error: bad\n");
}

}  // namespace
}  // namespace drover::cli
