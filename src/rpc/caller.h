#pragma once
// Who made an RPC, as the MUNGE credential proved it (never as the request claims).
#include <cstdint>

namespace drover::rpc {

struct Caller {
  uint32_t uid = 0;
  uint32_t gid = 0;
};

}  // namespace drover::rpc
