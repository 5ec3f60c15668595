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

int broadcastExitCode(const std::string& lines) {
  if (lines.rfind("Slurm job ", 0) == 0 || lines.rfind("Can't open ", 0) == 0) return 255;
  constexpr std::string_view kNode = "REQUEST_FILE_BCAST(";
  if (lines.rfind(kNode, 0) != 0) return 1;
  // The agents send strerror's text; the first line's names the errno Slurm exits with.
  const auto why_at = lines.find("): ");
  if (why_at == std::string::npos) return 1;
  const std::string why = lines.substr(why_at + 3, lines.find('\n') - why_at - 3);
  for (int e = 1; e < 134; ++e) {
    if (why == errnoText(e)) return e;
  }
  return 1;
}

std::size_t boundedBlockSize(std::uint64_t asked) {
  if (asked == 0) return kMaxBroadcastBlock;
  return static_cast<std::size_t>(
      std::clamp<std::uint64_t>(asked, kMinBlock, kMaxBroadcastBlock));
}

Result<BroadcastResult> broadcastFile(ControllerClient& client, const BroadcastPlan& plan) {
  const int fd = ::open(plan.source.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return makeError("Can't open `" + plan.source + "`: " + errnoText(errno));
  UniqueFd closer(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    return makeError("Can't stat `" + plan.source + "`: " + errnoText(errno));
  }
  if (S_ISDIR(st.st_mode)) return makeError("Can't open `" + plan.source + "`: Is a directory");

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
  // The controller waits for the nodes, then answers: its own message time on top.
  const int call_timeout_ms =
      (plan.timeout_ms > 0 ? plan.timeout_ms : client.address().timeout_ms) +
      client.address().timeout_ms;

  BroadcastResult result;
  std::string data;
  // Read one block ahead, so the block that ends the file is marked last (a file whose size
  // is a multiple of the block size needs no empty block after it).
  if (auto s = readBlock(fd, block, &data); !s) {
    return makeError("Can't read `" + plan.source + "`: " + s.error());
  }
  std::string next;
  std::uint64_t offset = 0;
  for (;;) {
    bool last = data.size() < block;
    if (!last) {
      if (auto s = readBlock(fd, block, &next); !s) {
        return makeError("Can't read `" + plan.source + "`: " + s.error());
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
    request.set_data(std::move(data));
    auto reply = client.broadcastFile(request, call_timeout_ms);
    if (!reply) {
      const FailureKind kind = client.lastFailure();
      if (kind != FailureKind::kNotFound && kind != FailureKind::kInvalid &&
          kind != FailureKind::kDenied) {
        return makeError(reply.error());
      }
      return makeError("Slurm job " + std::to_string(plan.job_id) +
                       " lookup error: " + reply.error());
    }
    if (offset == 0) {
      result.nodes.assign(reply->nodes().begin(), reply->nodes().end());
      result.paths.assign(reply->paths().begin(), reply->paths().end());
      if (plan.reserve_step) result.reserved_step_id = reply->reserved_step_id();
    }
    if (reply->node_errors_size() > 0) {
      std::string lines;
      for (const auto& e : reply->node_errors()) {
        // "node: why" -> Slurm's "REQUEST_FILE_BCAST(node): why".
        const auto colon = e.find(": ");
        if (!lines.empty()) lines += '\n';
        lines += colon == std::string::npos
                     ? "REQUEST_FILE_BCAST: " + e
                     : "REQUEST_FILE_BCAST(" + e.substr(0, colon) + "): " + e.substr(colon + 2);
      }
      return makeError(lines);
    }
    offset += size;
    result.bytes = offset;
    ++result.blocks;
    if (last) break;
    data = std::move(*request.mutable_data());
    data.swap(next);
  }
  return result;
}

}  // namespace drover::cli
