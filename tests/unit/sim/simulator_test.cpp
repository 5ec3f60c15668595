#include "sim/simulator.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "sim/report.h"
#include "sim/swf.h"

namespace drover::sim {
namespace {

SwfTrace tinyTrace() {
  std::ifstream in(std::string(DROVER_SIM_TEST_DATA) + "/tiny.swf");
  auto t = parseSwf(in, SwfOptions{});
  EXPECT_TRUE(t.ok());
  return *t;
}

TEST(Swf, ParsesHeaderAndJobs) {
  SwfTrace t = tinyTrace();
  EXPECT_EQ(t.maxNodes, 4);
  EXPECT_EQ(t.maxProcs, 4);
  ASSERT_EQ(t.jobs.size(), 4u);  // job 5 never ran
  EXPECT_EQ(t.notRun, 1);
  EXPECT_EQ(t.jobs[2].submit, 10);
  EXPECT_EQ(t.jobs[2].procs, 2);
  EXPECT_EQ(t.jobs[2].requestedTime, 50);
  EXPECT_EQ(t.jobs[2].line, 7);
}

TEST(Swf, BadLinesNameTheLine) {
  struct Case {
    std::string text;
    std::string wantInMessage;
  };
  std::vector<Case> cases = {
      {"1 0 -1 100 2\n", "t.swf:1: expected 18"},
      {"; c\n1 0 -1 100 x -1 -1 2 100 -1 1 1 1 -1 1 1 -1 -1\n", "t.swf:2: field 5 \"x\""},
      {"1 0 -1 100 -3 -1 -1 -3 100 -1 1 1 1 -1 1 1 -1 -1\n", "t.swf:1: job 1 ran but has no processor"},
      {"1 -5 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 1 1 -1 -1\n", "t.swf:1: negative submit"},
  };
  for (const auto& c : cases) {
    std::istringstream strictIn(c.text);
    auto strict = parseSwf(strictIn, SwfOptions{true, "t.swf"});
    ASSERT_FALSE(strict.ok()) << c.text;
    EXPECT_NE(strict.error().find(c.wantInMessage), std::string::npos) << strict.error();
    std::istringstream lenientIn(c.text);
    auto lenient = parseSwf(lenientIn, SwfOptions{false, "t.swf"});
    ASSERT_TRUE(lenient.ok());
    EXPECT_TRUE(lenient->jobs.empty());
    ASSERT_EQ(lenient->problems.size(), 1u);
  }
}

// Schedules computed by hand (see data/tiny.swf; 4 nodes x 1 CPU):
// t=0: job 1 (2 procs, 100 s) starts; job 2 (4 procs) must wait for it: reserved at t=100.
// t=10: job 3 (2 procs, 50 s) ends at 60 < 100, so EASY and conservative backfill it at 10;
//       FCFS holds it behind job 2, so it starts when job 2 ends at 200.
// t=20: job 4 (1 proc, 200 s) would run past 100 on the 2 free nodes: it waits until 200.
TEST(Simulator, HandComputedSchedules) {
  struct Case {
    sched::Policy policy;
    std::map<int64_t, int64_t> starts;  // trace job id -> start
    double meanWait;
    int64_t maxWait;
    double meanBsld;
  };
  std::vector<Case> cases = {
      {sched::Policy::Fcfs, {{1, 0}, {2, 100}, {3, 200}, {4, 200}}, (0 + 100 + 190 + 180) / 4.0,
       190, (1 + 2 + 240 / 50.0 + 380 / 200.0) / 4},
      {sched::Policy::Easy, {{1, 0}, {2, 100}, {3, 10}, {4, 200}}, (0 + 100 + 0 + 180) / 4.0, 180,
       (1 + 2 + 1 + 1.9) / 4},
      {sched::Policy::Conservative, {{1, 0}, {2, 100}, {3, 10}, {4, 200}},
       (0 + 100 + 0 + 180) / 4.0, 180, (1 + 2 + 1 + 1.9) / 4},
  };
  for (const auto& c : cases) {
    SimConfig config;
    config.nodes = 4;
    config.cpusPerNode = 1;
    config.params.policy = c.policy;
    auto r = simulate(tinyTrace(), config);
    ASSERT_TRUE(r.ok()) << r.error();
    std::map<int64_t, int64_t> starts;
    for (const auto& j : r->jobs) starts[j.id] = j.start;
    EXPECT_EQ(starts, c.starts) << static_cast<int>(c.policy);
    EXPECT_DOUBLE_EQ(r->metrics.meanWaitS, c.meanWait);
    EXPECT_EQ(r->metrics.maxWaitS, c.maxWait);
    EXPECT_DOUBLE_EQ(r->metrics.meanBoundedSlowdown, c.meanBsld);
    EXPECT_EQ(r->metrics.jobs, 4);
  }
}

TEST(Simulator, UtilizationIsWorkOverCapacity) {
  SimConfig config;
  config.nodes = 4;
  config.cpusPerNode = 1;
  auto r = simulate(tinyTrace(), config);
  ASSERT_TRUE(r.ok());
  // EASY: work 2*100 + 4*100 + 2*50 + 1*200 = 900 processor-seconds; last end 400; 4 procs.
  EXPECT_DOUBLE_EQ(r->metrics.utilization, 900.0 / (4 * 400));
  EXPECT_EQ(r->metrics.backfilled, 1);
  std::string json = metricsJson(*r, ReportInfo{"tiny", "easy", 4, 1, 0});
  for (const char* key : {"\"jobs\":4", "\"utilization\":", "\"mean_wait_s\":70", "\"max_wait_s\":180",
                          "\"mean_bounded_slowdown\":"}) {
    EXPECT_NE(json.find(key), std::string::npos) << key << " in " << json;
  }
}

TEST(Simulator, JobLargerThanMachine) {
  SimConfig config;
  config.nodes = 2;
  config.cpusPerNode = 1;
  auto strict = simulate(tinyTrace(), config);
  ASSERT_FALSE(strict.ok());
  EXPECT_NE(strict.error().find("line 6: job 2 asks for 4 processors"), std::string::npos)
      << strict.error();
  config.strict = false;
  auto lenient = simulate(tinyTrace(), config);
  ASSERT_TRUE(lenient.ok());
  EXPECT_EQ(lenient->metrics.jobs, 3);
  EXPECT_EQ(lenient->problems.size(), 1u);
}

TEST(Simulator, RequestedTimeCutsRuntime) {
  std::istringstream in("1 0 -1 500 1 -1 -1 1 100 -1 1 1 1 -1 1 1 -1 -1\n");
  auto t = parseSwf(in, SwfOptions{});
  SimConfig config;
  config.nodes = 1;
  auto r = simulate(*t, config);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->jobs[0].end, 100);
}

}  // namespace
}  // namespace drover::sim
