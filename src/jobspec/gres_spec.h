#pragma once
// --gres=gpu:h100:2,nvme:1 and the typed GPU counts of --gpus / --gpus-per-node / --gpus-per-task.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drover/result.h"

namespace drover::jobspec {

struct GresRequest {
  std::string name;                 // "gpu"
  std::optional<std::string> type;  // "h100"
  std::uint64_t count = 1;
  bool operator==(const GresRequest&) const = default;
};

// "gpu", "gpu:2", "gpu:h100:2", "gpu:h100" (count 1), comma separated; "gres/gpu:2" accepted.
// "none" gives an empty list (Slurm: clears an inherited --gres).
Result<std::vector<GresRequest>> parseGresList(std::string_view text);

// Slurm's canonical text: "gpu:h100:2" / "gpu:2".
std::string formatGres(const GresRequest& gres);

struct GpuCount {
  std::optional<std::string> type;
  std::uint64_t count = 0;
  bool operator==(const GpuCount&) const = default;
};

// "[type:]count" as --gpus, --gpus-per-node and --gpus-per-task take it. Count must be >= 1
// except 0 which Slurm accepts to mean "none".
Result<GpuCount> parseGpuCount(std::string_view text);

}  // namespace drover::jobspec
