// sacct's options into the accounting filter (with Slurm's defaults), and the accounting records
// across the wire (accounting.proto) field for field, both ways.
#include "cli/sacct.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "acct/sqlite_store.h"
#include "cli/sacct_filters.h"
#include "common/comma_list.h"
#include "ctld/accounting_query.h"
#include "ctld/acct_wire.h"

namespace drover::cli {
namespace {

using ctld::fromWire;
using ctld::toWire;

constexpr std::int64_t kNow = 1796041745;       // 2026-11-30T12:29:05Z
constexpr std::int64_t kMidnight = 1795996800;  // 2026-11-30T00:00:00Z

class SacctTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
  SacctCommand parse(const std::vector<std::string>& args, std::uint32_t uid = 1001) {
    auto cmd = parseSacctArgs(args, kNow, uid);
    EXPECT_TRUE(cmd.ok()) << cmd.error();
    return cmd.ok() ? *cmd : SacctCommand{};
  }
};

TEST_F(SacctTest, DefaultsAreTodayAndOwnJobs) {
  auto cmd = parse({});
  EXPECT_EQ(cmd.filter.window_start, kMidnight);
  EXPECT_FALSE(cmd.filter.window_end.has_value());
  EXPECT_EQ(cmd.filter.uids, std::vector<std::uint32_t>{1001});
  EXPECT_TRUE(cmd.filter.include_steps);
  ASSERT_EQ(cmd.columns.size(), 7u);
  EXPECT_EQ(cmd.columns[0].field->name, "JobID");
  // Root sees everyone; -a and -u lift the own-jobs default.
  EXPECT_TRUE(parse({}, 0).filter.uids.empty());
  EXPECT_TRUE(parse({"-a"}).filter.uids.empty());
  // -j names jobs: no default user filter (the reference listed another user's job by id).
  EXPECT_TRUE(parse({"-j", "7"}).filter.uids.empty());
  auto users = parse({"-u", "root,1003"});
  EXPECT_EQ(users.filter.users, std::vector<std::string>{"root"});
  EXPECT_EQ(users.filter.uids, std::vector<std::uint32_t>{1003});
}

// -o "": no columns (the reference printed an empty header, an empty dash line and an empty
// line per record), not the default ones.
TEST_F(SacctTest, AnEmptyFormatHasNoColumns) {
  EXPECT_TRUE(parse({"-o", ""}).columns.empty());
  EXPECT_TRUE(parse({"--format="}).columns.empty());
  EXPECT_EQ(parse({"-o", "JobID"}).columns.size(), 1u);
}

TEST_F(SacctTest, JobsStatesWindowsAndOutputModes) {
  auto jobs = parse({"-j", "16,29_3,12.batch", "-X", "--parsable2", "-n",
                     "--format=JobIdRaw,State,ExitCode"});
  ASSERT_EQ(jobs.filter.jobs.size(), 3u);
  EXPECT_EQ(jobs.filter.jobs[1].job_id, 29u);
  EXPECT_EQ(jobs.filter.jobs[1].array_task, 3u);
  EXPECT_EQ(jobs.filter.jobs[2].step_id, acct::kBatchStep);
  EXPECT_FALSE(jobs.filter.window_start.has_value());  // -j: no default window
  EXPECT_FALSE(jobs.filter.include_steps);
  EXPECT_EQ(jobs.render.parsable, acct::report::Parsable::kNoTrailing);
  EXPECT_FALSE(jobs.render.header);
  ASSERT_EQ(jobs.columns.size(), 3u);
  EXPECT_EQ(jobs.columns[0].field->name, "JobIDRaw");

  auto states = parse({"-s", "CD,failed", "-S", "2026-11-30T10:00", "-E", "now", "--name", "a,b",
                       "-N", "node[01-02]", "-r", "gpu", "-A", "research", "-p"});
  EXPECT_EQ(states.filter.states, (std::vector<acct::JobState>{acct::JobState::kCompleted, acct::JobState::kFailed}));
  EXPECT_EQ(states.filter.window_start, kMidnight + 10 * 3600);
  EXPECT_EQ(states.filter.window_end, kNow);
  EXPECT_EQ(states.filter.names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(states.filter.nodes, (std::vector<std::string>{"node01", "node02"}));
  EXPECT_EQ(states.filter.partitions, std::vector<std::string>{"gpu"});
  EXPECT_EQ(states.filter.accounts, std::vector<std::string>{"research"});
  EXPECT_EQ(states.render.parsable, acct::report::Parsable::kTrailing);
  // A time of day is today's, even when it is later than now (then, without -s, the window
  // ends before it starts: refused, below).
  EXPECT_EQ(parse({"-S", "13:00", "-s", "CD"}).filter.window_start, kMidnight + 13 * 3600);
  // -s without -E: the window ends where it starts (sacct(1), DEFAULT TIME WINDOW; the
  // reference's `-S T -s R` listed only the jobs running at T), or now without -S.
  EXPECT_EQ(parse({"-S", "08:00", "-s", "R"}).filter.window_end, kMidnight + 8 * 3600);
  EXPECT_EQ(parse({"-S", "08:00", "-s", "R", "-j", "5"}).filter.window_end, kMidnight + 8 * 3600);
  EXPECT_EQ(parse({"-s", "R"}).filter.window_end, kNow);
  EXPECT_EQ(parse({"-S", "08:00"}).filter.window_start, kMidnight + 8 * 3600);
  // An empty -S or -E is as none, as the reference took it.
  EXPECT_EQ(parse({"-S", "", "-E", ""}).filter.window_start, kMidnight);
  EXPECT_EQ(parse({"-S", "", "-E", ""}).filter.window_end, parse({}).filter.window_end);
  EXPECT_EQ(parse({"-X", "-P", "--delimiter=:"}).render.delimiter, ":");

  EXPECT_EQ(parse({"-b"}).columns.size(), 3u);
  EXPECT_GT(parse({"-l"}).columns.size(), 7u);
}

TEST_F(SacctTest, BadInputIsAnError) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"-s", "NOSTATE"}, {"-j", "abc"}, {"-o", "NoSuchField"}, {"-S", "garbage"}, {"--bogus"}}) {
    EXPECT_FALSE(parseSacctArgs(args, kNow, 1001).ok()) << args[0];
  }
}

TEST_F(SacctTest, BadInputIsWordedAsTheReferenceWordedIt) {
  // tests/e2e/golden/edges/23-29, captured on the reference; the marks choose the prefix
  // (cli_common.h): "sacct: fatal: ...", no prefix at all, or "sacct: error: ...".
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"-s", "bogus"}, "fatal: unrecognized job state value 'bogus'"},
      {{"-j", "abc"}, "fatal: Bad job/step specified: abc"},
      // Which part is wrong, as the reference said it (2026-12-03).
      {{"-j", "abc.0"}, "fatal: Bad job/step specified: abc.0"},
      {{"-j", "12.abc"}, "fatal: Bad step specified: 12"},
      {{"-j", "12."}, "fatal: Bad step specified: 12"},
      {{"-j", "12_1.x"}, "fatal: Bad step specified: 12_1"},
      {{"-j", "12_x"}, "fatal: Bad job array element specified: 12"},
      {{"-S", "garbage"}, "bare: Invalid time specification (pos=0): garbage"},
      {{"-X", "-S", "2030-01-01", "-E", "2020-01-01"},
       "Start time (2030-01-01T00:00:00) requested is after end time (2020-01-01T00:00:00)."},
      {{"-S", "now+1days"}, "Start time (2026-12-01T12:29:05) requested is after end time (2026-11-30T12:29:05)."},
      {{"-o", "JobID,Bogus"}, "Invalid field requested: \"Bogus\""},
  };
  for (const auto& [args, want] : cases) {
    auto cmd = parseSacctArgs(args, kNow, 1001);
    ASSERT_FALSE(cmd.ok()) << args[1];
    EXPECT_EQ(cmd.error(), want);
  }
}

TEST_F(SacctTest, RecordsSurviveTheWireBothWays) {
  acct::JobWithSteps j;
  j.job.job_id = 36;
  j.job.array_job_id = 29;
  j.job.array_task_id = 0;
  j.job.name = "arr";
  j.job.uid = 1001;
  j.job.user = "alice";
  j.job.account = "research";
  j.job.submit = kNow - 10;
  j.job.start = kNow - 5;
  j.job.end = kNow;
  j.job.time_limit_min = 5;
  j.job.state = acct::JobState::kTimeout;
  j.job.cancelled_by = 0;
  j.job.exit = {0, 15};
  j.job.node_list = "node01";
  j.job.req_tres = "billing=1,cpu=1,mem=4000M,node=1";
  j.job.flags = {"CLEAR_SCHEDULING"};
  acct::StepRecord s;
  s.job_id = 36;
  s.step_id = acct::kBatchStep;
  s.name = "batch";
  s.state = acct::JobState::kCancelled;
  s.exit = {0, 15};
  s.usage.user_cpu_usec = 1500;
  s.usage.max_rss_kb = 732;
  s.usage.max_disk_read_mb = 0.5;
  s.usage.tres_usage_in_max = "cpu=00:00:00,mem=732K";
  s.req_cpu_freq_min = 0;
  j.steps.push_back(s);
  j.show_job = false;
  const auto back = fromWire(toWire(j));
  EXPECT_EQ(back.job, j.job);
  ASSERT_EQ(back.steps.size(), 1u);
  EXPECT_EQ(back.steps[0], s);
  EXPECT_FALSE(back.show_job);
  // Unsampled values stay unset (sacct prints them blank, not 0).
  EXPECT_FALSE(back.steps[0].usage.ave_rss_kb.has_value());

  auto cmd = parse({"-j", "29_0.batch", "-s", "TO", "-N", "node01"});
  const auto filter = fromWire(toWire(cmd.filter));
  EXPECT_EQ(filter.jobs, cmd.filter.jobs);
  EXPECT_EQ(filter.states, cmd.filter.states);
  EXPECT_EQ(filter.nodes, cmd.filter.nodes);
  EXPECT_EQ(filter.window_start, cmd.filter.window_start);
  EXPECT_EQ(filter.window_end, cmd.filter.window_end);
  EXPECT_EQ(filter.uids, cmd.filter.uids);
}

// The controller's handler over a real SQLite accounting file: the caller's rights narrow the
// filter, and what comes back converts to the same records sacct formats.
TEST_F(SacctTest, ControllerHandlerAnswersFromARealStore) {
  const std::string path = ::testing::TempDir() + "/sacct_handler_" + std::to_string(::getpid()) + ".db";
  std::remove(path.c_str());
  auto store = acct::SqliteAccountingStore::open(path);
  ASSERT_TRUE(store.ok()) << store.error();
  acct::AcctBatch batch;
  for (std::uint32_t i = 0; i < 3; ++i) {
    acct::JobRecord j;
    j.job_id = 100 + i;
    j.name = "job" + std::to_string(i);
    j.uid = i == 2 ? 1002 : 1001;
    j.user = i == 2 ? "bob" : "alice";
    j.submit = j.eligible = kNow - 100;
    j.start = kNow - 50;
    j.end = kNow - 10;
    j.state = acct::JobState::kCompleted;
    j.account = "research";
    batch.jobs.push_back(j);
  }
  ASSERT_TRUE((*store)->apply(batch).ok());

  v1::QueryAccountingRequest own = toWire(parse({"-X", "-S", "midnight"}, 1001).filter);
  own.clear_uids();  // as if sacct had not added the default: the controller must
  auto reply = ctld::queryAccounting(**store, rpc::Caller{1001, 1001}, own, "drover");
  ASSERT_TRUE(reply.ok()) << reply.error();
  EXPECT_EQ(reply->cluster_name(), "drover");
  ASSERT_EQ(reply->jobs_size(), 2);
  EXPECT_EQ(fromWire(reply->jobs(0)).job.user, "alice");

  v1::QueryAccountingRequest all = own;
  all.set_all_users(true);
  auto everyone = ctld::queryAccounting(**store, rpc::Caller{1001, 1001}, all, "drover");
  ASSERT_TRUE(everyone.ok());
  EXPECT_EQ(everyone->jobs_size(), 3);
  auto root = ctld::queryAccounting(**store, rpc::Caller{0, 0}, own, "drover");
  ASSERT_TRUE(root.ok());
  EXPECT_EQ(root->jobs_size(), 3);
  // Each job's association id, from the tree the controller numbers (bob's is gone: 0).
  auto ids = ctld::queryAccounting(**store, rpc::Caller{0, 0}, own, "drover",
                                   {{{"research", ""}, 3}, {{"research", "alice"}, 4}});
  ASSERT_TRUE(ids.ok());
  ASSERT_EQ(ids->jobs_size(), 3);
  for (const auto& j : ids->jobs()) {
    EXPECT_EQ(fromWire(j).job.assoc_id, fromWire(j).job.user == "alice" ? 4u : 0u);
  }
  std::remove(path.c_str());
}


}  // namespace
}  // namespace drover::cli

namespace drover::cli {
namespace {

// --units and --noconvert, with the reference's values for a --mem=8000 job (2026-12-03).
TEST(SacctUnitsTest, SizesInTheAskedUnit) {
  using namespace acct::report;
  struct Case { char unit; const char* req_mem; const char* tres; };
  const Case cases[] = {{'K', "8192000K", "billing=1,cpu=1,mem=8192000K,node=1"},
                        {'M', "8000M", "billing=1,cpu=1,mem=8000M,node=1"},
                        {'G', "7.81G", "billing=1,cpu=1,mem=7.81G,node=1"},
                        {'T', "0.01T", "billing=1,cpu=1,mem=0.01T,node=1"},
                        {'P', "0.00P", "billing=1,cpu=1,mem=0.00P,node=1"}};
  for (const auto& c : cases) {
    setSizeUnits({c.unit, false});
    EXPECT_EQ(formatMemoryRequestMb(8000), c.req_mem) << c.unit;
    EXPECT_EQ(convertTresSizes("billing=1,cpu=1,mem=8000M,node=1"), c.tres) << c.unit;
  }
  setSizeUnits({'G', false});
  EXPECT_EQ(formatUsageSizeKb(4240), "0.00G");
  setSizeUnits({0, true});
  EXPECT_EQ(formatUsageSizeKb(804), "823296");  // bytes, no unit
  EXPECT_EQ(formatMemoryRequestMb(1024), "1024M");
  EXPECT_EQ(convertTresSizes("cpu=1,mem=1G"), "cpu=1,mem=1024M");
  setSizeUnits({});
  EXPECT_EQ(formatMemoryRequestMb(1024), "1G");
  EXPECT_EQ(convertTresSizes("cpu=1,mem=1G"), "cpu=1,mem=1G");
  // Without either option, as the reference printed --mem=1536 and --mem=1G -N2 (2026-12-03):
  // the controller records MB, sacct shows Slurm's TRES memory.
  EXPECT_EQ(formatMemoryRequestMb(1536), "1.50G");
  EXPECT_EQ(convertTresSizes("billing=1,cpu=1,mem=1536M,node=1"), "billing=1,cpu=1,mem=1.50G,node=1");
  EXPECT_EQ(convertTresSizes("billing=2,cpu=2,mem=2048M,node=2"), "billing=2,cpu=2,mem=2G,node=2");
  EXPECT_EQ(convertTresSizes("billing=2,cpu=2,mem=2000M,node=2"), "billing=2,cpu=2,mem=2000M,node=2");

  EXPECT_EQ(*parseSizeUnit("mb"), 'M');
  EXPECT_FALSE(parseSizeUnit("X").ok());
  auto bad = parseSacctArgs({"--units=X"}, 0, 1001);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "bare: sacct: error: Invalid unit type 'X'. Possible options are 'KMGTP'\n"
                         "sacct: fatal: Invalid unit type");
  EXPECT_EQ(parseSacctArgs({"--units=g"}, 0, 1001)->sizes.unit, 'G');
  EXPECT_TRUE(parseSacctArgs({"--noconvert"}, 0, 1001)->sizes.no_convert);
}


}  // namespace
}  // namespace drover::cli

namespace drover::cli {
namespace {

// -q -i -I -k -K -R -W -C -g -L: the selectors the accounting query does not take, applied to
// the records it returned; their errors as the reference printed them.
TEST(SacctRecordFilterTest, SelectorsAndTheirErrors) {
  acct::JobRecord job;
  job.qos = "normal";
  job.nnodes = 2;
  job.ncpus = 8;
  job.time_limit_min = 60;
  job.reason = "None";
  job.constraints = "a100&ib";
  auto keeps = [&](std::vector<std::string> args) {
    auto cmd = parseSacctArgs(args, 0, 1001);
    EXPECT_TRUE(cmd.ok()) << cmd.error();
    return cmd.ok() && cmd->records.keeps(job);
  };
  EXPECT_TRUE(keeps({"-q", "NORMAL"}));
  EXPECT_TRUE(keeps({"-i", "2"}));
  EXPECT_TRUE(keeps({"--nnodes=1-4"}));
  EXPECT_FALSE(keeps({"-i", "3-8"}));
  EXPECT_TRUE(keeps({"-I", "8"}));
  EXPECT_FALSE(keeps({"--ncpus=1-4"}));
  EXPECT_TRUE(keeps({"-k", "60"}));
  EXPECT_FALSE(keeps({"-k", "30"}));
  EXPECT_TRUE(keeps({"-k", "30", "-K", "1:00:00"}));
  EXPECT_TRUE(keeps({"-K", "10"}));  // ignored by itself (sacct(1))
  EXPECT_TRUE(keeps({"-C", "ib"}));
  EXPECT_FALSE(keeps({"--constraints=a10"}));
  EXPECT_FALSE(keeps({"-W", "proj"}));
  EXPECT_TRUE(keeps({"-L", "--use-local-uid", "--whole-hetjob=yes"}));
  EXPECT_EQ(parseSacctArgs({"-g", "0"}, 0, 1001)->filter.gids, std::vector<std::uint32_t>{0});

  auto error = [](std::vector<std::string> args) {
    auto cmd = parseSacctArgs(args, 0, 1001);
    return cmd.ok() ? std::string("(ok)") : cmd.error();
  };
  // -q is checked against cluster.conf's QOS table (checkSacctQos), in any case; names kept
  // as the table spells them.
  auto checked = [](std::vector<std::string> args, std::vector<std::string> table) {
    auto cmd = parseSacctArgs(args, 0, 1001);
    config::ClusterConfig config;
    for (const std::string& name : table) {
      config::QosConfig q;
      q.name = name;
      config.qos.push_back(q);
    }
    auto s = checkSacctQos(*cmd, config);
    return s.ok() ? joinCommas(cmd->records.qos) : s.error();
  };
  EXPECT_EQ(checked({"-q", "high"}, {}), "bare: sacct: error: You gave a bad qos 'high'. Valid QOS's "
                                         "are normal\nsacct: fatal: problem processing qos list");
  EXPECT_EQ(checked({"-q", "NORMAL,High"}, {"high", "low"}), "normal,high");
  EXPECT_EQ(checked({"-q", "normal,bogus"}, {"high", "low"}),
            "bare: sacct: error: You gave a bad qos 'bogus'. Valid QOS's are normal,high,low\n"
            "sacct: fatal: problem processing qos list");
  EXPECT_EQ(error({"-i", "x"}), "Invalid numeric value \"x\" for requested node range.");
  EXPECT_EQ(error({"-I", "x"}), "Invalid numeric value \"x\" for requested cpu range.");
  EXPECT_EQ(error({"-k", "x"}), "fatal: Invalid time limit specification");
  // Names are the controller's to look up (resolveAccountingNames), numbers are ids; an id too
  // large for a uid or gid is no id but a name (std::stoul once threw here: a crash), which no
  // one has.
  auto parsed = parseSacctArgs({"-u", "nosuchuser0,1002,99999999999999999999", "-g",
                                "no-such-group-drover,7,99999999999999999999"}, 0, 1001);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->filter.users, (std::vector<std::string>{"nosuchuser0", "99999999999999999999"}));
  EXPECT_EQ(parsed->filter.uids, std::vector<std::uint32_t>{1002});
  EXPECT_EQ(parsed->group_names, (std::vector<std::string>{"no-such-group-drover", "99999999999999999999"}));
  EXPECT_EQ(parsed->filter.gids, std::vector<std::uint32_t>{7});
  // States as the reference took them: CG and SE are no accounted states; RS and RV are, and
  // select nothing here (no Drover job enters them).
  EXPECT_EQ(error({"-s", "CG"}), "fatal: job state CG is not supported / accounted");
  EXPECT_EQ(error({"-s", "completing"}), "fatal: job state completing is not supported / accounted");
  EXPECT_EQ(error({"-s", "SE"}), "fatal: job state SE is not supported / accounted");
  EXPECT_FALSE(keeps({"-s", "RS,revoked"}));
  EXPECT_TRUE(keeps({"-s", "RS,PD"}));
}

// -F/--flags as the reference took it (checked 2026-12-03): the flag names in any case, a job
// kept when it has any of them, an empty list keeping nothing, another word refused.
TEST(SacctRecordFilterTest, FlagsSelectByTheSchedulingPath) {
  acct::JobRecord job;
  job.flags = {"SchedBackfill", "StartRecieved"};
  auto keeps = [&](std::vector<std::string> args) {
    auto cmd = parseSacctArgs(args, 0, 1001);
    EXPECT_TRUE(cmd.ok()) << cmd.error();
    return cmd.ok() && cmd->records.keeps(job);
  };
  EXPECT_TRUE(keeps({"-F", "SchedBackfill"}));
  EXPECT_TRUE(keeps({"--flags=schedmain,SCHEDBACKFILL"}));
  EXPECT_TRUE(keeps({"-F", "StartRecieved"}));
  EXPECT_TRUE(keeps({"-F", "SchedBackfill,"}));
  EXPECT_FALSE(keeps({"-F", "SchedMain"}));
  EXPECT_FALSE(keeps({"-F", ""}));
  job.assoc_id = 4;
  EXPECT_TRUE(keeps({"-x", "3,4"}));
  EXPECT_TRUE(keeps({"--associations=4"}));
  EXPECT_FALSE(keeps({"-x", "3"}));
  EXPECT_FALSE(keeps({"-x", "abc"}));  // the reference: nothing, exit 0
  // Job completion data, which Drover keeps none of, as the reference without JobCompType.
  for (std::vector<std::string> args : {std::vector<std::string>{"-c"}, {"--completion", "-X"},
                                        {"-f", "/etc/hostname"}}) {
    auto cmd = parseSacctArgs(args, 0, 1001);
    ASSERT_FALSE(cmd.ok());
    EXPECT_EQ(cmd.error(), "bare: Slurm job completion is disabled");
  }
  EXPECT_EQ(parseSacctArgs({"--file=/no/such/file"}, 0, 1001).error(),
            "bare: /no/such/file is not a valid file");
  for (const char* word : {"bogus", "Sched", "startreceived"}) {
    auto cmd = parseSacctArgs({"-F", std::string("SchedMain,") + word}, 0, 1001);
    ASSERT_FALSE(cmd.ok()) << word;
    EXPECT_EQ(cmd.error(), std::string("str_2_job_flags: Invalid job flag ") + word);
  }
}

// -T as the reference cut job 7040 (03:24:58-03:26:14) to -S 03:25:30 -E 03:25:45: start and
// end at the window's edges, so Elapsed is 15 s, its step's too; a running job's end is the
// window's end (now without -E); a job that never started keeps no start.
TEST(SacctTruncateTest, StartAndEndCutToTheWindow) {
  auto cmd = parseSacctArgs({"-T", "-j", "7040"}, 0, 1001);
  ASSERT_TRUE(cmd.ok()) << cmd.error();
  EXPECT_TRUE(cmd->truncate);
  EXPECT_FALSE(parseSacctArgs({"-j", "7040"}, 0, 1001)->truncate);

  acct::JobWithSteps done;
  done.job.start = 1000;
  done.job.end = 1076;
  done.steps.emplace_back();
  done.steps.back().start = 1000;
  done.steps.back().end = 1076;
  truncateToWindow(done, 1032, 1047);
  EXPECT_EQ(std::make_pair(done.job.start, done.job.end), std::make_pair(std::int64_t{1032}, std::int64_t{1047}));
  EXPECT_EQ(std::make_pair(done.steps[0].start, done.steps[0].end), std::make_pair(std::int64_t{1032}, std::int64_t{1047}));

  acct::JobWithSteps running;
  running.job.start = 1000;
  truncateToWindow(running, std::nullopt, 1500);
  EXPECT_EQ(std::make_pair(running.job.start, running.job.end), std::make_pair(std::int64_t{1000}, std::int64_t{1500}));

  acct::JobWithSteps pending;
  truncateToWindow(pending, 1032, 1047);
  EXPECT_EQ(std::make_pair(pending.job.start, pending.job.end), std::make_pair(std::int64_t{0}, std::int64_t{0}));
}

// sacct -B / --env-vars blocks as the reference printed them (AccountingStoreFlags set, and
// NONE for a job whose script was not kept).
TEST(SacctKeptSubmissionTest, BlocksAsTheReference) {
  acct::JobWithSteps kept;
  kept.job.job_id = 7075;
  kept.batch_script = "#!/bin/bash\n#SBATCH -J scripted\necho hello\n";
  kept.environment = "A=1\nSLURM_UMASK=0022\n";
  acct::JobWithSteps task;
  task.job.job_id = 7080;
  task.job.array_job_id = 7077;
  task.job.array_task_id = 3;
  const std::string dashes(80, '-');
  EXPECT_EQ(acct::report::renderKeptSubmission({kept, task}, true),
            "Batch Script for 7075\n" + dashes + "\n#!/bin/bash\n#SBATCH -J scripted\necho hello\n\n" +
                "Batch Script for 7077_3\n" + dashes + "\nNONE\n\n");
  EXPECT_EQ(acct::report::renderKeptSubmission({kept}, false),
            "Environment used for 7075 (must be batch to display)\n" + dashes + "\nA=1\nSLURM_UMASK=0022\n\n");
  EXPECT_FALSE(parseSacctArgs({"-B"}, 0, 1001).ok());
  EXPECT_FALSE(parseSacctArgs({"-B", "--env-vars", "-j", "5"}, 0, 1001).ok());
  EXPECT_TRUE(parseSacctArgs({"--env-vars", "-j", "5"}, 0, 1001)->env_vars);
}

}  // namespace
}  // namespace drover::cli
