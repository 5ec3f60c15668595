// scontrol notify's held messages (ctld/job_notices.h): order, the bounds, and the pruning of
// jobs whose client never came for them.
#include "ctld/job_notices.h"

#include <gtest/gtest.h>

namespace drover::ctld {
namespace {

const auto kAlwaysActive = [](std::uint64_t) { return true; };

TEST(JobNotices, TakenOnceOldestFirst) {
  JobNotices n;
  n.add(7, "one", kAlwaysActive);
  n.add(7, "two", kAlwaysActive);
  n.add(8, "other", kAlwaysActive);
  EXPECT_TRUE(n.has(7));
  EXPECT_EQ(n.take(7), (std::vector<std::string>{"one", "two"}));
  EXPECT_FALSE(n.has(7));
  EXPECT_TRUE(n.take(7).empty());
  EXPECT_EQ(n.take(8), std::vector<std::string>{"other"});
}

TEST(JobNotices, BoundedPerJobAndPerMessage) {
  JobNotices n;
  for (std::size_t i = 0; i < JobNotices::kMaxPerJob + 3; ++i)
    n.add(1, std::to_string(i), kAlwaysActive);
  n.add(2, std::string(JobNotices::kMaxBytes + 100, 'x'), kAlwaysActive);
  const auto kept = n.take(1);
  ASSERT_EQ(kept.size(), JobNotices::kMaxPerJob);
  EXPECT_EQ(kept.front(), "3");   // the three oldest went first
  EXPECT_EQ(kept.back(), std::to_string(JobNotices::kMaxPerJob + 2));
  EXPECT_EQ(n.take(2).front().size(), JobNotices::kMaxBytes);
}

TEST(JobNotices, JobsThatEndedAreDroppedOnceManyHaveMessages) {
  JobNotices n;
  std::size_t asked = 0;
  auto odd_active = [&](std::uint64_t job) {
    ++asked;
    return job % 2 == 1;
  };
  for (std::uint64_t job = 1; job < 64; ++job) n.add(job, "m", odd_active);
  EXPECT_EQ(asked, 0u) << "looked for ended jobs before many had messages";
  n.add(64, "m", odd_active);
  EXPECT_GT(asked, 0u);
  EXPECT_TRUE(n.has(63));
  EXPECT_FALSE(n.has(62));
  EXPECT_TRUE(n.has(64)) << "the job just notified is kept";
  EXPECT_EQ(n.jobs(), 33u);
  // Not looked at again until as many more jobs have messages.
  asked = 0;
  n.add(100, "m", odd_active);
  EXPECT_EQ(asked, 0u);
}

}  // namespace
}  // namespace drover::ctld
