#pragma once
// sdiag's "Remote Procedure Call statistics by message type" names each RPC as Slurm names its
// messages (REQUEST_SUBMIT_BATCH_JOB (4003)): Drover's methods get Slurm-like upper-case names
// and a stable numeric id of their own here. Ids are never reused or renumbered; a new method
// gets the next free id of its service (Controller 2001.., AgentControl 1001..).
#include <cstdint>
#include <string_view>

namespace drover::ctld {

struct RpcId {
  std::string_view name;  // "REQUEST_SUBMIT_JOB"
  std::uint32_t id = 0;   // 0: a method this table does not know
};

// `method`: the short method name ("SubmitJob", "StepEvent"). An unknown method keeps its own
// name with id 0, so a new RPC still shows up before it gets its row (rpc_ids_test checks
// that every served method has one).
RpcId rpcId(std::string_view method);

}  // namespace drover::ctld
