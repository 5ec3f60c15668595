#pragma once
// Where a broadcast file (sbcast, srun --bcast) lands on one node: DEST as given, or, for a DEST
// ending in '/' (a directory), the file slurm_bcast_<job_id>.<step_id>_<node> in it, as man srun
// names --bcast's copies. The controller applies it per node; srun names the copy it launches
// with it.
#include <cstdint>
#include <string>
#include <string_view>

namespace drover {

inline constexpr std::size_t kMaxBroadcastBlock = 3u << 20;   // under gRPC's 4 MiB messages

inline bool isBcastDirectory(std::string_view dest) {
  return !dest.empty() && dest.back() == '/';
}

// "slurm_bcast_12.0_node1"
inline std::string bcastFileName(std::uint64_t job_id, std::string_view step,
                                 std::string_view node) {
  std::string out = "slurm_bcast_" + std::to_string(job_id) + ".";
  out.append(step);
  out += '_';
  out.append(node);
  return out;
}

inline std::string bcastPath(std::string_view dest, std::uint64_t job_id, std::string_view step,
                             std::string_view node) {
  std::string out(dest);
  if (isBcastDirectory(dest)) out += bcastFileName(job_id, step, node);
  return out;
}

}  // namespace drover
