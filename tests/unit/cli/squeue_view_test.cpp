// squeue's views against Slurm's captured outputs (golden 068-079), byte for byte, from the
// reference cluster's jobs (job_fixture.h) and the capture time of each golden.
#include "cli/format_spec.h"
#include "cli/squeue_view.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>

#include "cli/cli_common.h"
#include "cli/squeue.h"
#include "job_fixture.h"
#include "reference_cluster.h"

namespace drover::cli {
namespace {

using testing::goldenNow;
using testing::goldenStdout;
using testing::referenceJobs;

class SqueueViewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
  std::string render(const std::vector<std::string>& args, const std::string& golden,
                     std::vector<v1::JobInfo> jobs = referenceJobs(), std::int64_t skew = 0) {
    auto cmd = parseSqueueArgs(args);
    EXPECT_TRUE(cmd.ok()) << cmd.error();
    if (!cmd.ok()) return "";
    auto text = renderSqueue(cmd->options, std::move(jobs), goldenNow(golden) + skew);
    EXPECT_TRUE(text.ok()) << text.error();
    return text.ok() ? *text : "";
  }
  void expectGolden(const std::vector<std::string>& args, const std::string& golden) {
    EXPECT_EQ(render(args, golden), goldenStdout(golden)) << golden;
  }
};

TEST_F(SqueueViewTest, DefaultViewMatchesGolden068) { expectGolden({}, "068-squeue-default.txt"); }

TEST_F(SqueueViewTest, FormatCodesMatchGolden070And071) {
  expectGolden({"-o", "%.18i %.9P %.8j %.8u %.2t %.10M %.10l %.6D %.4C %.8m %b %.10Q %R"},
               "070-squeue-o-format.txt");
  expectGolden({"-o", "%i|%A|%F|%K|%j|%u|%a|%P|%T|%t|%r|%S|%V|%e|%L|%N|%D|%c|%C|%Z|%o"},
               "071-squeue-o-format2.txt");
}

TEST_F(SqueueViewTest, LongFieldsMatchGolden072) {
  // This capture's date line is one second after the moment squeue read the jobs.
  EXPECT_EQ(render({"-O", "JobID,Partition,Name,UserName,State,TimeUsed,TimeLimit,NumNodes,NumCPUs,tres-per-node,Reason"},
                   "072-squeue-O-format.txt", referenceJobs(), -1),
            goldenStdout("072-squeue-O-format.txt"));
}

TEST_F(SqueueViewTest, NoHeaderAndStateFilterMatchGolden074) {
  expectGolden({"-h", "-t", "PD"}, "074-squeue-h-t-PD.txt");
}

TEST_F(SqueueViewTest, ArrayExpansionMatchesGolden075) { expectGolden({"-r"}, "075-squeue-r.txt"); }

TEST_F(SqueueViewTest, UserFilterMatchesGolden076) { expectGolden({"-u", "alice"}, "076-squeue-u.txt"); }

TEST_F(SqueueViewTest, LongViewWithDateLineMatchesGolden077) { expectGolden({"-l"}, "077-squeue-l.txt"); }

TEST_F(SqueueViewTest, StartViewMatchesGolden078) { expectGolden({"--start"}, "078-squeue-start.txt"); }

TEST_F(SqueueViewTest, DateLineGoesWithTheHeaderOfLongAndIteratedReports) {
  // As Slurm 22.05's squeue does (checked against the reference cluster): -l and -i start each
  // report with the date line above the header, whatever the format; -h drops both.
  const std::string golden = "068-squeue-default.txt";
  const std::string date = dateLine(goldenNow(golden)) + "\n";
  auto startsWithDate = [&](const std::vector<std::string>& args) {
    return render(args, golden).rfind(date, 0) == 0;
  };
  EXPECT_TRUE(startsWithDate({"-l"}));
  EXPECT_TRUE(startsWithDate({"-i", "5"}));
  EXPECT_TRUE(startsWithDate({"-i", "5", "-o", "%i"}));
  EXPECT_TRUE(startsWithDate({"-l", "-O", "JobID"}));
  EXPECT_FALSE(startsWithDate({"-l", "-h"}));
  EXPECT_FALSE(startsWithDate({"-i", "5", "-h"}));
  EXPECT_FALSE(startsWithDate({}));
  EXPECT_EQ(render({"-i", "5"}, golden), date + goldenStdout(golden));
}

TEST_F(SqueueViewTest, FormatOptionsConflictAsSlurmsDo) {
  // As the reference Slurm 22.05: -o with -l, and -o with -O, on one command line are errors;
  // -O with -l is a long report in -O's columns.
  auto with_long = parseSqueueArgs({"-o", "%i", "-l"});
  ASSERT_FALSE(with_long.ok());
  EXPECT_EQ(with_long.error(), kFormatWithLong);
  auto with_o2 = parseSqueueArgs({"-O", "JobID", "-o", "%i"});
  ASSERT_FALSE(with_o2.ok());
  EXPECT_EQ(with_o2.error(), "-o (--format) is incompatible with -O (--Format)");
  EXPECT_TRUE(parseSqueueArgs({"-O", "JobID", "-l"}).ok());
}

// Slurm's long option is --partitions; --partition, its abbreviation, still selects, and a
// missing value is named as getopt named it there.
TEST_F(SqueueViewTest, PartitionOptionIsSlurmsPartitions) {
  for (const char* word : {"--partitions=gpu,debug", "--partition=gpu,debug"}) {
    auto cmd = parseSqueueArgs({word});
    ASSERT_TRUE(cmd.ok()) << word;
    EXPECT_EQ(cmd->options.partitions, (std::vector<std::string>{"gpu", "debug"})) << word;
  }
  EXPECT_EQ(parseSqueueArgs({"--par"}).error(),
            "bare: squeue: option '--partitions' requires an argument\n"
            "Try \"squeue --help\" for more information");
}

TEST_F(SqueueViewTest, EnvironmentFormatsGiveWayToTheCommandLineAndToLong) {
  setenv("SQUEUE_FORMAT", "%i %j", 1);
  setenv("SQUEUE_FORMAT2", "JobID", 1);
  auto apply = [](const std::vector<std::string>& args) {
    auto cmd = parseSqueueArgs(args);
    EXPECT_TRUE(cmd.ok()) << cmd.error();
    applyEnvironmentFormats(cmd->options);
    return cmd->options;
  };
  const SqueueOptions plain = apply({});
  EXPECT_EQ(plain.format, "%i %j");
  EXPECT_EQ(plain.format_long, "JobID");
  const SqueueOptions line = apply({"-o", "%u"});
  EXPECT_EQ(line.format, "%u");
  EXPECT_EQ(line.format_long, "");
  const SqueueOptions long_view = apply({"-l"});   // Slurm: the long report, not an error
  EXPECT_EQ(long_view.format, "");
  EXPECT_EQ(long_view.format_long, "");
  unsetenv("SQUEUE_FORMAT");
  unsetenv("SQUEUE_FORMAT2");
}

TEST_F(SqueueViewTest, IterateTakesSecondsFromOneAsSlurmReadsThem) {
  auto short_form = parseSqueueArgs({"-i", "5"});
  ASSERT_TRUE(short_form.ok()) << short_form.error();
  EXPECT_EQ(short_form->options.iterate_s, 5);
  auto long_form = parseSqueueArgs({"--iterate=2"});
  ASSERT_TRUE(long_form.ok()) << long_form.error();
  EXPECT_EQ(long_form->options.iterate_s, 2);
  auto leading = parseSqueueArgs({"-i", "1.5"});   // atoi's reading, as Slurm's squeue
  ASSERT_TRUE(leading.ok()) << leading.error();
  EXPECT_EQ(leading->options.iterate_s, 1);
  for (const std::string bad : {"0", "-5", "abc", "", "99999999999"}) {
    auto parsed = parseSqueueArgs({"--iterate=" + bad});
    EXPECT_FALSE(parsed.ok()) << bad;
    if (!parsed.ok()) {
      EXPECT_NE(parsed.error().find("--iterate=" + bad + ":"), std::string::npos);
    }
  }
}

TEST_F(SqueueViewTest, ArrayJobIdSelectsRemainderAndTasksGolden079) {
  // Slurm's controller listed task 1 before task 0 for this query; the sort keeps that order.
  auto all = referenceJobs();
  std::vector<v1::JobInfo> jobs = {all[3], all[9], all[8]};
  EXPECT_EQ(render({"-j", "29"}, "079-squeue-array-job.txt", jobs),
            goldenStdout("079-squeue-array-job.txt"));
  // And the id filter picks the same three out of every job.
  auto cmd = parseSqueueArgs({"-j", "29"});
  ASSERT_TRUE(cmd.ok());
  auto selected = selectSqueueJobs(cmd->options, referenceJobs());
  ASSERT_TRUE(selected.ok());
  EXPECT_EQ(selected->size(), 3u);
}

TEST_F(SqueueViewTest, JsonHasMetaAndOneEntryPerJob) {
  auto text = render({"--json"}, "073-squeue-json.txt");
  EXPECT_NE(text.find("\"release\": \"22.05.8\""), std::string::npos) << text.substr(0, 400);
  std::size_t count = 0;
  for (auto p = text.find("\"job_id\""); p != std::string::npos; p = text.find("\"job_id\"", p + 1)) ++count;
  EXPECT_EQ(count, referenceJobs().size());
}

// The jobs of tests/e2e/golden/edges (captured on the reference): a running job and a pending
// one held (priority 0, JobHeldUser), a failed one, one cancelled while held, one to begin later.
std::vector<v1::JobInfo> edgeJobs() {
  using testing::JobBuilder;
  std::vector<v1::JobInfo> jobs = {
      JobBuilder(25, "runner").running("node01", "node01").priority(10232).build(),
      JobBuilder(26, "heldjob").pending("JobHeldUser").priority(10232).build(),
      JobBuilder(27, "failer").state(v1::JOB_FAILED).priority(10232).build(),
      JobBuilder(28, "pdcanc").state(v1::JOB_CANCELLED, "JobHeldUser").priority(10232).build(),
      JobBuilder(29, "later").pending("BeginTime").priority(10232).build(),
  };
  jobs[1].set_held_user(true);
  jobs[2].set_exit_code(2);
  jobs[2].set_nodes("node01");
  jobs[3].set_held_user(true);
  return jobs;
}

TEST_F(SqueueViewTest, StatesSortByNameAndFailedJobsShowWhy) {
  // edges/05: CA, F, PD, R by name; the held job (priority 0) last of the pending ones; a
  // failed job's reason in place of its nodes, nothing for the job cancelled while it waited.
  EXPECT_EQ(render({"-t", "all", "-o", "%.8i %.10j %.2t %R"}, "068-squeue-default.txt", edgeJobs()),
            "   JOBID       NAME ST NODELIST(REASON)\n"
            "      28     pdcanc CA \n"
            "      27     failer  F (NonZeroExitCode)\n"
            "      29      later PD (BeginTime)\n"
            "      26    heldjob PD (JobHeldUser)\n"
            "      25     runner  R node01\n");
}

TEST_F(SqueueViewTest, HeldRunningJobShowsPriorityZeroAndItsReason) {
  auto jobs = edgeJobs();
  jobs[0].set_held_user(true);  // edges/07: scontrol hold of the running job
  EXPECT_EQ(render({"-j", "25", "-o", "%i %T %r %Q"}, "068-squeue-default.txt", jobs),
            "JOBID STATE REASON PRIORITY\n25 RUNNING JobHeldUser 0\n");
  // -O Priority is the normalized one, as the reference printed 10232 (diff run, 07:32 UTC);
  // PriorityLong the integer.
  EXPECT_EQ(render({"-j", "29", "-O", "Priority,PriorityLong"}, "068-squeue-default.txt", jobs),
            "PRIORITY            PRIORITY            \n0.00000238232315    10232               \n");
}

// After `scontrol requeuehold` the reference's squeue showed the description (%R, -O Reason)
// where scontrol showed it with '_' and accounting the code; --json has both.
TEST_F(SqueueViewTest, RequeuedHeldJobShowsTheDescription) {
  auto jobs = edgeJobs();
  jobs[1].set_reason_description("job requeued in held state");
  jobs[1].mutable_spec()->set_begin_time(1764686920);  // the end of its requeue wait
  EXPECT_EQ(render({"-j", "26", "-o", "%i %R"}, "068-squeue-default.txt", jobs),
            "JOBID NODELIST(REASON)\n26 (job requeued in held state)\n");
  EXPECT_EQ(render({"-j", "26", "-O", "JobID:6,Reason:30"}, "068-squeue-default.txt", jobs),
            "JOBID REASON                        \n26    job requeued in held state    \n");
  const auto doc = nlohmann::json::parse(render({"-j", "26", "--json"}, "068-squeue-default.txt", jobs));
  ASSERT_EQ(doc["jobs"].size(), 1u);
  EXPECT_EQ(doc["jobs"][0]["state_description"], "job requeued in held state");
  EXPECT_EQ(doc["jobs"][0]["state_reason"], "JobHeldUser");
  // Not eligible yet: eligible and accrue times are the --begin it waits for, as scontrol's.
  EXPECT_EQ(doc["jobs"][0]["eligible_time"], 1764686920);
  EXPECT_EQ(doc["jobs"][0]["accrue_time"], 1764686920);
}

TEST_F(SqueueViewTest, SortByJobIdKeepsAnArraysTasksTogether) {
  // The reference's `squeue -S -i` (differential run, 2026-12-02): the array's waiting
  // remainder and its started tasks (own ids 4, 5) under the array's id 3, by task.
  using testing::JobBuilder;
  std::vector<v1::JobInfo> jobs = {
      JobBuilder(2, "heldjob").pending("JobHeldUser").build(),
      JobBuilder(3, "arr").pending("JobArrayTaskLimit").array(3, -1, "2-7%2").build(),
      JobBuilder(4, "arr").running("node01", "node01").array(3, 0).build(),
      JobBuilder(5, "arr").running("node01", "node01").array(3, 1).build(),
      JobBuilder(6, "depjob").pending("Dependency").build(),
  };
  EXPECT_EQ(render({"-S", "-i", "-o", "%.8i %.10j"}, "068-squeue-default.txt", jobs),
            "   JOBID       NAME\n       6     depjob\n3_[2-7%2        arr\n     3_1        arr\n"
            "     3_0        arr\n       2    heldjob\n");
}

// Letters for requests Drover's jobs cannot make print what the reference printed for a job
// that made none (a held job, 2026-12-03), headers included.
TEST_F(SqueueViewTest, LettersForRequestsDroverDoesNotTake) {
  using testing::JobBuilder;
  std::vector<v1::JobInfo> jobs = {JobBuilder(7, "held").pending("JobHeldUser").build()};
  EXPECT_EQ(render({"-o", "%z|%O|%w|%W|%X|%H|%J|%d|%I"}, "068-squeue-default.txt", jobs),
            "S:C:T|CONTIGUOUS|WCKEY|LICENSES|CORE_SPEC|SOCKETS_PER_NODE|THREADS_PER_CORE|"
            "MIN_TMP_DISK|CORES_PER_SOCKET\n*:*:*|0|(null)|(null)|N/A|*|*|0|*\n");
  EXPECT_EQ(render({"-o", "%.3z|%10O|"}, "068-squeue-default.txt", jobs), "S:C|CONTIGUOUS|\n*:*|0         |\n");
}

// -O fields without an -o letter, against the reference's held job (2026-12-03: sbatch -H -N 1
// -n 2 -c 2 --mem=100M --gres=gpu:1 -t 10:00 -o /tmp/o_%j.out -e /tmp/e_%j.err --requeue
// --begin=now+1hour, 15 s before the squeue) and its running one (sbatch -N 1 -n 1 -t 5:00).
TEST_F(SqueueViewTest, LongFieldsWithoutALetterAsTheReferencePrintedThem) {
  using testing::JobBuilder;
  const std::int64_t submit = 1796040000;
  v1::JobInfo held = JobBuilder(7039, "pend").workDir("/tmp").pending("JobHeldUser")
                         .times(submit, 0, 0).size(1, 4, 2).gpusPerNode(1).build();
  held.set_held_user(true);
  auto* spec = held.mutable_spec();
  spec->set_min_nodes(1);
  spec->set_max_nodes(1);
  spec->set_ntasks(2);
  spec->set_cpus_per_task(2);
  spec->set_begin_time(submit + 3600);
  spec->set_std_out("/tmp/o_%j.out");
  spec->set_std_err("/tmp/e_%j.err");
  v1::JobInfo running = JobBuilder(7040, "run").workDir("/tmp").running("node01", "node01")
                            .times(submit, submit + 1, submit + 301).eligible(submit).build();
  running.mutable_spec()->set_min_nodes(1);
  const std::vector<v1::JobInfo> jobs = {held, running};
  auto rows = [&](const std::string& fields) {
    auto cmd = parseSqueueArgs({"-S", "i", "-O", fields});
    EXPECT_TRUE(cmd.ok()) << cmd.error();
    auto text = renderSqueue(cmd->options, jobs, submit + 15);
    EXPECT_TRUE(text.ok()) << text.error();
    return text.ok() ? *text : "";
  };
  EXPECT_EQ(rows("AccrueTime,EligibleTime,STDOUT,STDERR,STDIN"),
            "ACCRUE_TIME         ELIGIBLE_TIME       STDOUT              STDERR              STDIN               \n"
            "2026-11-30T13:00:00 2026-11-30T13:00:00 /tmp/o_%j.out       /tmp/e_%j.err       /dev/null           \n"
            "2026-11-30T12:00:00 2026-11-30T12:00:00 /tmp/slurm-7040.out /tmp/slurm-7040.out /dev/null           \n");
  EXPECT_EQ(rows("NumTasks:6,Requeue:8,RestartCnt:14,MaxNodes:10,MaxCPUs:9,MinTime:9,PendingTime:13,"
                 "cpus-per-task:14,BatchFlag:11,Reboot:7,NTPerNode:16,AllocNodes:12"),
            "TASKS REQUEUE RESTART_COUNT MAX_NODES MAX_CPUS TIME_MIN PENDING_TIME CPUS_PER_TASK "
            "BATCH_FLAG REBOOT NTASKS_PER_NODE ALLOC_NODES \n"
            "2     1       0             1         4        0:00     15           2             "
            "1          0      0               localhost   \n"
            "1     1       0             1         1        0:00     1            1             "
            "1          0      0               localhost   \n");
  EXPECT_EQ(rows("tres-per-node:14,tres-per-job:13,tres-per-task:14,exit_code:10,DerivedEC:11"),
            "TRES_PER_NODE TRES_PER_JOB TRES_PER_TASK EXIT_CODE DERIVED_EC \n"
            "gres:gpu:1    N/A          N/A           0         0          \n"
            "N/A           N/A          N/A           0         0          \n");
  // Requests Drover has no notion of: the reference's header and value (its header's typo too).
  EXPECT_EQ(rows("BurstBuffer:13,Profile:8,SiblingsViableRaw,Wait4Switch:12,SelectJobInfo:3,JobID:5"),
            "BURST_BUFFER PROFILE VIALBLE_SIBLINGS_RAWWAIT4SWITCH    JOBID\n"
            "(null)       NotSet  NA                  0:00           7039 \n"
            "(null)       NotSet  NA                  0:00           7040 \n");
}

// The exit_code field is the wait status: the reference printed 768 for `exit 3`, 9 for SIGKILL.
TEST_F(SqueueViewTest, ExitCodeFieldIsTheWaitStatus) {
  using testing::JobBuilder;
  v1::JobInfo three = JobBuilder(7053, "wrap").state(v1::JOB_FAILED, "NonZeroExitCode").build();
  three.set_exit_code(3);
  v1::JobInfo killed = JobBuilder(7054, "wrap").state(v1::JOB_FAILED, "NonZeroExitCode").build();
  killed.set_exit_signal(9);
  auto cmd = parseSqueueArgs({"-t", "all", "-h", "-O", "JobID:5,exit_code:4"});
  ASSERT_TRUE(cmd.ok()) << cmd.error();
  auto text = renderSqueue(cmd->options, {three, killed}, 0);
  ASSERT_TRUE(text.ok()) << text.error();
  EXPECT_EQ(*text, "7053 768 \n7054 9   \n");
}

// An unknown -O name: the reference printed the known columns and warned (exit 0).
TEST_F(SqueueViewTest, AnUnknownLongFieldIsLeftOutWithAWarning) {
  auto cmd = parseSqueueArgs({"-O", "JobID,Bogus,Name:5"});
  ASSERT_TRUE(cmd.ok()) << cmd.error();
  EXPECT_EQ(squeueFormatWarnings(cmd->options),
            std::vector<std::string>{"Invalid job format specification: Bogus"});
  auto text = renderSqueue(cmd->options, {testing::JobBuilder(2, "wrap").running("node03", "node03").build()}, 0);
  ASSERT_TRUE(text.ok()) << text.error();
  EXPECT_EQ(*text, "JOBID               NAME \n2                   wrap \n");
}

// -S as the reference checked it: each character a key, read from the last; 'b' warned about.
TEST_F(SqueueViewTest, SortKeysAreCheckedCharacterByCharacterFromTheLast) {
  std::vector<std::string> warnings;
  EXPECT_EQ(invalidSortKey("bogus", &warnings), 's');
  EXPECT_EQ(invalidSortKey("ks", &warnings), 's');
  EXPECT_EQ(invalidSortKey("-x", &warnings), 'x');
  EXPECT_EQ(invalidSortKey("i j", &warnings), ' ');
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(invalidSortKey("P,t,-p", &warnings), std::nullopt);
  EXPECT_EQ(invalidSortKey("i,zz", &warnings), std::nullopt);
  EXPECT_EQ(invalidSortKey("b,i", &warnings), std::nullopt);
  EXPECT_EQ(warnings, std::vector<std::string>{"Invalid sort specification: b"});
}

// An -o field that is no field: printed as written, and named in a warning (exit 0).
TEST_F(SqueueViewTest, AnInvalidFormatFieldIsPrintedAsWritten) {
  auto cmd = parseSqueueArgs({"-o", "%.8i %a %!"});
  ASSERT_TRUE(cmd.ok()) << cmd.error();
  EXPECT_EQ(squeueFormatWarnings(cmd->options),
            std::vector<std::string>{"Invalid job format specification: !"});
  auto text = renderSqueue(cmd->options, {testing::JobBuilder(7039, "pend").pending("JobHeldUser").build()}, 0);
  ASSERT_TRUE(text.ok()) << text.error();
  EXPECT_EQ(*text, "   JOBID ACCOUNT %!\n    7039 research %!\n");
}

// -q, -L and -R as the reference took them: QOS names in any case (`-q NORMAL`), an unknown one
// or a license (no job asks for one) matching nothing, exit 0; -R the jobs of one reservation.
TEST_F(SqueueViewTest, QosLicenseAndReservationFilters) {
  std::vector<v1::JobInfo> jobs = {testing::JobBuilder(7098, "held").pending("JobHeldUser").build()};
  jobs[0].mutable_spec()->set_reservation("maint");
  const std::string header = "JOBID QOS\n";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"-q", "normal"}, header + "7098 normal\n"},
      {{"-q", "NORMAL"}, header + "7098 normal\n"},
      {{"--qos=bogus,normal"}, header + "7098 normal\n"},
      {{"-q", "bogus"}, header},
      {{"-L", "foo"}, header},
      {{"--licenses=foo"}, header},
      {{"-R", "maint"}, header + "7098 normal\n"},
      {{"--reservation=other"}, header},
  };
  for (const auto& [args, want] : cases) {
    std::vector<std::string> all = args;
    all.insert(all.end(), {"-o", "%i %q"});
    auto cmd = parseSqueueArgs(all);
    ASSERT_TRUE(cmd.ok()) << cmd.error();
    auto text = renderSqueue(cmd->options, jobs, 0);
    ASSERT_TRUE(text.ok()) << text.error();
    EXPECT_EQ(*text, want) << args[0];
  }
}

TEST_F(SqueueViewTest, BadOptionsAreErrors) {
  struct Case {
    std::vector<std::string> args;
    std::string message_part;
  };
  const std::vector<Case> cases = {
      {{"--bogus"}, "unrecognized option"},
      {{"-t", "NOSTATE"}, "Invalid job state specified: NOSTATE\nsqueue: error: Valid job states include: PENDING,"},
      {{"-j", "abc"}, "Invalid job id: abc"},
  };
  for (const auto& c : cases) {
    auto cmd = parseSqueueArgs(c.args);
    std::string error;
    if (!cmd.ok()) {
      error = cmd.error();
    } else {
      auto text = renderSqueue(cmd->options, referenceJobs(), 0);
      ASSERT_FALSE(text.ok()) << c.args[0];
      error = text.error();
    }
    EXPECT_NE(error.find(c.message_part), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace drover::cli
