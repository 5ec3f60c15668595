// The step daemon's cancel lines, laid out as the reference Slurm 22.05's (2026-12-04).
#include "stepd/cancel_notice.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

namespace drover::stepd {
namespace {

class CancelNoticeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
  // 2026-12-04T00:14:35 UTC
  static constexpr std::int64_t kAt = 1796343275;
};

TEST_F(CancelNoticeTest, JobAndStepLinesForEachReason) {
  EXPECT_EQ(cancelNotice("drover-stepd-node1", 157, -5, "node1", kAt, v1::SignalStepRequest::CANCELLED),
            "drover-stepd-node1: error: *** JOB 157 ON node1 CANCELLED AT 2026-12-04T00:14:35 ***\n");
  EXPECT_EQ(cancelNotice("drover-stepd-node1", 158, -5, "node1", kAt, v1::SignalStepRequest::TIME_LIMIT),
            "drover-stepd-node1: error: *** JOB 158 ON node1 CANCELLED AT 2026-12-04T00:14:35 DUE "
            "TO TIME LIMIT ***\n");
  EXPECT_EQ(cancelNotice("drover-stepd-node1", 161, -5, "node1", kAt, v1::SignalStepRequest::REQUEUED),
            "drover-stepd-node1: error: *** JOB 161 ON node1 CANCELLED AT 2026-12-04T00:14:35 DUE "
            "TO JOB REQUEUE ***\n");
  EXPECT_EQ(cancelNotice("drover-stepd-node2", 159, 0, "node2", kAt, v1::SignalStepRequest::CANCELLED),
            "drover-stepd-node2: error: *** STEP 159.0 ON node2 CANCELLED AT 2026-12-04T00:14:35 ***\n");
  EXPECT_EQ(cancelNotice("drover-stepd-node1", 1, 0, "node1", kAt, v1::SignalStepRequest::QUIET), "");
}

}  // namespace
}  // namespace drover::stepd
