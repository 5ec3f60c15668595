// JobService's sbcast side: BroadcastFile checks the caller and the job on the state thread
// (ctld/bcast_targets.h), then sends the block to every node's agent (Agent.WriteFileBlock) in
// parallel on the agent RPC pool and answers once all of them did. Each block is its own
// authenticated call, so the controller checks the job again for every block: a job that ends
// mid-transfer stops it.
#include <grpcpp/grpcpp.h>

#include <boost/asio/post.hpp>
#include <optional>

#include "common/bcast_path.h"
#include "common/errno_text.h"
#include "common/log.h"
#include "ctld/bcast_targets.h"
#include "ctld/job_service.h"
#include "drover/v1/agent.grpc.pb.h"
#include "rpc/client.h"

namespace drover::ctld {
namespace {

// One WriteFileBlock, blocking (run it on the pool): nullopt = written, else why not (its
// node still to be set).
std::optional<v1::BroadcastNodeFailure> writeBlock(const std::shared_ptr<grpc::Channel>& channel,
                                                   const v1::WriteFileBlockRequest& request,
                                                   const rpc::ClientOptions& options) {
  v1::BroadcastNodeFailure failure;
  grpc::ClientContext ctx;
  auto prepared = rpc::prepareCall(ctx, "/drover.v1.Agent/WriteFileBlock", request, options);
  if (!prepared) {
    failure.set_why(prepared.error());
    return failure;
  }
  v1::WriteFileBlockReply reply;
  const grpc::Status st = v1::Agent::NewStub(channel)->WriteFileBlock(&ctx, request, &reply);
  if (st.ok()) {
    if (reply.error_number() == 0) return std::nullopt;
    failure.set_error_number(reply.error_number());
    failure.set_why(errnoText(reply.error_number()));
  } else if (st.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    failure.set_why("Socket timed out on send/recv operation");   // Slurm's text
  } else {
    failure.set_why(st.error_message().empty() ? "agent unreachable" : st.error_message());
  }
  return failure;
}

// The answers still awaited for one block.
struct BlockFanOut {
  v1::BroadcastFileReply reply;
  std::vector<std::optional<v1::BroadcastNodeFailure>> failures;   // per node, in `nodes` order
  std::size_t left = 0;
  std::function<void(Result<v1::BroadcastFileReply>)> done;

  void finish() {
    for (std::size_t i = 0; i < failures.size(); ++i) {
      if (!failures[i]) continue;
      failures[i]->set_node(reply.nodes(static_cast<int>(i)));
      *reply.add_failures() = std::move(*failures[i]);
    }
    done(std::move(reply));
  }
};

}  // namespace

void JobService::broadcastFile(const rpc::Caller& caller, const v1::BroadcastFileRequest& request,
                               std::function<void(Result<v1::BroadcastFileReply>)> done) {
  const jobs::Job* found = manager_->find(request.job_id());
  if (found == nullptr || found->unsplit()) {
    done(makeError(kBcastInvalidJob));
    return;
  }
  if (request.dest().empty() || request.dest().front() != '/') {
    done(makeError("Destination must be an absolute path"));
    return;
  }
  if (request.data().size() > kMaxBroadcastBlock) {
    done(makeError("Block of " + std::to_string(request.data().size()) +
                   " bytes is larger than the largest block (" +
                   std::to_string(kMaxBroadcastBlock) + ")"));
    return;
  }
  const bool allowed =
      found->info.uid() == caller.uid || manager_->isAdmin(jobCaller(caller));
  std::optional<std::int64_t> step;
  if (request.has_step_id()) step = request.step_id();
  auto nodes = bcastNodes(found->info, allowed, step);
  if (!nodes) {
    done(makeError(nodes.error()));
    return;
  }
  auto fan = std::make_shared<BlockFanOut>();
  fan->done = std::move(done);
  std::string name_step = request.name_step();
  if (request.reserve_step() && request.offset() == 0) {
    // The job is staged with its next step id moved; the commit that follows makes it durable.
    const std::int64_t reserved = manager_->reserveStepId(found->id());
    afterCommit({});
    fan->reply.set_reserved_step_id(reserved);
    name_step = std::to_string(reserved);
  }
  const v1::JobInfo& info = found->info;
  // One copy of the block for all nodes; each node's request is made on the pool when its
  // call runs, so at most the pool's threads hold another copy (not one per node at once).
  auto shared = std::make_shared<v1::WriteFileBlockRequest>();
  v1::WriteFileBlockRequest& block = *shared;
  block.set_job_id(info.job_id());
  block.set_uid(info.uid());
  block.set_gid(info.gid());
  block.set_user(info.user());
  block.set_offset(request.offset());
  block.set_data(request.data());
  block.set_last(request.last());
  block.set_force(request.force());
  block.set_preserve(request.preserve());
  block.set_mode(request.mode());
  block.set_atime(request.atime());
  block.set_mtime(request.mtime());

  std::shared_ptr<const v1::WriteFileBlockRequest> frozen = std::move(shared);

  rpc::ClientOptions options = agentCallOptions();
  if (request.timeout_ms() > 0) options.timeout_ms = static_cast<int>(request.timeout_ms());
  fan->failures.resize(nodes->size());
  fan->left = nodes->size();
  for (const auto& node : *nodes) {
    fan->reply.add_nodes(node);
    fan->reply.add_paths(bcastPath(request.dest(), info.job_id(), name_step, node));
  }
  for (std::size_t n = 0; n < nodes->size(); ++n) {
    const std::string& node = (*nodes)[n];
    auto settle = [this, fan, n](std::optional<v1::BroadcastNodeFailure> failure) {
      boost::asio::post(io_, [fan, n, failure = std::move(failure)]() mutable {
        fan->failures[n] = std::move(failure);
        if (--fan->left == 0) fan->finish();
      });
    };
    auto channel = channelFor(node);
    if (!channel) {
      v1::BroadcastNodeFailure failure;
      failure.set_why("node has no agent address");
      settle(std::move(failure));
      continue;
    }
    std::string path = fan->reply.paths(static_cast<int>(n));
    postAgentCall([channel, node, frozen, path = std::move(path), options, settle]() {
      v1::WriteFileBlockRequest ask = *frozen;
      ask.set_path(path);
      auto failure = writeBlock(channel, ask, options);
      if (failure) {
        drover::log::get("ctld")->info("job {}: broadcast to {} on {} failed: {}", ask.job_id(),
                                       ask.path(), node, failure->why());
      }
      settle(std::move(failure));
    });
  }
}

}  // namespace drover::ctld
