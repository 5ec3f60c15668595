// The memory large replies are built in, kept between requests: how it grows, and that an
// arena built on it holds what is built there and leaves it mapped for the next request.
#include "ctld/reply_block.h"

#include <google/protobuf/arena.h>

#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "drover/v1/jobs.pb.h"

namespace drover::ctld {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

TEST(ReplyBlock, GrowsToTheLargestReplyInHugePageStepsUpToItsCap) {
  ReplyBlock block;
  EXPECT_EQ(block.data(), nullptr);
  EXPECT_EQ(block.size(), 0u);
  block.fit(1000);
  EXPECT_EQ(block.size(), 2 * kMiB);
  ASSERT_NE(block.data(), nullptr);
  std::memset(block.data(), 0xab, block.size());   // writable, all of it
  block.fit(kMiB);                                   // smaller: kept as it is
  EXPECT_EQ(block.size(), 2 * kMiB);
  block.fit(3 * kMiB);                               // 3 MiB and a quarter more: 4 MiB
  EXPECT_EQ(block.size(), 4 * kMiB);
  block.fit(std::size_t{1} << 30);                   // capped
  EXPECT_EQ(block.size(), ReplyBlock::kMaxBytes);
  block.fit(std::size_t{2} << 30);                   // and stays so
  EXPECT_EQ(block.size(), ReplyBlock::kMaxBytes);
}

TEST(ReplyBlock, AnArenaOnItBuildsRepliesRequestAfterRequest) {
  ReplyBlock block;
  for (int request = 0; request < 3; ++request) {
    google::protobuf::ArenaOptions options;
    options.start_block_size = 64 << 10;
    options.max_block_size = 4 << 20;
    options.initial_block = block.data();
    options.initial_block_size = block.size();
    std::string bytes;
    std::size_t used = 0;
    {
      google::protobuf::Arena arena(options);
      auto* reply = google::protobuf::Arena::CreateMessage<v1::GetJobsReply>(&arena);
      for (int i = 0; i < 5000; ++i) {
        v1::JobInfo* job = reply->add_jobs();
        job->set_job_id(static_cast<std::uint64_t>(i + 1));
        job->set_name("job-with-a-name-longer-than-the-small-string-buffer-" + std::to_string(i));
      }
      ASSERT_TRUE(reply->SerializeToString(&bytes));
      used = arena.SpaceAllocated();
    }
    block.fit(used);
    v1::GetJobsReply parsed;
    ASSERT_TRUE(parsed.ParseFromString(bytes));
    ASSERT_EQ(parsed.jobs_size(), 5000);
    EXPECT_EQ(parsed.jobs(4999).name(), "job-with-a-name-longer-than-the-small-string-buffer-4999");
    // From the second request on, the whole reply fits in the kept block.
    if (request > 0) {
      EXPECT_LE(used, block.size());
    }
  }
}

// Growing while an arena still stands on the block (its destructor walks the block's cleanup
// list): the replaced memory must still be mapped then. (A first version unmapped it at once;
// the controller crashed at the first squeue that outgrew the block.)
TEST(ReplyBlock, GrowingUnderALiveArenaLeavesItsMemoryMapped) {
  ReplyBlock block;
  block.fit(1);
  for (int growth = 0; growth < 3; ++growth) {
    google::protobuf::ArenaOptions options;
    options.initial_block = block.data();
    options.initial_block_size = block.size();
    google::protobuf::Arena arena(options);
    auto* reply = google::protobuf::Arena::CreateMessage<v1::GetJobsReply>(&arena);
    for (int i = 0; i < 100; ++i) reply->add_jobs()->set_name(std::string(100, 'x') + std::to_string(i));
    block.fit(block.size() + (std::size_t{4} << 20));   // grows now, the arena not yet gone
    EXPECT_EQ(reply->jobs(99).name(), std::string(100, 'x') + "99");
  }   // each arena is destroyed here, on the block it was given
}

}  // namespace
}  // namespace drover::ctld
