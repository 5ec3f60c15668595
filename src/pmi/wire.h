#pragma once
// The two PMI wire protocols an MPI library speaks on the socket PMI_FD names (what Slurm's
// `srun --mpi=pmi2` serves, and MPICH's simple PMI client, Open MPI's s1/s2 and Intel MPI use):
//
//   PMI-1  one command a line, space-separated: "cmd=put kvsname=12.0 key=k value=v\n".
//          A spawn request takes several lines: "mcmd=spawn\n", "key=value\n"..., "endcmd\n".
//   PMI-2  "34    cmd=kvs-put;key=k;value=v;": a 6-character decimal length (left-justified,
//          blank-padded), then that many bytes of "key=value;" items; a ';' inside a key or a
//          value is doubled.
//
// Clients open with PMI-1's "cmd=init pmi_version=N pmi_subversion=M"; one that asked for
// version 2 speaks PMI-2 after the reply (the server calls useFramedWire()). A connection whose
// first byte is a digit or a blank is PMI-2 from its start.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace drover::pmi {

enum class Wire { kLines, kFramed };   // PMI-1, PMI-2

using Pairs = std::vector<std::pair<std::string, std::string>>;

struct Command {
  std::string name;   // "init", "kvs-put", ...; an mcmd block's own name ("spawn")
  Pairs args;         // in the order written, without "cmd"/"mcmd"
  // The first value of `key`, or null.
  const std::string* find(std::string_view key) const;
};

class CommandReader {
 public:
  // Longer commands are refused: MPICH's own limits are a few KiB.
  static constexpr std::size_t kMaxCommandBytes = 64 * 1024;
  enum class Next { kCommand, kNeedMore, kError };

  void append(std::string_view bytes) { buffer_.append(bytes); }
  // On kCommand `out` holds the next command; on kError `error` says what was wrong (the
  // connection is then beyond repair: nothing more is read from it).
  Next next(Command& out, std::string& error);
  void useFramedWire() { wire_ = Wire::kFramed; }
  // The wire of the next command (PMI-1 until the first byte says otherwise).
  Wire wire() const { return wire_.value_or(Wire::kLines); }

 private:
  Next nextLine(Command& out, std::string& error);
  Next nextFrame(Command& out, std::string& error);

  std::string buffer_;
  std::size_t start_ = 0;
  std::optional<Wire> wire_;
};

// One reply in the given wire's syntax: "cmd=NAME k=v ...\n" or "LLLLLLcmd=NAME;k=v;...".
// PMI-1 values cannot hold blanks or newlines: the caller passes ones without.
std::string encode(Wire wire, std::string_view name, const Pairs& args);

// The items of one PMI-2 body ("cmd=x;a=b;;c;"), ';;' read as ';'; nullopt when malformed.
std::optional<Pairs> parseFramedBody(std::string_view body);

}  // namespace drover::pmi
