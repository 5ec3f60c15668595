#pragma once
// Small option values: node counts, task distribution, open mode, mail types, exclusivity,
// CPU binding and MPI type.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "drover/result.h"

namespace drover::jobspec {

struct NodeRange {
  std::uint32_t min = 1;
  std::uint32_t max = 0;  // 0: no upper bound given (same as min for most purposes)
  bool operator==(const NodeRange&) const = default;
};

// "4", "2-8", "2k"; errors carry Slurm's text ("\"abc\" is not a valid node count",
// "Maximum node count 2 is less than minimum node count 3").
Result<NodeRange> parseNodeRange(std::string_view text);

enum class DistMode { Unset, Block, Cyclic, FCyclic, Arbitrary, Plane };

struct Distribution {
  DistMode nodes = DistMode::Unset;    // tasks over nodes
  DistMode sockets = DistMode::Unset;  // second level
  DistMode cores = DistMode::Unset;    // third level
  std::uint32_t plane_size = 0;  // 0 with Plane: "plane" without "=N"
  std::optional<bool> pack;  // ",Pack" / ",NoPack"
  std::string text;
  bool operator==(const Distribution&) const = default;
};

// "block", "cyclic:block", "plane=4", "*:cyclic", "block,Pack".
Result<Distribution> parseDistribution(std::string_view text);

enum class OpenMode { Append, Truncate };
Result<OpenMode> parseOpenMode(std::string_view text);

// Bit set of mail events.
namespace mail {
inline constexpr std::uint32_t kBegin = 1u << 0;
inline constexpr std::uint32_t kEnd = 1u << 1;
inline constexpr std::uint32_t kFail = 1u << 2;
inline constexpr std::uint32_t kRequeue = 1u << 3;
inline constexpr std::uint32_t kInvalidDepend = 1u << 4;
inline constexpr std::uint32_t kStageOut = 1u << 5;
inline constexpr std::uint32_t kTimeLimit = 1u << 6;
inline constexpr std::uint32_t kTimeLimit90 = 1u << 7;
inline constexpr std::uint32_t kTimeLimit80 = 1u << 8;
inline constexpr std::uint32_t kTimeLimit50 = 1u << 9;
inline constexpr std::uint32_t kArrayTasks = 1u << 10;
inline constexpr std::uint32_t kAll = kBegin | kEnd | kFail | kRequeue | kInvalidDepend | kStageOut;
}  // namespace mail
// "BEGIN,END", "ALL", "NONE" (0), "TIME_LIMIT_90", case-insensitive.
Result<std::uint32_t> parseMailType(std::string_view text);

enum class ExclusiveMode { Exclusive, User, Mcs };
// nullopt text = bare --exclusive.
Result<ExclusiveMode> parseExclusive(std::optional<std::string_view> text);

// --cpu-bind: "none", "cores", "rank", "map_cpu:0,1", "mask_cpu:0x3", "verbose,cores", ...
Result<std::string> parseCpuBind(std::string_view text);

// The MPI types Drover's supervisors serve, as srun --mpi=list lists them.
std::span<const std::string_view> mpiTypes();
// --mpi: one of mpiTypes() or "list", in any case; Slurm's pmix and cray_shasta are refused.
Result<std::string> parseMpiType(std::string_view text);

}  // namespace drover::jobspec
