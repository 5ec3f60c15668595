// scancel's options and its reporting of the controller's per-job results against Slurm's
// captured stderr and exit codes (golden 020-021, 066, 100-104).
#include "cli/scancel.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace drover::cli {
namespace {

// The stderr section of a golden and its recorded exit code.
struct Captured {
  std::string err;
  int exit_code = -1;
};
Captured golden(const std::string& file) {
  std::ifstream in(std::string(DROVER_CLI_GOLDEN_DIR) + "/" + file);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  Captured c;
  const auto e = text.find("# [stderr]\n");
  if (e != std::string::npos) c.err = text.substr(e + 11);
  const auto x = text.find(" exit=");
  if (x != std::string::npos) c.exit_code = std::stoi(text.substr(x + 6));
  return c;
}

v1::CancelJobsReply reply(const std::string& id, bool ok, const std::string& error = "") {
  v1::CancelJobsReply r;
  auto* res = r.add_results();
  res->set_job_id(id);
  res->set_ok(ok);
  res->set_error(error);
  return r;
}

struct Case {
  std::string golden;
  std::vector<std::string> args;
  v1::CancelJobsReply reply;
};

TEST(ScancelTest, ReportsMatchGoldens) {
  const std::vector<Case> cases = {
      {"020-err-scancel-nonexistent.txt", {"999999"}, reply("999999", false, "Invalid job id specified")},
      {"021-err-scancel-nonexistent-v.txt", {"-v", "999999"}, reply("999999", false, "Invalid job id specified")},
      {"066-err-scancel-other-user.txt", {"28"}, reply("28", false, "Access/permission denied")},
      {"100-scancel-pending.txt", {"33"}, reply("33", true)},
      {"101-scancel-running.txt", {"28"}, reply("28", true)},
      {"102-scancel-array-task.txt", {"29_5"}, reply("29_5", true)},
      {"103-scancel-already-done.txt", {"5"}, reply("5", false, "Job/step already completing or completed")},
      {"104-scancel-v.txt", {"-v", "32"}, reply("32", true)},
  };
  for (const auto& c : cases) {
    auto cmd = parseScancelArgs(c.args);
    ASSERT_TRUE(cmd.ok()) << c.golden << ": " << cmd.error();
    ASSERT_EQ(cmd->request.job_ids_size(), 1) << c.golden;
    EXPECT_EQ(cmd->request.job_ids(0), c.args.back());
    auto report = reportScancel(*cmd, c.reply);
    const auto want = golden(c.golden);
    EXPECT_EQ(report.stderr_text, want.err) << c.golden;
    // The goldens that echo "exit=$?" recorded the shell's status, scancel's own is in stdout.
    if (c.golden.rfind("10", 0) != 0) EXPECT_EQ(report.exit_code, want.exit_code) << c.golden;
    else EXPECT_EQ(report.exit_code, 0) << c.golden;
  }
}

TEST(ScancelTest, FiltersSignalsAndErrors) {
  auto cmd = parseScancelArgs({"-u", "root", "-n", "job", "-t", "PD,r", "-p", "gpu", "-w", "node01",
                               "--signal=USR1", "--batch", "12_[1-3]", "13.0"});
  ASSERT_TRUE(cmd.ok()) << cmd.error();
  const auto& r = cmd->request;
  EXPECT_EQ(r.user(), "root");
  EXPECT_EQ(r.name(), "job");
  ASSERT_EQ(r.states_size(), 2);
  EXPECT_EQ(r.states(0), "PENDING");
  EXPECT_EQ(r.states(1), "RUNNING");
  EXPECT_EQ(r.partition(), "gpu");
  EXPECT_EQ(r.nodes(), "node01");
  EXPECT_EQ(r.signal(), 10);
  EXPECT_TRUE(r.batch_only());
  ASSERT_EQ(r.job_ids_size(), 2);
  EXPECT_EQ(r.job_ids(0), "12_[1-3]");

  struct Bad {
    std::vector<std::string> args;
    std::string part;
  };
  for (const auto& b : std::vector<Bad>{{{}, "No job identification provided"},
                                        {{"abc"}, "Invalid job id abc"},
                                        {{"-s", "NOPE", "1"}, "bare: Unknown job signal: NOPE"},
                                        {{"-s", "0", "1"}, "bare: Unknown job signal: 0"},
                                        {{"-t", "COMPLETED"}, "Invalid job state specified"},
                                        {{"--bogus", "1"}, "unrecognized option"}}) {
    auto bad = parseScancelArgs(b.args);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().find(b.part), std::string::npos) << bad.error();
  }
}

TEST(ScancelTest, BadFiltersAreWordedAsTheReferenceWordedThem) {
  // tests/e2e/golden/edges/22, 24, captured on the reference: the bad state without scancel's
  // name (kBareMark), and --ctld taken (every Drover cancel goes there). A user nobody is
  // (edges/23) is the controller's answer: test_edge_goldens.py.
  auto state = parseScancelArgs({"-t", "bogus", "-u", "root"});
  ASSERT_FALSE(state.ok());
  EXPECT_EQ(state.error(), "bare: Invalid job state specified: bogus\nValid job states are PENDING, RUNNING, and SUSPENDED");
  auto ctld = parseScancelArgs({"--ctld", "-n", "later", "-t", "PENDING"});
  ASSERT_TRUE(ctld.ok()) << ctld.error();
  EXPECT_EQ(ctld->request.name(), "later");
}

TEST(ScancelTest, VerboseSignalWording) {
  auto cmd = parseScancelArgs({"-v", "-s", "TERM", "7"});
  ASSERT_TRUE(cmd.ok());
  EXPECT_EQ(reportScancel(*cmd, reply("7", true)).stderr_text, "scancel: Signal 15 to job 7\n");
}

// Job 0 does not exist: refused before asking, as the reference's `scancel 0` / `00` / `0_1`.
TEST(ScancelTest, JobZeroIsAnInvalidId) {
  for (const std::string id : {"0", "00", "0_1"}) {
    auto cmd = parseScancelArgs({id});
    ASSERT_FALSE(cmd.ok()) << id;
    EXPECT_EQ(cmd.error(), "Invalid job id " + id);
  }
  EXPECT_TRUE(parseScancelArgs({"10"}).ok());
}

// Options after the job ids are read, as GNU getopt permutes them for the reference's scancel
// (`scancel 7161 -v` is `scancel -v 7161`; it was "Invalid job id -v").
TEST(ScancelTest, OptionsAfterTheIdsAreOptions) {
  auto cmd = parseScancelArgs({"7161", "-v", "7162", "--signal=USR1"});
  ASSERT_TRUE(cmd.ok()) << cmd.error();
  EXPECT_TRUE(cmd->verbose);
  EXPECT_EQ(cmd->request.signal(), 10);
  ASSERT_EQ(cmd->request.job_ids_size(), 2);
  EXPECT_EQ(cmd->request.job_ids(0), "7161");
  EXPECT_EQ(cmd->request.job_ids(1), "7162");
}

// With a signal or --batch, an unknown or finished job is an error even without -v, as the
// reference's: "Kill job error" whatever the signal, exit 1; -Q drops the line, not the status.
TEST(ScancelTest, SignallingAJobThatIsGoneIsAnError) {
  const std::string line = "scancel: error: Kill job error on job id 9: Invalid job id specified\n";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"-s", "USR1", "9"}, {"-s", "KILL", "9"}, {"-b", "9"}}) {
    auto cmd = parseScancelArgs(args);
    ASSERT_TRUE(cmd.ok());
    auto report = reportScancel(*cmd, reply("9", false, "Invalid job id specified"));
    EXPECT_EQ(report.stderr_text, line) << args[0];
    EXPECT_EQ(report.exit_code, 1) << args[0];
  }
  auto quiet = parseScancelArgs({"-Q", "-s", "USR1", "9"});
  ASSERT_TRUE(quiet.ok());
  auto report = reportScancel(*quiet, reply("9", false, "Invalid job id specified"));
  EXPECT_EQ(report.stderr_text, "");
  EXPECT_EQ(report.exit_code, 1);
  auto plain = parseScancelArgs({"9"});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(reportScancel(*plain, reply("9", false, "Invalid job id specified")).exit_code, 0);
  // A step is reported even by a plain cancel, as the reference's `scancel 99999.0`.
  auto step = parseScancelArgs({"9.0"});
  ASSERT_TRUE(step.ok());
  auto step_report = reportScancel(*step, reply("9.0", false, "Invalid job id specified"));
  EXPECT_EQ(step_report.stderr_text,
            "scancel: error: Kill job error on job step id 9.0: Invalid job id specified\n");
  EXPECT_EQ(step_report.exit_code, 1);
  // A step of a job still pending: silent, exit 0, as the reference.
  auto pending = reportScancel(*step, reply("9.0", false, "Job is pending execution"));
  EXPECT_EQ(pending.stderr_text, "");
  EXPECT_EQ(pending.exit_code, 0);
  // A step its running job lacks: the reference named the job alone and exited 225
  // (`scancel 156.3`, -v: "Terminating step 156.3").
  auto verbose = parseScancelArgs({"-v", "9.3"});
  ASSERT_TRUE(verbose.ok());
  auto missing = reportScancel(*verbose, reply("9.3", false, "Invalid job id specified"), {"9"});
  EXPECT_EQ(missing.stderr_text,
            "scancel: Terminating step 9.3\n"
            "scancel: error: Kill job error on job step id 9: Invalid job id specified\n");
  EXPECT_EQ(missing.exit_code, 225);
}

// Filters matching no job: silent, and with -v the reference's line naming every filter in its
// order (captured: "scancel -v -A research -p debug -w node01 -u alice -t PD -n x ..."), exit 0.
TEST(ScancelTest, VerboseFiltersMatchingNothing) {
  auto cmd = parseScancelArgs({"-v", "-A", "research", "-p", "debug", "-w", "node01", "-u", "alice",
                               "-t", "PD", "-n", "x"});
  ASSERT_TRUE(cmd.ok()) << cmd.error();
  auto report = reportScancel(*cmd, v1::CancelJobsReply{});
  EXPECT_EQ(report.stderr_text,
            "scancel: error: No active jobs match ALL job filters, including: account=research "
            "job_name=x nodelist=node01 partition=debug state=PENDING user_name=alice \n");
  EXPECT_EQ(report.exit_code, 0);
  cmd = parseScancelArgs({"-u", "bob"});
  ASSERT_TRUE(cmd.ok());
  EXPECT_EQ(reportScancel(*cmd, v1::CancelJobsReply{}).stderr_text, "");
  cmd = parseScancelArgs({"-Q", "-v", "-u", "bob"});
  ASSERT_TRUE(cmd.ok());
  EXPECT_EQ(reportScancel(*cmd, v1::CancelJobsReply{}).stderr_text, "");
  // --me is the caller's uid there (the reference: "user_name=1001"), -u the name given.
  cmd = parseScancelArgs({"-v", "--me", "-n", "x"});
  ASSERT_TRUE(cmd.ok());
  EXPECT_EQ(reportScancel(*cmd, v1::CancelJobsReply{}).stderr_text,
            "scancel: error: No active jobs match ALL job filters, including: job_name=x "
            "user_name=" + std::to_string(getuid()) + " \n");
}

// -q, -R and --wckey are filters (they were once accepted and ignored, so `scancel -u alice -R x`
// cancelled every job of alice's); -v names them where the reference did (captured: "qos=bogus
// user_name=alice", "reservation=nosuch user_name=alice", "user_name=alice wckey=foo"); each
// alone is enough to select jobs, as -p is; SCANCEL_QOS and SCANCEL_WCKEY stand for them.
TEST(ScancelTest, QosReservationAndWckeyFilter) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"-v", "-u", "alice", "-q", "bogus"}, "qos=bogus user_name=alice "},
      {{"-v", "-u", "alice", "-R", "nosuch"}, "reservation=nosuch user_name=alice "},
      {{"-v", "-u", "alice", "--wckey=foo"}, "user_name=alice wckey=foo "},
  };
  for (const auto& [args, filters] : cases) {
    auto cmd = parseScancelArgs(args);
    ASSERT_TRUE(cmd.ok()) << cmd.error();
    EXPECT_EQ(reportScancel(*cmd, v1::CancelJobsReply{}).stderr_text,
              "scancel: error: No active jobs match ALL job filters, including: " + filters + "\n");
  }
  for (const std::string option : {"-q", "-R", "--wckey"}) {
    auto alone = parseScancelArgs({option, "x"});
    ASSERT_TRUE(alone.ok()) << option << ": " << alone.error();
  }
  auto q = parseScancelArgs({"--qos=normal", "--reservation=maint", "--wckey=k"});
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->request.qos(), "normal");
  EXPECT_EQ(q->request.reservation(), "maint");
  EXPECT_EQ(q->request.wckey(), "k");
}

// -v names each id once as written, as the reference's (2026-12-03): `scancel -v 7067_[2-3] 7068`
// printed "Terminating job 7067_[2-3]", and `scancel -v 7067` of an array whose other tasks
// were already cancelled its one line and no error.
TEST(ScancelTest, VerboseNamesEachIdAsGiven) {
  auto results = [](std::vector<std::tuple<std::string, bool, std::string>> rows) {
    v1::CancelJobsReply r;
    for (const auto& [id, ok, error] : rows) {
      auto* res = r.add_results();
      res->set_job_id(id);
      res->set_ok(ok);
      res->set_error(error);
    }
    return r;
  };
  const std::string done = "Job/step already completing or completed";
  auto range = parseScancelArgs({"-v", "7067_[2-3]", "7068"});
  ASSERT_TRUE(range.ok()) << range.error();
  EXPECT_EQ(reportScancel(*range, results({{"7067_2", true, ""}, {"7067_3", true, ""}, {"7068", true, ""}})).stderr_text,
            "scancel: Terminating job 7067_[2-3]\nscancel: Terminating job 7068\n");
  auto array = parseScancelArgs({"-v", "7067"});
  ASSERT_TRUE(array.ok()) << array.error();
  const auto partly = reportScancel(*array, results({{"7067_0", true, ""}, {"7067_1", false, done}}));
  EXPECT_EQ(partly.stderr_text, "scancel: Terminating job 7067\n");
  EXPECT_EQ(partly.exit_code, 0);
  const auto ended = reportScancel(*array, results({{"7067_0", false, done}, {"7067_1", false, done}}));
  EXPECT_EQ(ended.stderr_text, "scancel: Terminating job 7067\nscancel: error: Kill job error on job id 7067: " + done + "\n");
}

// -i as the reference asked (2026-12-03): a prompt per job or step the dry run named, y/Y
// (a line's first character) confirms, n/N declines, anything else asks again; refusals get no
// prompt; at the end of input the rest are declined (the reference asked again for ever).
TEST(ScancelTest, InteractiveConfirmsEachJob) {
  v1::CancelJobsReply would;
  auto add = [&](const std::string& id, const std::string& name, bool ok = true) {
    auto* r = would.add_results();
    r->set_job_id(id);
    r->set_ok(ok);
    r->set_name(name);
    r->set_partition("gpu");
    if (!ok) r->set_error("Invalid job id specified");
  };
  add("7029", "one");
  add("99999", "", false);
  add("7034.0", "stp");
  add("7035_[1-3]", "arr");
  std::istringstream in("x\nyes\nN\nY\n");
  std::ostringstream out;
  EXPECT_EQ(confirmEach(would, in, out), (std::vector<std::string>{"7029", "7035_[1-3]"}));
  EXPECT_EQ(out.str(),
            "Cancel job_id=7029 name=one partition=gpu [y/n]? "
            "Cancel job_id=7029 name=one partition=gpu [y/n]? "
            "Cancel step_id=7034.0 name=stp partition=gpu [y/n]? "
            "Cancel job_id=7035_[1-3] name=arr partition=gpu [y/n]? ");
  std::istringstream ends("y\n");
  std::ostringstream asked;
  EXPECT_EQ(confirmEach(would, ends, asked), (std::vector<std::string>{"7029"}));
  EXPECT_EQ(asked.str(), "Cancel job_id=7029 name=one partition=gpu [y/n]? "
                         "Cancel step_id=7034.0 name=stp partition=gpu [y/n]? \n");
  // Unlike a plain cancel's, the refusals of an interactive call are reported, as the
  // reference's `scancel -i 99999` (exit 1).
  auto cmd = parseScancelArgs({"-i", "7029", "99999"});
  ASSERT_TRUE(cmd.ok()) << cmd.error();
  EXPECT_TRUE(cmd->interactive);
  const auto refused = reportScancel(*cmd, reply("99999", false, "Invalid job id specified"));
  EXPECT_EQ(refused.stderr_text,
            "scancel: error: Kill job error on job id 99999: Invalid job id specified\n");
  EXPECT_EQ(refused.exit_code, 1);
}

}  // namespace
}  // namespace drover::cli
