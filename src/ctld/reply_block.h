#pragma once
// Memory a large reply is built in, kept from one request to the next. A squeue over thousands
// of jobs builds megabytes of rows on a protobuf arena; freshly allocated, every page of them
// is a page fault on each call (a third of the controller's time per squeue over 5,000 jobs on
// the paravirtualized VM, docs/performance.md). Given to the arena as its first block, this
// memory stays mapped: the next reply reuses it. It grows to the largest reply seen (a
// quarter more, in 2 MiB steps, transparent huge pages where the kernel offers them) up to a
// cap, and never shrinks. One per handler, used from the controller's state thread only.
#include <cstddef>

namespace drover::ctld {

class ReplyBlock {
 public:
  static constexpr std::size_t kMaxBytes = std::size_t{64} << 20;

  ReplyBlock() = default;
  ReplyBlock(const ReplyBlock&) = delete;
  ReplyBlock& operator=(const ReplyBlock&) = delete;
  ~ReplyBlock();

  char* data() const { return data_; }
  std::size_t size() const { return size_; }

  // After a reply that used `bytes` in all: grows so the next one of that size fits. The
  // memory replaced stays mapped until the next growth, so an arena still built on it (its
  // destructor walks its blocks) is never left on unmapped memory.
  void fit(std::size_t bytes);

 private:
  char* data_ = nullptr;
  std::size_t size_ = 0;
  char* retired_ = nullptr;   // the block before the last growth
  std::size_t retired_size_ = 0;
};

}  // namespace drover::ctld
