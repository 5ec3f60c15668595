// The pieces every command's option handling shares.
#include "cli/cli_common.h"

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

TEST(UnrecognizedOption, NamesTheOptionAsSlurmDoes) {
  static const option kLong[] = {{"long", no_argument, nullptr, 'l'}, {nullptr, 0, nullptr, 0}};
  for (const auto& [word, expected] : std::vector<std::pair<std::string, std::string>>{
           {"--bogus", "--bogus"}, {"-Z", "-Z"}}) {
    GetoptArgs args("sinfo", {word});
    opterr = 0;
    optind = 0;
    ASSERT_EQ(getopt_long(args.argc(), args.argv(), "l", kLong, nullptr), '?');
    EXPECT_EQ(unrecognizedOption("sinfo", args[optind - 1]),
              "unrecognized option '" + expected + "'\nTry \"sinfo --help\" for more information");
  }
}

TEST(SubmitLine, QuotesOnlyWhatTheShellWouldSplitOrExpand) {
  EXPECT_EQ(submitLine("sbatch", {}), "sbatch");
  EXPECT_EQ(submitLine("srun", {"-N2", "--wrap=echo hi", "it's", "$HOME", ""}),
            "srun -N2 '--wrap=echo hi' 'it'\\''s' '$HOME' ''");
}

}  // namespace
}  // namespace drover::cli
