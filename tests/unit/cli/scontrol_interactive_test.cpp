// scontrol's interactive mode: how a line is split into words, the session's prompt, echo,
// interactive-only commands and exit status, against what the reference's scontrol 22.05 did
// with the same lines piped in (golden/scontrol-interactive/).
#include "cli/scontrol_interactive.h"

#include <getopt.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/scontrol.h"

namespace drover::cli {
namespace {

using Words = std::vector<std::string>;

std::string readGolden(const std::string& name) {
  std::ifstream in(std::string(DROVER_CLI_GOLDEN_DIR) + "/scontrol-interactive/" + name);
  EXPECT_TRUE(in) << name;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ScontrolInteractiveSplit, QuotesAsTheReferenceSplitThem) {
  // Each: a line typed into the reference's scontrol and the words its update command saw
  // (read back from the Comment it stored, or from the word its error message named).
  EXPECT_EQ(splitInteractiveLine("update jobid=5 comment=\"a b\""),
            (Words{"update", "jobid=5", "comment=\"a b\""}));
  EXPECT_EQ(splitInteractiveLine("update comment=\"a b\" jobid=5"),
            (Words{"update", "comment=\"a b\"", "jobid=5"}));
  EXPECT_EQ(splitInteractiveLine("update jobid=5 comment='c d'"), (Words{"update", "jobid=5", "comment='c d'"}));
  EXPECT_EQ(splitInteractiveLine("update jobid=5 comment=a\" b\"c"), (Words{"update", "jobid=5", "comment=a\" b\"c"}));
  // A quote opening a word quotes nothing: the reference said `... not supported: "comment=e`.
  EXPECT_EQ(splitInteractiveLine("update jobid=5 \"comment=e f\""),
            (Words{"update", "jobid=5", "\"comment=e", "f\""}));
  EXPECT_EQ(splitInteractiveLine("\"ping\""), (Words{"\"ping\""}));
  // Each kind of quote opens and closes on its own.
  EXPECT_EQ(splitInteractiveLine("update comment=a'b \"c' d\" jobid=5"),
            (Words{"update", "comment=a'b \"c' d\"", "jobid=5"}));
  EXPECT_EQ(splitInteractiveLine("update comment=a'b \"c\" d' jobid=5"),
            (Words{"update", "comment=a'b \"c\" d'", "jobid=5"}));
  // A quote left open runs to the end of the line (the reference: "No valid entity").
  EXPECT_EQ(splitInteractiveLine("update comment=a'b \"c' d jobid=5"),
            (Words{"update", "comment=a'b \"c' d jobid=5"}));
  EXPECT_EQ(splitInteractiveLine("  show   job\t7  "), (Words{"show", "job", "7"}));
  EXPECT_TRUE(splitInteractiveLine("").empty());
  EXPECT_TRUE(splitInteractiveLine("   \t ").empty());
}

// A session whose commands are recorded and answer with the status given for their verb.
struct Recorded {
  std::string out, err;
  int status = -1;
  std::vector<Words> ran;
};

Recorded session(const std::string& input, const std::vector<std::pair<std::string, int>>& answers,
                 bool echo = true) {
  Recorded r;
  std::istringstream in(input);
  std::ostringstream out, err;
  r.status = runInteractiveSession(in, out, err, echo, [&](const Words& words) {
    r.ran.push_back(words);
    for (const auto& [verb, rc] : answers)
      if (words[0] == verb) return rc;
    return 0;
  });
  r.out = out.str();
  r.err = err.str();
  return r;
}

TEST(ScontrolInteractiveSession, PromptEchoAndEndAsTheReference) {
  // The reference, `printf 'ping\nquit\n' | scontrol`: stdout "scontrol: ping\n<ping's
  // line>scontrol: quit\n"; `printf 'ping' | scontrol` (no newline) "scontrol: ping\n<ping's
  // line>scontrol: \n"; `printf '' | scontrol` "scontrol: \n", exit 0.
  auto r = session("ping\nquit\n", {});
  EXPECT_EQ(r.out, "scontrol: ping\nscontrol: quit\n");
  EXPECT_EQ(r.ran, (std::vector<Words>{{"ping"}}));
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(session("ping", {}).out, "scontrol: ping\nscontrol: \n");
  EXPECT_EQ(session("", {}).out, "scontrol: \n");
  EXPECT_EQ(session("", {}).status, 0);
  // At a terminal the terminal echoes what is typed: only the prompts.
  EXPECT_EQ(session("ping\nquit\n", {}, false).out, "scontrol: scontrol: ");
}

TEST(ScontrolInteractiveSession, QuitAndExitEndItWhateverFollows) {
  for (const char* word : {"quit", "QuIt", "exit", "exi", "ex"}) {
    auto r = session(std::string(word) + "\nping\n", {});
    EXPECT_TRUE(r.ran.empty()) << word;
    EXPECT_EQ(r.status, 0) << word;
  }
  // "qu"/"qui" are no quit (the reference: invalid keyword): they go to the dispatcher.
  EXPECT_EQ(session("qui\nping\n", {}).ran, (std::vector<Words>{{"qui"}, {"ping"}}));
  // With arguments: refused, still the end, status 1.
  auto r = session("ping\nquit now\nping\n", {});
  EXPECT_EQ(r.ran.size(), 1u);
  EXPECT_EQ(r.err, "too many arguments for keyword:quit\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(session("ex now\n", {}).err, "too many arguments for keyword:ex\n");
}

TEST(ScontrolInteractiveSession, ExitStatusStaysFailedExceptAfterPing) {
  // The reference: `show job 99999` then `show partition debug`, `version` or a blank line
  // ends 1; then `ping` (or `show config`) ends 0; a line failing after ping ends 1.
  const std::vector<std::pair<std::string, int>> answers = {{"bad", 1}};
  EXPECT_EQ(session("bad\nshow partition\n\nversion\n", answers).status, 1);
  EXPECT_EQ(session("bad\nping\n", answers).status, 0);
  EXPECT_EQ(session("bad\npi\n", answers).status, 0);
  EXPECT_EQ(session("bad\nshow config\n", answers).status, 0);
  EXPECT_EQ(session("bad\nshow c\nquit\n", answers).status, 0);
  EXPECT_EQ(session("ping\nbad\n", answers).status, 1);
  EXPECT_EQ(session("bad\nquit\n", answers).status, 1);
  // ping's own failure (the controller down) is the session's too.
  EXPECT_EQ(session("show node\nping\n", {{"ping", 1}}).status, 1);
}

TEST(ScontrolInteractiveSession, BangBangRunsTheLastCommandAgain) {
  auto r = session("ping\n!!\n!!\n", {});
  EXPECT_EQ(r.ran, (std::vector<Words>{{"ping"}, {"ping"}, {"ping"}}));
  EXPECT_EQ(r.out, "scontrol: ping\nscontrol: !!\nscontrol: !!\nscontrol: \n");
  // Nothing before it: nothing runs, nothing is said, status 1 (the reference).
  r = session("!!\n", {});
  EXPECT_TRUE(r.ran.empty());
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.status, 1);
  // Only alone on its line.
  EXPECT_EQ(session("!! x\n", {}).ran, (std::vector<Words>{{"!!", "x"}}));
}

// The whole of scontrol (its dispatcher): interactive-only commands need no controller. The
// reference's session, golden settings-and-exit.*: details, blank lines, `oneliner x` (refused,
// status 1), `!!` (the same again), `exit now` (refused, the end: ping never runs).
TEST(ScontrolInteractiveSession, SettingsAndExitMatchTheReferenceCapture) {
  std::istringstream in(readGolden("settings-and-exit.stdin"));
  std::ostringstream out, err;
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  auto* old_err = std::cerr.rdbuf(err.rdbuf());
  const int status = runScontrolLines(in, true);
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  EXPECT_EQ(out.str(), readGolden("settings-and-exit.stdout"));
  EXPECT_EQ(err.str(), readGolden("settings-and-exit.stderr"));
  EXPECT_EQ(std::to_string(status) + "\n", readGolden("settings-and-exit.rc"));
}

// On the command line the interactive-only settings do nothing, exit 0 (the reference's
// `scontrol oneliner`, `scontrol quit`); `!!` is an invalid keyword there.
int scontrolArgs(std::vector<std::string> args, std::string* err = nullptr) {
  std::vector<char*> argv;
  static std::string prog = "scontrol";
  argv.push_back(prog.data());
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::ostringstream out, errs;
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  auto* old_err = std::cerr.rdbuf(errs.rdbuf());
  optind = 0;  // getopt starts over (glibc)
  const int rc = runScontrol(static_cast<int>(argv.size()) - 1, argv.data());
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  if (err) *err = errs.str();
  return rc;
}

TEST(ScontrolInteractiveCommandLine, SettingsAcceptedAbbreviatedAsTheReference) {
  // The reference's shortest accepted forms, and the shorter ones it called invalid keywords.
  for (const char* word : {"o", "oneliner", "d", "details", "quie", "quiet", "verb", "verbose", "al", "all",
                           "hi", "hide", "ex", "exit", "quit"}) {
    std::string err;
    EXPECT_EQ(scontrolArgs({word}, &err), 0) << word;
    EXPECT_EQ(err, "") << word;
  }
  // The reference's words, without scontrol's name (tests/e2e/golden/edges/12, 13).
  for (const char* word : {"q", "qui", "v", "ver", "a", "h", "!!"}) {
    std::string bad;
    EXPECT_EQ(scontrolArgs({word}, &bad), 1) << word;
    EXPECT_EQ(bad, std::string("invalid keyword: ") + word + "\n");
  }
  std::string entity;
  EXPECT_EQ(scontrolArgs({"show", "bogus"}, &entity), 1);
  EXPECT_EQ(entity, "invalid entity:bogus for keyword:show \n");
  std::string err;
  EXPECT_EQ(scontrolArgs({"oneliner", "x"}, &err), 1);
  EXPECT_EQ(err, "too many arguments for keyword:oneliner\n");
}

}  // namespace
}  // namespace drover::cli
