// scontrol write batch_script's controller side: the script as submitted, from the store, for
// the owner, root and operators only, with Slurm's texts for everything else.
#include <algorithm>
#include <string>
#include <vector>

#include "jobs_fixture.h"

namespace drover::jobs::testing {
namespace {

TEST_F(JobsTest, JobScriptIsTheSubmittedScriptForItsOwnerAndRoot) {
  SpecBuilder spec;
  v1::JobSpec s = spec;
  s.set_script("#!/bin/bash\n#SBATCH -J mine\necho hi\n");
  const JobId id = submit(s);
  const std::string text = std::to_string(id);
  for (const Caller& who : {alice(), root()}) {
    auto script = manager_->jobScript(who, text);
    ASSERT_TRUE(script.ok()) << script.error();
    EXPECT_EQ(script->script(), "#!/bin/bash\n#SBATCH -J mine\necho hi\n");
  }
  auto other = manager_->jobScript(bob(), text);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error(), "Invalid user id");
  for (const std::string& bad : std::vector<std::string>{"999999", "12abc", "", text + "_1"}) {
    auto unknown = manager_->jobScript(alice(), bad);
    ASSERT_FALSE(unknown.ok()) << bad;
    EXPECT_EQ(unknown.error(), "Invalid job id specified") << bad;
  }
  // Kept in the store, not in memory: a restarted controller still has it.
  reopen();
  auto again = manager_->jobScript(alice(), text);
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(again->script(), "#!/bin/bash\n#SBATCH -J mine\necho hi\n");
}

TEST_F(JobsTest, JobScriptOfAnArrayTaskIsTheArraysAndAnAllocationHasNone) {
  v1::JobSpec s = SpecBuilder().array("0-3").hold();
  s.set_script("#!/bin/sh\necho task $SLURM_ARRAY_TASK_ID\n");
  const JobId array = submit(s);
  for (const std::string& id : {std::to_string(array), std::to_string(array) + "_2"}) {
    auto script = manager_->jobScript(alice(), id);
    ASSERT_TRUE(script.ok()) << id << ": " << script.error();
    EXPECT_EQ(script->script(), "#!/bin/sh\necho task $SLURM_ARRAY_TASK_ID\n") << id;
  }
  // A started task's own id (its JobIDRaw) names the array's script too, as the reference's
  // scontrol wrote array 7054's for its running task 7056 (7054_1).
  v1::JobSpec runs = SpecBuilder().array("0-1");
  runs.set_script("#!/bin/sh\necho started\n");
  const JobId started = submit(runs);
  const auto launches = pass();
  const auto own = std::find_if(launches.begin(), launches.end(),
                                [started](const auto& launch) { return launch.job_id != started; });
  ASSERT_NE(own, launches.end()) << "no task started under an id of its own";
  auto script = manager_->jobScript(alice(), std::to_string(own->job_id));
  ASSERT_TRUE(script.ok()) << own->job_id << ": " << script.error();
  EXPECT_EQ(script->script(), "#!/bin/sh\necho started\n");
  v1::JobSpec alloc = SpecBuilder().hold();
  alloc.set_batch(false);
  alloc.clear_script();
  auto none = manager_->jobScript(alice(), std::to_string(submit(alloc)));
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error(), "Job script not specified");
}

}  // namespace
}  // namespace drover::jobs::testing
