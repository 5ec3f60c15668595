// What an MPI task writes on its PMI socket (pmi/wire.h, pmi/node_server.h). Input: the bytes
// of two tasks, interleaved in chunks: the first byte of each chunk says whose and how long it
// is, and whether srun finishes the pending fence first. Checks: every command the reader
// takes reads back the same after encoding (so the server's replies, made the same way, are
// what the client meant); the reader always progresses; a node's fences are numbered 1, 2, ...;
// a server never answers a task it found broken.
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "pmi/node_server.h"
#include "pmi/wire.h"

namespace {

using namespace drover::pmi;

void checkRoundTrip(std::string_view input) {
  CommandReader reader;
  reader.append(input);
  Command c;
  std::string error;
  for (int guard = 0;; ++guard) {
    FUZZ_CHECK(guard <= static_cast<int>(input.size()) + 1, "the reader made no progress");
    const Wire wire = reader.wire();
    const auto next = reader.next(c, error);
    if (next != CommandReader::Next::kCommand) {
      FUZZ_CHECK(next == CommandReader::Next::kNeedMore || !error.empty(), "an error without a why");
      return;
    }
    if (wire == Wire::kLines && c.name.find_first_of(" \t\r\n") != std::string::npos) continue;
    CommandReader again;
    if (wire == Wire::kFramed) again.useFramedWire();
    again.append(encode(wire, c.name, c.args));
    Command back;
    std::string back_error;
    FUZZ_CHECK(again.next(back, back_error) == CommandReader::Next::kCommand, "re-read failed: %s",
               back_error.c_str());
    FUZZ_CHECK(back.name == c.name && back.args == c.args, "re-read differs for '%s'", c.name.c_str());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  checkRoundTrip(input);

  NodeServer server({"1.0", 3, {0, 2}});
  server.start("(vector,(0,2,1),(0,1,1))");
  std::uint32_t last_fence = 0;
  for (std::size_t at = 0; at < input.size();) {
    const auto control = static_cast<std::uint8_t>(input[at++]);
    const std::size_t task = control & 1;
    const std::size_t length = std::min<std::size_t>((control >> 2) + 1, input.size() - at);
    const std::string_view chunk = input.substr(at, length);
    at += length;
    const bool was_broken = !server.protocolError(task).empty();
    server.received(task, chunk);
    if (was_broken) FUZZ_CHECK(server.takeOutput(task).empty(), "answered a broken task");
    if (control & 2) server.closed(task);
    if (auto fence = server.takeFence()) {
      FUZZ_CHECK(fence->sequence == last_fence + 1, "fence %u after %u", fence->sequence, last_fence);
      last_fence = fence->sequence;
      server.fenceDone(fence->sequence, fence->pairs);
    }
    server.takeOutput(0);
    server.takeOutput(1);
    server.takeAborts();
  }
  return 0;
}
