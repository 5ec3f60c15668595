#include "ctld/reply_block.h"

#include <sys/mman.h>

namespace drover::ctld {
namespace {

constexpr std::size_t kStep = std::size_t{2} << 20;   // a transparent huge page

}  // namespace

ReplyBlock::~ReplyBlock() {
  if (data_ != nullptr) ::munmap(data_, size_);
  if (retired_ != nullptr) ::munmap(retired_, retired_size_);
}

void ReplyBlock::fit(std::size_t bytes) {
  if (bytes <= size_ || size_ >= kMaxBytes) return;
  std::size_t want = (bytes + bytes / 4 + kStep - 1) / kStep * kStep;
  if (want > kMaxBytes) want = kMaxBytes;
  void* p = ::mmap(nullptr, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return;   // the arena allocates as it did without one
  (void)::madvise(p, want, MADV_HUGEPAGE);
  // The block retired at the growth before is unused by now: an arena lives for one request.
  if (retired_ != nullptr) ::munmap(retired_, retired_size_);
  retired_ = data_;
  retired_size_ = size_;
  data_ = static_cast<char*>(p);
  size_ = want;
}

}  // namespace drover::ctld
