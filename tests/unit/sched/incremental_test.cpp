// The stateful Scheduler must give exactly the plan of a full schedule() over the same state, on
// random event sequences (submissions, starts, completions, cancels, node changes, time), and
// must actually take its shortcut on some of them. Also: the indexed reservation search gives
// the same plans as asking every node.
#include <gtest/gtest.h>

#include <random>

#include "builders.h"
#include "plan_equality.h"
#include "sched/incremental.h"
#include "sched/scheduler.h"

namespace drover::sched {
namespace {
using namespace testing;

Job randomJob(std::mt19937& rng, JobId id, int64_t now) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  JobBuilder b(id);
  b.nodes(pick(1, 3) == 3 ? pick(2, 3) : 1);
  if (pick(0, 6) == 0) b.nodeRange(1, pick(2, 4));  // -N 1-max: takes what is free at start
  const int kind = pick(0, 7);
  if (kind == 0) {
    b.exclusive();
  } else if (kind == 1) {
    // -n over the nodes: laid out at start, the first node filled (sched/task_layout.h);
    // without -N, spread over as many nodes as hold it when no even share is free.
    if (pick(0, 2) == 0) b.nodes(0);
    b.ntasks(pick(3, 12)).cpusPerTask(pick(1, 4));
  } else {
    b.gpusPerNode(1 << pick(0, 3));
    b.tasks(1).cpusPerTask(pick(1, 2));
  }
  b.time(100 * pick(1, 6));
  b.priority(pick(0, 50));  // few values: ties fall to submit time and id
  b.submit(now);
  int special = pick(0, 30);
  if (special == 0) b.hold(Hold::User);
  if (special == 1) b.begin(now + 50 * pick(1, 4));
  if (special == 2) b.time(100000);  // over the partition limit below
  if (special == 3) b.exclude({"gpu001"});
  return b;
}

// A one-task job of `gpus` GPUs for 100 s at priority `prio`.
Job gpuJob(JobId id, int gpus, double prio) {
  return JobBuilder(id).gpusPerNode(gpus).tasks(1).cpusPerTask(1).time(100).priority(prio);
}

// One pass, checked equal to a full schedule() of the same state; its starts are applied as
// planned, as the controller does.
void passAndStart(Scheduler& sched, const SchedulerParams& params, int64_t now) {
  Snapshot copy = sched.snapshot();
  const Plan& got = sched.pass(now);
  expectSamePlan(got, schedule(copy, params, now));
  std::vector<RunningJob> started;
  for (const Start& st : got.starts) {
    started.push_back(RunningJob{st.id, "gpu", st.allocation, st.endTime});
  }
  if (!started.empty()) sched.onJobsStarted(std::move(started));
}

TEST(Incremental, EqualsFullPassOnRandomEventSequences) {
  int shortcuts = 0, replays = 0, replayable = 0;
  int kept[3] = {0, 0, 0};
  int appended = 0;
  int judgedStarts = 0;
  for (Policy policy : {Policy::Easy, Policy::Fcfs, Policy::Conservative}) {
    for (int seed = 0; seed < 60; ++seed) {
      std::mt19937 rng(seed);
      auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
      SchedulerParams params;
      params.policy = policy;
      // Conservative also with a reservation horizon, so some jobs get estimates instead.
      if (policy == Policy::Conservative && seed % 4 == 3) params.reserveHorizonS = 400;
      Partition part = partition();
      part.maxTimeS = 5000;
      std::vector<Node> nodes = gpuNodes(pick(3, 6));
      Scheduler sched(nodes, {part}, params);
      int64_t now = 0;
      JobId next = 1;
      int completionsOnValidMemo = 0;
      bool lastHadStarts = true;
      for (int step = 0; step < 80; ++step) {
        int event = pick(0, 9);
        if (event <= 5) {
          // Under conservative, half the submissions rank behind the whole queue (priority 0,
          // the latest submit time and id): the appended case; the rest anywhere.
          const bool last = policy == Policy::Conservative && pick(0, 1) == 0;
          for (int n = pick(1, 3); n > 0; --n) {
            Job job = randomJob(rng, next++, now);
            if (last) job.priority = 0;
            sched.onJobSubmitted(std::move(job));
          }
        } else if (event == 6 && !sched.snapshot().running.empty()) {
          const auto& run = sched.snapshot().running;
          sched.onJobEnded(run[pick(0, static_cast<int>(run.size()) - 1)].id);
          completionsOnValidMemo += !lastHadStarts;
          // A submission in the same pass, as when a job ends and another comes in at once.
          if (pick(0, 1) == 0) sched.onJobSubmitted(randomJob(rng, next++, now));
        } else if (event == 7 && !sched.snapshot().pending.empty()) {
          const auto& pend = sched.snapshot().pending;
          sched.onJobEnded(pend[pick(0, static_cast<int>(pend.size()) - 1)].id);
        } else if (event == 8 && pick(0, 4) == 0) {
          Node n = nodes[pick(0, static_cast<int>(nodes.size()) - 1)];
          n.usable = pick(0, 1) == 0;
          sched.onNodeChanged(n);
        } else {
          now += pick(0, 120);
        }
        Snapshot copy = sched.snapshot();
        Plan want = schedule(copy, params, now);
        const Plan& got = sched.pass(now);
        SCOPED_TRACE("policy " + std::to_string(static_cast<int>(policy)) + " seed " +
                     std::to_string(seed) + " step " + std::to_string(step));
        expectSamePlan(got, want);
        if (::testing::Test::HasFailure()) return;
        lastHadStarts = !got.starts.empty();
        std::vector<Start> starts = got.starts;
        // The controller reports a plan's starts in one batch; drivers may also report them one
        // by one, or start something else than planned (a later end here): all must stay exact.
        const int how = pick(0, 9);
        if (how == 0 && !starts.empty()) starts.front().endTime += 1;
        if (how <= 4) {
          std::vector<RunningJob> batch;
          for (Start& st : starts) {
            batch.push_back(RunningJob{st.id, "gpu", std::move(st.allocation), st.endTime});
          }
          if (!batch.empty()) sched.onJobsStarted(std::move(batch));
        } else {
          for (Start& st : starts) {
            sched.onJobStarted(RunningJob{st.id, "gpu", std::move(st.allocation), st.endTime});
          }
        }
      }
      shortcuts += sched.counters().incrementalPasses;
      replays += sched.counters().completionReplays;
      kept[static_cast<int>(policy)] += sched.counters().startsKept;
      appended += sched.counters().lastRankedAppends;
      judgedStarts += sched.counters().startsJudged;
      if (policy != Policy::Conservative) replayable += completionsOnValidMemo;
    }
  }
  EXPECT_GT(shortcuts, 100) << "the shortcut should be taken on some passes";
  std::printf("completion replays %d of %d\n", replays, replayable);
  EXPECT_GT(replays, 100) << "completions after a pass without starts should be replayed";
  std::printf("plans whose applied starts kept the memo: easy %d, fcfs %d, conservative %d\n",
              kept[static_cast<int>(Policy::Easy)], kept[static_cast<int>(Policy::Fcfs)],
              kept[static_cast<int>(Policy::Conservative)]);
  EXPECT_GT(kept[static_cast<int>(Policy::Easy)], 100) << "applied starts should keep the memo";
  EXPECT_GT(kept[static_cast<int>(Policy::Fcfs)], 100);
  EXPECT_EQ(kept[static_cast<int>(Policy::Conservative)], 0);
  std::printf("conservative submissions appended behind the plan: %d passes\n", appended);
  EXPECT_GT(appended, 50) << "last-ranked conservative submissions should be appended";
  std::printf("submissions that started at once without a full pass: %d\n", judgedStarts);
  EXPECT_GT(judgedStarts, 100) << "submissions that start at once should take their shortcut";
}

// Conservative: a submission ranked behind every pending job takes no full pass (its own checks
// on the kept profile); one ranked ahead of any does; each plan equals a full schedule().
TEST(Incremental, ConservativeLastRankedSubmissionIsAppended) {
  SchedulerParams params;
  params.policy = Policy::Conservative;
  Scheduler sched(gpuNodes(2), {partition()}, params);
  // gpu001 busy until 1000; gpu002 has 2 GPUs free until 2000.
  sched.onJobsStarted({running(100, "gpu001", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 1000),
                       running(101, "gpu002", 6, {0, 1, 2, 3, 4, 5}, 2000)});
  auto job = [](JobId id, int gpus, double prio, int64_t time = 100) {
    return JobBuilder(id).gpusPerNode(gpus).tasks(1).cpusPerTask(1).time(time).priority(prio);
  };
  int64_t now = 0;
  auto check = [&](const std::string& what) -> const Plan& {
    SCOPED_TRACE(what);
    Snapshot copy = sched.snapshot();
    const Plan& got = sched.pass(now);
    expectSamePlan(got, schedule(copy, params, now));
    return got;
  };
  sched.onJobSubmitted(job(1, 8, 100));  // reserves gpu001 at 1000
  sched.onJobSubmitted(job(2, 4, 50));   // reserves at 1000 too (gpu002 at 2000 is later)
  check("first pass");
  ASSERT_EQ(sched.counters().fullPasses, 1);
  struct Case {
    std::string what;
    Job job;
    bool appended;
  };
  std::vector<Case> cases = {
      {"last-ranked, reserves behind the others", job(3, 8, 10), true},
      {"last-ranked, same shape as a failure", job(4, 8, 10, 200), true},
      {"last-ranked, held", Job(JobBuilder(5).gpusPerNode(1).priority(1).hold(Hold::User)), true},
      {"ranked ahead of job 2", job(6, 4, 60), false},
      {"last-ranked after a full pass", job(7, 4, 0.5), true},
      {"last-ranked, backfills now on gpu002", job(8, 2, 0.2), true},
      {"after a plan with starts", job(9, 8, 0), false},
  };
  for (Case& c : cases) {
    SCOPED_TRACE(c.what);
    const Scheduler::Counters before = sched.counters();
    now += 5;
    sched.onJobSubmitted(c.job);
    const Plan& got = check(c.what);
    const Scheduler::Counters& after = sched.counters();
    EXPECT_EQ(after.fullPasses - before.fullPasses, c.appended ? 0 : 1);
    EXPECT_EQ(after.lastRankedAppends - before.lastRankedAppends, c.appended ? 1 : 0);
    if (::testing::Test::HasFailure()) return;
    if (c.job.id == 8) {
      ASSERT_EQ(got.starts.size(), 1u);
      EXPECT_EQ(got.starts[0].id, 8u);
      EXPECT_EQ(sched.keptProfileBytes(), 0u);  // a plan with starts keeps no memo
      // Not applied: the next pass is a full one on the same state.
    } else if (c.appended) {
      EXPECT_GT(sched.keptProfileBytes(), 0u);
    }
  }
}

// The controller's sequence: pass, apply exactly its starts, next event, pass. Under EASY and
// FCFS the applied starts keep the memo, so after the first pass no full pass is needed; under
// conservative they drop it. Every plan equals a full schedule().
TEST(Incremental, AppliedStartsKeepTheMemoForTheNextEvent) {
  struct Case {
    Policy policy;
    bool keeps;
  };
  for (const Case& c : std::vector<Case>{{Policy::Easy, true}, {Policy::Fcfs, true},
                                         {Policy::Conservative, false}}) {
    SCOPED_TRACE("policy " + std::to_string(static_cast<int>(c.policy)));
    SchedulerParams params;
    params.policy = c.policy;
    params.estimateDepth = 0;  // so a same-shape submission changes no estimate either
    Scheduler sched(gpuNodes(2), {partition()}, params);
    // gpu001 busy until 1000; gpu002 has 2 GPUs free until 2000.
    sched.onJobsStarted({running(100, "gpu001", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 1000),
                         running(101, "gpu002", 6, {0, 1, 2, 3, 4, 5}, 2000)});
    sched.onJobSubmitted(gpuJob(1, 8, 100));  // blocked: reserves gpu001 at 1000
    sched.onJobSubmitted(gpuJob(2, 2, 50));   // backfills on gpu002 (EASY, conservative)
    sched.onJobSubmitted(gpuJob(4, 2, 40));   // fails: a failure of its shape
    int64_t now = 0;
    auto step = [&](const std::string& what) {
      SCOPED_TRACE(what);
      passAndStart(sched, params, now);
    };
    step("first pass");
    sched.onJobSubmitted(gpuJob(3, 2, 10));
    now = 10;
    step("a submission after the first pass's starts");
    now = 20;
    sched.onJobEnded(100);
    step("a completion: job 1 starts on gpu001");
    sched.onJobSubmitted(gpuJob(5, 2, 5));
    now = 30;
    step("a submission after the replay's starts");
    sched.onJobEnded(1);
    now = 40;
    step("a completion after the replay's starts");
    if (::testing::Test::HasFailure()) return;
    if (c.keeps) {
      EXPECT_EQ(sched.counters().fullPasses, 1);
    }
    EXPECT_EQ(sched.counters().startsKept > 0, c.keeps);
  }
}

// EASY with start estimates: a long job holds gpu001 and whole-cluster jobs wait behind it (one
// reservation, the rest estimates, all from its end). Short jobs submitted one after another
// backfill at once on the other nodes, each without a full pass (startSubmissions): no estimate
// can move for a claim that ends before it starts. Each start is reported as planned and each
// job ends before the next, as on a busy cluster; every plan equals schedule().
TEST(Incremental, ASubmissionThatStartsAtOnceTakesNoFullPass) {
  SchedulerParams params;
  params.policy = Policy::Easy;
  Scheduler sched(gpuNodes(4), {partition()}, params);
  sched.onJobsStarted({running(100, "gpu001", 64, {0, 1, 2, 3, 4, 5, 6, 7}, 10000)});
  for (JobId id = 1; id <= 5; ++id) {
    sched.onJobSubmitted(JobBuilder(id).nodes(4).gpusPerNode(8).time(1000).priority(100));
  }
  int64_t now = 0;
  passAndStart(sched, params, now);
  ASSERT_EQ(sched.counters().fullPasses, 1);
  for (JobId id = 10; id < 20; ++id) {
    SCOPED_TRACE("job " + std::to_string(id));
    now += 10;
    sched.onJobSubmitted(JobBuilder(id).gpusPerNode(1 + id % 3).time(100).priority(1));
    Snapshot copy = sched.snapshot();
    const Plan& got = sched.pass(now);
    const Plan want = schedule(copy, params, now);
    expectSamePlan(got, want);
    ASSERT_EQ(got.starts.size(), 1u);
    EXPECT_TRUE(got.starts[0].backfill);
    sched.onJobStarted(RunningJob{id, "gpu", got.starts[0].allocation, got.starts[0].endTime});
    now += 10;
    sched.onJobEnded(id);
    // Half the jobs end in a pass of their own (the completion's replay); the others' ends
    // come with the next submission, replayed before it is judged.
    if (id % 2 == 0) passAndStart(sched, params, now);
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_EQ(sched.counters().fullPasses, 1);
  EXPECT_EQ(sched.counters().startsJudged, 10);
  EXPECT_EQ(sched.counters().completionReplays, 9);
  // Several in one pass, as from parallel submitters, one of them ranked ahead of the others.
  now += 10;
  for (JobId id = 20; id < 23; ++id) {
    sched.onJobSubmitted(JobBuilder(id).gpusPerNode(2).time(100).priority(id == 22 ? 5 : 1));
  }
  Snapshot copy = sched.snapshot();
  const Plan& got = sched.pass(now);
  expectSamePlan(got, schedule(copy, params, now));
  EXPECT_EQ(got.starts.size(), 3u);
  EXPECT_EQ(sched.counters().fullPasses, 1);
  EXPECT_EQ(sched.counters().startsJudged, 13);
}

// A job's end and a submission in one pass: the end's replay comes first and its changes stay.
// gpu001 is busy until 10000, when job 1 (all four nodes) holds the cluster; job 2 (three
// nodes) is estimated at 5000, when gpu002 and gpu003 are free besides gpu004. Job 100 on
// gpu002 ends at 20, which brings job 2's estimate to 3000 (gpu003's end) without starting
// anything, and job 3, submitted in the same pass, starts at once on gpu002 until 120.
TEST(Incremental, ACompletionReplayedBeforeAJudgedStartKeepsItsChanges) {
  SchedulerParams params;
  params.policy = Policy::Easy;
  Scheduler sched(gpuNodes(4), {partition()}, params);
  sched.onJobsStarted({running(99, "gpu001", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 10000),
                       running(100, "gpu002", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 5000),
                       running(101, "gpu003", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 3000)});
  sched.onJobSubmitted(JobBuilder(1).nodes(4).gpusPerNode(8).time(100).priority(100));
  sched.onJobSubmitted(JobBuilder(2).nodes(3).gpusPerNode(8).time(4000).priority(90));
  passAndStart(sched, params, 0);
  ASSERT_EQ(pendingOf(sched.pass(0), 2)->estimatedStart, 5000);

  sched.onJobEnded(100);
  sched.onJobSubmitted(JobBuilder(3).gpusPerNode(1).time(100).priority(1));
  Snapshot copy = sched.snapshot();
  const Plan& got = sched.pass(20);
  expectSamePlan(got, schedule(copy, params, 20));
  EXPECT_EQ(pendingOf(got, 2)->estimatedStart, 3000);
  ASSERT_NE(startOf(got, 3), nullptr);
  EXPECT_EQ(sched.counters().fullPasses, 1);
  EXPECT_EQ(sched.counters().completionReplays, 1);
  EXPECT_EQ(sched.counters().startsJudged, 1);
}

// A start that would move a start estimate takes a full pass. gpu002 has 1 GPU free now and
// gpu003 4, both until 1000; job 1 holds gpu001 from 1000, and job 2's estimate (8 GPUs, from
// 1000) chooses gpu002, the best fit by what is free now. Job 3 (4 GPUs, 100 s) can start only on
// gpu003, which then has less free than gpu002: job 2's estimate moves to gpu003. Job 4 (no GPU)
// goes to gpu001, the best fit now, which job 2 cannot use from 1000 (job 1 holds it): it moves
// nothing.
TEST(Incremental, AStartThatWouldMoveAnEstimateTakesAFullPass) {
  SchedulerParams params;
  params.policy = Policy::Easy;
  Scheduler sched(gpuNodes(3), {partition()}, params);
  sched.onJobsStarted({running(100, "gpu001", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 1000),
                       running(101, "gpu002", 7, {0, 1, 2, 3, 4, 5, 6}, 1000),
                       running(102, "gpu003", 4, {0, 1, 2, 3}, 1000)});
  sched.onJobSubmitted(gpuJob(1, 8, 100));
  sched.onJobSubmitted(gpuJob(2, 8, 90));
  passAndStart(sched, params, 0);
  ASSERT_EQ(sched.counters().fullPasses, 1);
  ASSERT_EQ(pendingOf(sched.pass(0), 2)->plannedNodes, std::vector<std::string>{"gpu002"});

  sched.onJobSubmitted(gpuJob(3, 4, 10));
  passAndStart(sched, params, 10);
  EXPECT_EQ(sched.counters().fullPasses, 2) << "job 3's start moves job 2's estimate";
  EXPECT_EQ(sched.counters().startsJudged, 0);
  EXPECT_EQ(pendingOf(sched.pass(10), 2)->plannedNodes, std::vector<std::string>{"gpu003"});

  sched.onJobSubmitted(JobBuilder(4).tasks(1).cpusPerTask(1).time(100).priority(5));
  passAndStart(sched, params, 20);
  EXPECT_EQ(sched.counters().fullPasses, 2);
  EXPECT_EQ(sched.counters().startsJudged, 1);
}

// Node weights choose a multi-node estimate's window, and a start can reshape it by taking a node
// outside it. Five nodes of weights 1, 10, 1, 5, 5; from 100 the first four are free until job
// 1 (all five) holds them at 5000. Job 2's estimate (two nodes from 100) takes gpu003-004
// (weight 6; the windows through gpu002 weigh 11). A job that starts at once on gpu002, the only
// node with GPUs free, and holds it past 100 takes gpu002 out: the lightest window is then gpu001
// and gpu003 (weight 2), so job 2's estimate moves, and a full pass finds that. Also when that
// job comes with another that starts ahead of it and ends before 100.
TEST(Incremental, AStartThatWouldReshapeAWeightedWindowTakesAFullPass) {
  SchedulerParams params;
  params.policy = Policy::Easy;
  const int weights[] = {1, 10, 1, 5, 5};
  std::vector<Node> nodes;
  for (int i = 0; i < 5; ++i) {
    nodes.push_back(NodeBuilder("gpu00" + std::to_string(i + 1), i).gpus(8).weight(weights[i]));
  }
  for (bool twoStarts : {false, true}) {
    SCOPED_TRACE(twoStarts ? "two starts" : "one start");
    Scheduler sched(nodes, {partition()}, params);
    sched.onJobsStarted({running(100, "gpu001", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 100),
                         running(101, "gpu002", 4, {0, 1, 2, 3}, 100),
                         running(102, "gpu003", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 100),
                         running(103, "gpu004", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 100),
                         running(104, "gpu005", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 5000)});
    sched.onJobSubmitted(JobBuilder(1).nodes(5).gpusPerNode(8).time(100).priority(100));
    sched.onJobSubmitted(JobBuilder(2).nodes(2).gpusPerNode(8).time(100).priority(90));
    passAndStart(sched, params, 0);
    const std::vector<std::string> before{"gpu003", "gpu004"};
    ASSERT_EQ(pendingOf(sched.pass(0), 2)->plannedNodes, before);

    if (twoStarts) sched.onJobSubmitted(JobBuilder(4).gpusPerNode(2).time(50).priority(20));
    sched.onJobSubmitted(JobBuilder(3).gpusPerNode(twoStarts ? 2 : 4).time(200).priority(10));
    passAndStart(sched, params, 10);
    EXPECT_EQ(sched.counters().fullPasses, 2);
    EXPECT_EQ(sched.counters().startsJudged, 0);
    const std::vector<std::string> after{"gpu001", "gpu003"};
    EXPECT_EQ(pendingOf(sched.pass(10), 2)->plannedNodes, after);
  }
}

// Two jobs that start at once on the same node, one ending before an estimate there starts and
// one after it: the later end moves the estimate, and a full pass finds that. gpu001 is busy
// until 10000, when job 1 (all three nodes) holds the cluster; gpu003 until 10000 too. Job 2's
// estimate is gpu002 from 500, when its running job ends. Jobs 3 (until 110) and 4 (until 1010)
// start at once on gpu002's free GPUs; job 2 then fits there only from 1010.
TEST(Incremental, TheLaterOfTwoStartsOnANodeBoundsTheEstimatesThere) {
  SchedulerParams params;
  params.policy = Policy::Easy;
  Scheduler sched(gpuNodes(3), {partition()}, params);
  sched.onJobsStarted({running(100, "gpu001", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 10000),
                       running(101, "gpu002", 4, {0, 1, 2, 3}, 500),
                       running(102, "gpu003", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 10000)});
  sched.onJobSubmitted(JobBuilder(1).nodes(3).gpusPerNode(8).time(100).priority(100));
  sched.onJobSubmitted(gpuJob(2, 8, 90));
  passAndStart(sched, params, 0);
  ASSERT_EQ(pendingOf(sched.pass(0), 2)->estimatedStart, 500);

  sched.onJobSubmitted(gpuJob(3, 1, 10));
  sched.onJobSubmitted(JobBuilder(4).gpusPerNode(1).tasks(1).cpusPerTask(1).time(1000).priority(5));
  passAndStart(sched, params, 10);
  EXPECT_EQ(sched.counters().fullPasses, 2);
  EXPECT_EQ(sched.counters().startsJudged, 0);
  EXPECT_EQ(pendingOf(sched.pass(10), 2)->estimatedStart, 1010);
}

// Conservative with a reservation horizon: a job beyond it gets a start estimate, searched after
// the walk on its final profile. A last-ranked job that would take an estimate, or one whose
// claim could move an earlier estimate, takes a full pass; plans equal schedule() throughout.
TEST(Incremental, ConservativeAppendLeavesEstimatesToAFullPass) {
  SchedulerParams params;
  params.policy = Policy::Conservative;
  params.reserveHorizonS = 500;
  Scheduler sched(gpuNodes(1), {partition()}, params);
  sched.onJobsStarted({running(100, "gpu001", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 1000)});
  auto job = [](JobId id, double prio) {
    return JobBuilder(id).gpusPerNode(8).tasks(1).cpusPerTask(1).time(100).priority(prio);
  };
  const int64_t now = 5;  // a horizon moves with the clock: the memo holds for this second only
  struct Case {
    std::string what;
    Job job;
    int fullPasses;  // taken by this step
  };
  std::vector<Case> cases = {
      {"first pass: a held job", Job(JobBuilder(1).gpusPerNode(1).priority(50).hold(Hold::User)), 1},
      {"last-ranked, held: appended", Job(JobBuilder(2).gpusPerNode(1).priority(40).hold(Hold::User)), 0},
      {"last-ranked, past the horizon: would take an estimate", job(3, 30), 1},
      {"last-ranked after a pass with an estimate", job(4, 20), 1},
  };
  for (Case& c : cases) {
    SCOPED_TRACE(c.what);
    const int before = sched.counters().fullPasses;
    sched.onJobSubmitted(c.job);
    Snapshot copy = sched.snapshot();
    const Plan& got = sched.pass(now);
    const Plan want = schedule(copy, params, now);
    expectSamePlan(got, want);
    EXPECT_EQ(sched.counters().fullPasses - before, c.fullPasses);
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_TRUE(sched.snapshot().pending.size() == 4);
}

TEST(Incremental, IndexedReservationSearchEqualsAskingEveryNode) {
  for (Policy policy : {Policy::Easy, Policy::Conservative}) {
    for (int seed = 0; seed < 150; ++seed) {
      std::mt19937 rng(seed);
      auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
      Snapshot s;
      s.nodes = gpuNodes(pick(3, 10));
      s.partitions = {partition()};
      JobId next = 1000;
      for (const Node& n : s.nodes) {
        int busy = pick(0, 8);
        if (busy == 0) continue;
        std::vector<int> g(busy);
        for (int i = 0; i < busy; ++i) g[i] = i;
        s.running.push_back(running(next++, n.name, busy, g, 37 * pick(1, 60)));
      }
      for (int j = 1, jobs = pick(5, 40); j <= jobs; ++j) s.pending.push_back(randomJob(rng, j, 0));
      SchedulerParams params;
      params.policy = policy;
      if (seed % 3 == 0) params.reserveHorizonS = 700;
      SCOPED_TRACE("seed " + std::to_string(seed));
      expectIndexedSearchEqualsAskingEveryNode(s, params);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// A running job that takes a new id (the controller gives a started array task its job id)
// keeps the memo: the next submission and completions still take their shortcuts (the sequence
// of AppliedStartsKeepTheMemoForTheNextEvent, with job 2 renamed once it started).
TEST(Incremental, RenamedRunningJobKeepsTheMemo) {
  SchedulerParams params;
  params.policy = Policy::Easy;
  params.estimateDepth = 0;
  Scheduler sched(gpuNodes(2), {partition()}, params);
  sched.onJobsStarted({running(100, "gpu001", 8, {0, 1, 2, 3, 4, 5, 6, 7}, 1000),
                       running(101, "gpu002", 6, {0, 1, 2, 3, 4, 5}, 2000)});
  sched.onJobSubmitted(gpuJob(1, 8, 100));
  sched.onJobSubmitted(gpuJob(2, 2, 50));  // starts on gpu002
  sched.onJobSubmitted(gpuJob(4, 2, 40));
  int64_t now = 0;
  auto step = [&](const std::string& what) {
    SCOPED_TRACE(what);
    passAndStart(sched, params, now);
  };
  step("first pass");
  ASSERT_EQ(sched.counters().startsKept, 1);
  EXPECT_TRUE(sched.renameRunning(2, 902));
  EXPECT_FALSE(sched.renameRunning(2, 903));  // no longer running under 2
  sched.onJobSubmitted(gpuJob(3, 2, 10));
  now = 10;
  step("a submission after the renamed start");
  now = 20;
  sched.onJobEnded(100);
  step("a completion: job 1 starts on gpu001");
  now = 40;
  sched.onJobEnded(902);
  step("the renamed job ends");
  EXPECT_EQ(sched.counters().fullPasses, 1);
}

// Ties of tier, priority and submit time go to the lower rank id (an array's pending tasks
// carry their array's), then the lower job id.
TEST(Incremental, RankIdBreaksTiesBeforeTheJobId) {
  Snapshot snap;
  snap.nodes = gpuNodes(1);
  snap.partitions = {partition()};
  auto whole = [](JobId id) {
    return JobBuilder(id).gpusPerNode(8).tasks(1).cpusPerTask(1).time(100).priority(10).submit(5);
  };
  Job task = whole(4000);
  task.request.rankId = 7;  // a task of array 7, under an internal id above every job id
  snap.pending = {whole(8), task, whole(9)};
  Plan plan = schedule(snap, SchedulerParams{}, 0);
  ASSERT_EQ(plan.starts.size(), 1u);
  EXPECT_EQ(plan.starts[0].id, 4000u);
}

}  // namespace
}  // namespace drover::sched
