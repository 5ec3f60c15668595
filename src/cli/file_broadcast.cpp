#include "cli/file_broadcast.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "cli/cli_common.h"
#include "common/bcast_path.h"
#include "common/errno_text.h"
#include "common/unique_fd.h"

namespace drover::cli {
namespace {

constexpr std::size_t kMinBlock = 1024;

// Fills `out` with up to `size` bytes; fewer only at the end of the file.
Status readBlock(int fd, std::size_t size, std::string* out) {
  out->resize(size);
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = ::read(fd, out->data() + got, size - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      return makeError(errnoText(errno));
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  out->resize(got);
  return okStatus();
}

}  // namespace

void printBroadcastError(std::string_view prog, const std::string& lines) {
  std::size_t start = 0;
  for (;;) {
    const auto nl = lines.find('\n', start);
    printError(prog, lines.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
}

std::size_t boundedBlockSize(std::uint64_t asked) {
  if (asked == 0) return kMaxBroadcastBlock;
  return static_cast<std::size_t>(
      std::clamp<std::uint64_t>(asked, kMinBlock, kMaxBroadcastBlock));
}

BroadcastOutcome broadcastFile(ControllerClient& client, const BroadcastPlan& plan) {
  const int fd = ::open(plan.source.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return BroadcastFailure{"Can't open `" + plan.source + "`: " + errnoText(errno), 255};
  UniqueFd closer(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    return BroadcastFailure{"Can't stat `" + plan.source + "`: " + errnoText(errno)};
  }
  if (S_ISDIR(st.st_mode)) {
    return BroadcastFailure{"Can't open `" + plan.source + "`: Is a directory", 255};
  }

  const std::size_t block = boundedBlockSize(plan.block_size);
  v1::BroadcastFileRequest request;
  request.set_job_id(plan.job_id);
  if (plan.step_id) request.set_step_id(*plan.step_id);
  request.set_dest(plan.dest);
  request.set_name_step(plan.name_step);
  request.set_force(plan.force);
  request.set_preserve(plan.preserve);
  request.set_mode(static_cast<std::uint32_t>(st.st_mode & 07777));
  request.set_atime(st.st_atim.tv_sec);
  request.set_mtime(st.st_mtim.tv_sec);
  if (plan.timeout_ms > 0) request.set_timeout_ms(static_cast<std::uint32_t>(plan.timeout_ms));
  request.set_fanout(plan.fanout);
  request.set_library(plan.library);
  // The controller waits for the nodes, then answers: its own message time on top.
  const int call_timeout_ms =
      (plan.timeout_ms > 0 ? plan.timeout_ms : client.address().timeout_ms) +
      client.address().timeout_ms;

  BroadcastResult result;
  std::string data;
  // Read one block ahead, so the block that ends the file is marked last (a file whose size
  // is a multiple of the block size needs no empty block after it).
  if (auto s = readBlock(fd, block, &data); !s) {
    return BroadcastFailure{"Can't read `" + plan.source + "`: " + s.error()};
  }
  std::string next;
  std::uint64_t offset = 0;
  for (;;) {
    bool last = data.size() < block;
    if (!last) {
      if (auto s = readBlock(fd, block, &next); !s) {
        return BroadcastFailure{"Can't read `" + plan.source + "`: " + s.error()};
      }
      last = next.empty();
    }
    request.set_offset(offset);
    request.set_last(last);
    request.set_reserve_step(plan.reserve_step && offset == 0);
    if (plan.reserve_step && offset > 0) {
      request.set_name_step(std::to_string(result.reserved_step_id));
    }
    const std::size_t size = data.size();
    if (plan.codec != BcastCodec::kNone) {
      CompressedBlock packed = compressBlock(plan.codec, data);
      request.set_compression(static_cast<v1::BroadcastCompression>(packed.codec));
      request.set_raw_size(size);
      request.set_data(std::move(packed.data));
    } else {
      request.set_data(std::move(data));
    }
    result.wire_bytes += request.data().size();
    auto reply = client.broadcastFile(request, call_timeout_ms);
    if (!reply) {
      const FailureKind kind = client.lastFailure();
      if (kind != FailureKind::kNotFound && kind != FailureKind::kInvalid &&
          kind != FailureKind::kDenied) {
        return BroadcastFailure{reply.error()};
      }
      return BroadcastFailure{
          "Slurm job " + std::to_string(plan.job_id) + " lookup error: " + reply.error(), 255};
    }
    if (offset == 0) {
      result.nodes.assign(reply->nodes().begin(), reply->nodes().end());
      result.paths.assign(reply->paths().begin(), reply->paths().end());
      if (plan.reserve_step) result.reserved_step_id = reply->reserved_step_id();
    }
    if (reply->failures_size() > 0) {
      BroadcastFailure failed;
      for (const auto& f : reply->failures()) {
        if (!failed.lines.empty()) failed.lines += '\n';
        failed.lines += "REQUEST_FILE_BCAST(" + f.node() + "): " + f.why();
      }
      // The first node's errno, as the reference's sbcast exited (not one: 1).
      const int first = reply->failures(0).error_number();
      if (first > 0 && first < 256) failed.exit_code = first;
      return failed;
    }
    offset += size;
    result.bytes = offset;
    ++result.blocks;
    result.peak_parallel_writes =
        std::max(result.peak_parallel_writes, reply->peak_parallel_writes());
    if (last) break;
    // Reuse the sent block's buffer for the next read (with -C `data` still holds it).
    if (plan.codec == BcastCodec::kNone) data = std::move(*request.mutable_data());
    data.swap(next);
  }
  return result;
}

}  // namespace drover::cli
