// --prefer through the job manager: checked at submission as the reference's, and once a start
// used the preferred features they become the job's features (scontrol's Features=, sacct's
// Constraints), the preference itself cleared, as the reference showed.
#include <gtest/gtest.h>

#include "jobs_fixture.h"

namespace drover::jobs {
namespace {
using namespace testing;

class PreferTest : public JobsTest {
 protected:
  void SetUp() override {
    JobsTest::SetUp();
    config_.nodes[3].features = {"fast", "big"};  // node04 alone is big
    reopen();
  }
};

TEST_F(PreferTest, RefusedWhenNoNodeCouldRunTheJobOnThem) {
  SubmitResult r = manager_->submit(alice(), SpecBuilder().prefer("nosuch").time(10));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.failure.message, "Invalid preferred feature specification");
  r = manager_->submit(alice(), SpecBuilder().prefer("big|nosuch").time(10));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.failure.message, "Invalid preferred feature specification");
  // One big node for two: the reference's `-N4 --prefer=fast` with one fast node.
  r = manager_->submit(alice(), SpecBuilder().prefer("big").nodes(2).time(10));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.failure.message, "Requested node configuration is not available");
  EXPECT_EQ(manager_->size(), 0u);
}

TEST_F(PreferTest, AStartOnThePreferredNodesMakesThemTheJobsFeatures) {
  const JobId id = submit(SpecBuilder().prefer("big").time(10));
  EXPECT_EQ(job(id).spec().prefer(), "big");
  EXPECT_EQ(job(id).features(), "");
  pass();
  ASSERT_EQ(job(id).state(), v1::JOB_RUNNING);
  EXPECT_EQ(job(id).nodes(), "node04");  // best fit alone would take node01
  EXPECT_EQ(job(id).features(), "big");
  EXPECT_FALSE(job(id).spec().has_prefer());
  const auto accounting = manager_->takeAccounting();
  ASSERT_FALSE(accounting.jobs.empty());
  EXPECT_EQ(accounting.jobs.back().constraints, "big");

  // With node04 busy, the next one runs elsewhere and keeps its preference on record.
  const JobId next = submit(SpecBuilder().prefer("big").time(10).cpusPerTask(4));
  pass();
  ASSERT_EQ(job(next).state(), v1::JOB_RUNNING);
  EXPECT_NE(job(next).nodes(), "node04");
  EXPECT_EQ(job(next).features(), "");
  EXPECT_EQ(job(next).spec().prefer(), "big");
}

}  // namespace
}  // namespace drover::jobs
