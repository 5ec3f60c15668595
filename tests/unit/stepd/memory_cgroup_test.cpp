// The step's memory cgroup: parsing the kernel's OOM counters, and a real step that allocates
// past its limit ending out_of_memory (skipped where this machine gives no writable memory
// cgroup; the skip says why).
#include "stepd/memory_cgroup.h"

#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "stepd/supervisor.h"

namespace drover::stepd {
namespace {

namespace fs = std::filesystem;

TEST(MemoryCgroup, ParsesOomKillCounters) {
  struct Case {
    std::string text;
    std::optional<std::uint64_t> kills;
  };
  const std::vector<Case> cases = {
      {"low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\noom_group_kill 0\n", 1},  // v2 memory.events
      {"oom_kill_disable 0\nunder_oom 0\noom_kill 4\n", 4},                // v1 memory.oom_control
      {"oom_kill_disable 0\nunder_oom 0\n", std::nullopt},                 // old v1 kernels
      {"", std::nullopt},
  };
  for (const auto& c : cases) EXPECT_EQ(parseOomKills(c.text), c.kills) << c.text;
}

TEST(MemoryCgroup, MissingHierarchyIsExplained) {
  CgroupRoot root = findMemoryCgroupRoot("/nonexistent-cgroup-mount");
  EXPECT_EQ(root.kind, CgroupRoot::Kind::kNone);
  EXPECT_NE(root.why.find("no cgroup v1 memory hierarchy"), std::string::npos) << root.why;
  auto cg = MemoryCgroup::create(root, 1, -5, 1 << 20);
  ASSERT_FALSE(cg);
  EXPECT_NE(cg.error().find("no memory cgroup"), std::string::npos);
}

TEST(MemoryCgroup, StepAllocatingPastItsLimitIsOutOfMemory) {
  CgroupRoot root = findMemoryCgroupRoot();
  if (root.kind == CgroupRoot::Kind::kNone) GTEST_SKIP() << "no usable memory cgroup: " << root.why;
  if (access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/python3";
  blockSupervisorSignals();
  const fs::path dir = fs::temp_directory_path() / ("drover-cgroup-test-" + std::to_string(getpid()));
  fs::create_directories(dir);
  SupervisorOptions opts;
  opts.spool_dir = (dir / "spool").string();
  opts.node_name = "node1";
  opts.usage_sample_ms = 100;
  auto request = [&](std::uint64_t job, const std::string& mb) {
    drover::v1::LaunchStepRequest req;
    req.mutable_step()->set_job_id(900000 + job + static_cast<std::uint64_t>(getpid()) * 10);
    req.mutable_step()->set_step_id(kBatchStepId);
    req.set_uid(getuid());
    req.set_gid(getgid());
    req.set_user("root");
    req.set_script("#!/bin/sh\n/usr/bin/python3 -c 'b = bytearray(" + mb +
                   " * 1024 * 1024); print(len(b))'\n");
    req.set_work_dir(dir.string());
    req.set_std_out((dir / ("out" + std::to_string(job))).string());
    req.set_kill_wait_s(1);
    req.set_num_tasks(1);
    req.mutable_allocation()->set_memory_mb(50);
    (*req.mutable_environment())["PATH"] = "/usr/bin:/bin";
    return req;
  };
  StepOutcome over = runStep(request(1, "200"), opts);
  EXPECT_TRUE(over.started);
  EXPECT_TRUE(over.out_of_memory);
  StepOutcome under = runStep(request(2, "10"), opts);
  EXPECT_TRUE(under.started);
  EXPECT_FALSE(under.out_of_memory);
  EXPECT_EQ(under.exit_code, 0);
  // As the supervisor launcher passes it: the root it found once. And a root found gone since
  // (its directory removed): looked for again, the limit still holds.
  opts.memory_cgroup_root = root;
  EXPECT_TRUE(runStep(request(3, "200"), opts).out_of_memory);
  CgroupRoot gone = root;
  gone.path += "-removed";
  opts.memory_cgroup_root = gone;
  EXPECT_TRUE(runStep(request(4, "200"), opts).out_of_memory);
  // The step's cgroups are gone once the steps ended.
  // (Named step_<job>.<step>_<supervisor pid>: the check must fail if the name changes, so
  // it first asserts that no other entry for these jobs exists at all.)
  for (const auto& entry : fs::directory_iterator(root.path)) {
    const std::string name = entry.path().filename().string();
    for (int job : {1, 2, 3, 4}) {
      const std::string prefix = "step_" + std::to_string(900000 + job + getpid() * 10) + ".";
      EXPECT_NE(name.rfind(prefix, 0), 0u) << name << " left behind";
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace drover::stepd
