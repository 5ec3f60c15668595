#include "stepd/launcher_protocol.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>

namespace drover::stepd {
namespace {

constexpr std::string_view kOrderTag = "launch";
constexpr std::string_view kPidTag = "pid";
constexpr std::string_view kErrorTag = "error";

void putU32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::uint32_t getU32(std::string_view bytes) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= std::uint32_t(static_cast<unsigned char>(bytes[i])) << (8 * i);
  return v;
}

std::string encodeStrings(const std::vector<std::string_view>& items) {
  std::size_t size = 4;
  for (auto item : items) size += 4 + item.size();
  std::string out;
  out.reserve(size);
  putU32(out, static_cast<std::uint32_t>(items.size()));
  for (auto item : items) {
    putU32(out, static_cast<std::uint32_t>(item.size()));
    out.append(item);
  }
  return out;
}

// `what` names the message in errors ("launch order", "launch reply").
Result<std::vector<std::string>> decodeStrings(std::string_view payload, const char* what) {
  const std::string prefix = std::string("launcher ") + what + ": ";
  if (payload.size() < 4) {
    return makeError(prefix + std::to_string(payload.size()) +
                     " bytes, too short for the 4-byte string count");
  }
  const std::uint32_t count = getU32(payload);
  payload.remove_prefix(4);
  // Each string takes at least its 4-byte length: a larger count cannot be true.
  if (count > payload.size() / 4) {
    return makeError(prefix + "claims " + std::to_string(count) + " strings in " +
                     std::to_string(payload.size()) + " bytes");
  }
  std::vector<std::string> out;
  out.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    if (payload.size() < 4) {
      return makeError(prefix + "string " + std::to_string(i + 1) + " of " +
                       std::to_string(count) + " has no length (message cut short)");
    }
    const std::uint32_t len = getU32(payload);
    payload.remove_prefix(4);
    if (len > payload.size()) {
      return makeError(prefix + "string " + std::to_string(i + 1) + " of " +
                       std::to_string(count) + " claims " + std::to_string(len) + " bytes, " +
                       std::to_string(payload.size()) + " left");
    }
    out.emplace_back(payload.substr(0, len));
    payload.remove_prefix(len);
  }
  if (!payload.empty()) {
    return makeError(prefix + std::to_string(payload.size()) +
                     " bytes after the last string (expected none)");
  }
  return out;
}

std::string errnoText() { return std::strerror(errno); }

}  // namespace

std::string encodeLaunchOrder(const LaunchOrder& order) {
  std::vector<std::string_view> items{kOrderTag, order.log_path, order.request};
  for (const auto& arg : order.argv) items.push_back(arg);
  return encodeStrings(items);
}

Result<LaunchOrder> decodeLaunchOrder(std::string_view payload) {
  auto items = decodeStrings(payload, "launch order");
  if (!items) return makeError(items.error());
  if (items->empty() || (*items)[0] != kOrderTag) {
    return makeError("launcher launch order: the first string must be \"launch\"" +
                     (items->empty() ? std::string(", the order is empty")
                                     : ", not \"" + (*items)[0].substr(0, 32) + "\""));
  }
  // log path, request, and at least argv[0]
  if (items->size() < 4) {
    return makeError("launcher launch order: " + std::to_string(items->size()) +
                     " strings; expected \"launch\", the log path, the request and argv "
                     "(at least argv[0])");
  }
  LaunchOrder order;
  order.log_path = std::move((*items)[1]);
  order.request = std::move((*items)[2]);
  order.argv.assign(std::make_move_iterator(items->begin() + 3),
                    std::make_move_iterator(items->end()));
  if (order.log_path.empty()) return makeError("launcher launch order: the log path is empty");
  return order;
}

std::string encodeLaunchReply(const LaunchReply& reply) {
  if (reply.pid > 0) {
    const std::string pid = std::to_string(reply.pid);
    return encodeStrings({kPidTag, pid});
  }
  return encodeStrings({kErrorTag, reply.error});
}

Result<LaunchReply> decodeLaunchReply(std::string_view payload) {
  auto items = decodeStrings(payload, "launch reply");
  if (!items) return makeError(items.error());
  if (items->size() != 2) {
    return makeError("launcher launch reply: " + std::to_string(items->size()) +
                     " strings; expected 2 (\"pid\" and a pid, or \"error\" and a message)");
  }
  const std::string& tag = (*items)[0];
  const std::string& value = (*items)[1];
  LaunchReply reply;
  if (tag == kErrorTag) {
    reply.error = value.empty() ? "the launcher gave no reason" : value;
    return reply;
  }
  if (tag != kPidTag) {
    return makeError("launcher launch reply: unknown kind \"" + tag.substr(0, 32) +
                     "\" (expected \"pid\" or \"error\")");
  }
  long long pid = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), pid);
  if (ec != std::errc() || end != value.data() + value.size() || pid <= 0 ||
      pid > 0x7fffffff) {
    return makeError("launcher launch reply: \"" + value.substr(0, 32) +
                     "\" is not a process id (a positive decimal number)");
  }
  reply.pid = static_cast<pid_t>(pid);
  return reply;
}

std::string frameMessage(std::string_view payload) {
  std::string out;
  out.reserve(4 + payload.size());
  putU32(out, static_cast<std::uint32_t>(payload.size()));
  out.append(payload);
  return out;
}

Status writeFrame(int fd, std::string_view payload) {
  if (payload.size() > kMaxLauncherFrame) {
    return makeError("launcher message of " + std::to_string(payload.size()) +
                     " bytes is over the limit of " + std::to_string(kMaxLauncherFrame));
  }
  const std::string bytes = frameMessage(payload);
  struct stat st {};
  const bool socket = ::fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = socket ? ::send(fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL)
                             : ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return makeError("cannot write to the launcher connection: " + errnoText());
    }
    done += static_cast<std::size_t>(n);
  }
  return okStatus();
}

Result<std::optional<std::string>> readFrame(int fd, int timeout_ms) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
  // Reads exactly `want` bytes into `out`; returns how many came before the end of the stream.
  auto readExactly = [&](char* out, std::size_t want) -> Result<std::size_t> {
    std::size_t got = 0;
    while (got < want) {
      if (timeout_ms >= 0) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                              deadline - Clock::now())
                              .count();
        pollfd p{fd, POLLIN, 0};
        const int ready = left > 0 ? ::poll(&p, 1, static_cast<int>(left)) : 0;
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) return makeError("cannot wait for the launcher connection: " + errnoText());
        if (ready == 0) {
          return makeError("no complete launcher message within " + std::to_string(timeout_ms) +
                           " ms (" + std::to_string(got) + " of " + std::to_string(want) +
                           " bytes came)");
        }
      }
      const ssize_t n = ::read(fd, out + got, want - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return makeError("cannot read the launcher connection: " + errnoText());
      if (n == 0) break;
      got += static_cast<std::size_t>(n);
    }
    return got;
  };
  char head[4];
  auto got = readExactly(head, sizeof head);
  if (!got) return makeError(got.error());
  if (*got == 0) return std::optional<std::string>();
  if (*got < sizeof head) {
    return makeError("launcher connection closed inside a frame's length (" +
                     std::to_string(*got) + " of 4 bytes)");
  }
  const std::uint32_t len = getU32(std::string_view(head, sizeof head));
  if (len > kMaxLauncherFrame) {
    return makeError("launcher frame of " + std::to_string(len) + " bytes is over the limit of " +
                     std::to_string(kMaxLauncherFrame));
  }
  std::string payload(len, '\0');
  got = readExactly(payload.data(), len);
  if (!got) return makeError(got.error());
  if (*got < len) {
    return makeError("launcher connection closed inside a frame (" + std::to_string(*got) +
                     " of " + std::to_string(len) + " bytes)");
  }
  return std::optional<std::string>(std::move(payload));
}

}  // namespace drover::stepd
