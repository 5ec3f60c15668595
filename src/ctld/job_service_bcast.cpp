// JobService's sbcast side: BroadcastFile checks the caller and the job on the state thread
// (ctld/bcast_targets.h), then sends the block to every node's agent (Agent.WriteFileBlock) on
// the agent RPC pool, at most the request's fanout at once (ctld/bcast_fanout.h), and answers
// once all of them did. Each block is its own
// authenticated call, so the controller checks the job again for every block: a job that ends
// mid-transfer stops it.
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <boost/asio/post.hpp>
#include <optional>

#include "common/bcast_path.h"
#include "common/errno_text.h"
#include "common/log.h"
#include "ctld/bcast_fanout.h"
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

// The answers still awaited for one block. Everything but the two counters is touched only on
// the io thread.
struct BlockFanOut {
  explicit BlockFanOut(std::size_t nodes, std::uint32_t fanout) : window(nodes, fanout) {}
  v1::BroadcastFileReply reply;
  std::vector<std::optional<v1::BroadcastNodeFailure>> failures;   // per node, in `nodes` order
  std::size_t left = 0;
  FanOutWindow window;
  std::vector<std::function<void()>> starts;   // per node: sends its block
  std::function<void(Result<v1::BroadcastFileReply>)> done;
  // The calls running on the pool, counted where they run (not where the window hands them
  // out), and the most at once: what the reply's peak_parallel_writes says.
  std::atomic<std::uint32_t> writing{0};
  std::atomic<std::uint32_t> peak{0};

  void enter() {
    const std::uint32_t now = ++writing;
    std::uint32_t seen = peak.load();
    while (now > seen && !peak.compare_exchange_weak(seen, now)) {
    }
  }

  void finish() {
    reply.set_peak_parallel_writes(peak.load());
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
    done(makeError(kInvalidJobId));
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
  const bool compressed = request.compression() != v1::BCAST_COMPRESS_NONE;
  if (compressed && request.raw_size() > kMaxBroadcastBlock) {
    done(makeError("Block of " + std::to_string(request.raw_size()) +
                   " bytes is larger than the largest block (" +
                   std::to_string(kMaxBroadcastBlock) + ")"));
    return;
  }
  const std::string& library = request.library();
  if (!library.empty() &&
      (library.find('/') != std::string::npos || library == "." || library == "..")) {
    done(makeError("Library name '" + library + "' is not a file name"));
    return;
  }
  auto fan = std::make_shared<BlockFanOut>(nodes->size(), request.fanout());
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
  block.set_compression(request.compression());
  block.set_raw_size(compressed ? request.raw_size() : request.data().size());
  block.set_make_dir(!library.empty());

  std::shared_ptr<const v1::WriteFileBlockRequest> frozen = std::move(shared);

  rpc::ClientOptions options = agentCallOptions();
  if (request.timeout_ms() > 0) options.timeout_ms = static_cast<int>(request.timeout_ms());
  fan->failures.resize(nodes->size());
  fan->left = nodes->size();
  for (const auto& node : *nodes) {
    fan->reply.add_nodes(node);
    std::string path = bcastPath(request.dest(), info.job_id(), name_step, node);
    // --send-libs: the library goes beside the node's copy of the executable.
    if (!library.empty()) path += "_libs/" + library;
    fan->reply.add_paths(std::move(path));
  }
  if (nodes->empty()) {
    fan->finish();
    return;
  }
  fan->starts.resize(nodes->size());
  for (std::size_t n = 0; n < nodes->size(); ++n) {
    const std::string& node = (*nodes)[n];
    // Runs on the io thread: records the node's answer and starts the next node, if any.
    auto settle = [this, fan, n](std::optional<v1::BroadcastNodeFailure> failure) {
      boost::asio::post(io_, [fan, n, failure = std::move(failure)]() mutable {
        fan->failures[n] = std::move(failure);
        if (auto next = fan->window.finished()) fan->starts[*next]();
        if (--fan->left == 0) {
          fan->starts.clear();   // the lambdas hold `fan`: break the cycle
          fan->finish();
        }
      });
    };
    auto channel = channelFor(node);
    if (!channel) {
      fan->starts[n] = [settle]() {
        v1::BroadcastNodeFailure failure;
        failure.set_why("node has no agent address");
        settle(std::move(failure));
      };
      continue;
    }
    std::string path = fan->reply.paths(static_cast<int>(n));
    fan->starts[n] = [this, fan, channel, node, frozen, path = std::move(path), options,
                      settle]() {
      postAgentCall([fan, channel, node, frozen, path, options, settle]() {
        v1::WriteFileBlockRequest ask = *frozen;
        ask.set_path(path);
        fan->enter();
        auto failure = writeBlock(channel, ask, options);
        --fan->writing;
        if (failure) {
          drover::log::get("ctld")->info("job {}: broadcast to {} on {} failed: {}",
                                         ask.job_id(), ask.path(), node, failure->why());
        }
        settle(std::move(failure));
      });
    };
  }
  for (const std::size_t n : fan->window.start()) fan->starts[n]();
}

}  // namespace drover::ctld
