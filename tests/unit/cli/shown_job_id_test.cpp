// scontrol show job's id as the reference read it (tests/e2e/golden/edges 40-48).
#include "cli/shown_job_id.h"

#include <gtest/gtest.h>

namespace drover::cli {
namespace {

TEST(ShownJobId, JobTaskAndOffset) {
  auto id = parseShownJobId("28");
  ASSERT_TRUE(id);
  EXPECT_EQ(id->job, 28u);
  EXPECT_FALSE(id->task);
  EXPECT_FALSE(id->offset);
  EXPECT_EQ(shownJobIdText(*id), "28");

  id = parseShownJobId("29_3+0");
  ASSERT_TRUE(id);
  EXPECT_EQ(id->job, 29u);
  EXPECT_EQ(id->task, 3u);
  EXPECT_EQ(id->offset, 0u);
  EXPECT_EQ(controllerJobId(*id), "29_3");
  EXPECT_EQ(shownJobIdText(*id), "29_3+0");
}

TEST(ShownJobId, LeadingZerosAndAnEmptyTaskReadAsTheReferenceDid) {
  auto id = parseShownJobId("0029_03");
  ASSERT_TRUE(id);
  EXPECT_EQ(controllerJobId(*id), "29_3");
  id = parseShownJobId("28_");  // the reference's "Job 28_0 not found"
  ASSERT_TRUE(id);
  EXPECT_EQ(shownJobIdText(*id), "28_0");
  id = parseShownJobId("28+1");
  ASSERT_TRUE(id);
  EXPECT_EQ(controllerJobId(*id), "28");
  EXPECT_EQ(shownJobIdText(*id), "28+1");
}

TEST(ShownJobId, AnythingElseIsRefused) {
  for (const char* text : {"", "abc", "28 ", " 28", "28_[1-2]", "28_1-2", "28_1,28_2", "28.batch", "28_3.0",
                           "28+", "28_3x", "-5", "28+1_3", "4294967296", "28_9999999999"}) {
    EXPECT_FALSE(parseShownJobId(text)) << text;
  }
  EXPECT_TRUE(parseShownJobId("4294967295"));
}

}  // namespace
}  // namespace drover::cli
