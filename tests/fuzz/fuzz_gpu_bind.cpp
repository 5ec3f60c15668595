// --gpu-bind values (jobspec/gpu_bind.h). Input: the option's text. Every input either parses
// or gives an error; a parsed value keeps the parser's promises (a count for single/per_task, a
// bounded non-empty list for map_gpu/mask_gpu), and the GPUs each task of a node then sees
// come from the step's GPUs (single, per_task) or name one GPU (map_gpu), at most G each.
#include <cstdint>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "jobspec/gpu_bind.h"

using drover::jobspec::GpuBind;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = drover::jobspec::parseGpuBind(text);
  if (!parsed) {
    FUZZ_CHECK(!parsed.error().empty(), "an error without a message");
    return 0;
  }
  const GpuBind& bind = *parsed;
  const bool listed = bind.kind == GpuBind::Kind::Map || bind.kind == GpuBind::Kind::Mask;
  FUZZ_CHECK(listed == !bind.entries.empty(), "list present iff map/mask");
  FUZZ_CHECK(bind.entries.size() <= drover::jobspec::kMaxGpuBindEntries, "list too long");
  const bool counted = bind.kind == GpuBind::Kind::Single || bind.kind == GpuBind::Kind::PerTask;
  FUZZ_CHECK(counted == (bind.count > 0), "count present iff single/per_task");
  const std::vector<std::uint32_t> step = {3, 5, 8};
  for (std::uint32_t task = 0; task < 16; ++task) {
    const auto seen = drover::jobspec::gpusOfTask(bind, step, task);
    switch (bind.kind) {
      case GpuBind::Kind::None:
      case GpuBind::Kind::Closest: FUZZ_CHECK(seen.empty(), "none/closest bound"); break;
      case GpuBind::Kind::Single: FUZZ_CHECK(seen.size() == 1, "single: not one GPU"); break;
      case GpuBind::Kind::PerTask:
        FUZZ_CHECK(seen.size() == std::min<std::size_t>(bind.count, step.size()), "per_task size");
        break;
      case GpuBind::Kind::Map: FUZZ_CHECK(seen.size() == 1, "map: not one GPU"); break;
      case GpuBind::Kind::Mask: FUZZ_CHECK(seen.size() <= 64, "mask: more than 64 GPUs"); break;
    }
    if (counted) {
      for (auto g : seen) FUZZ_CHECK(g == 3 || g == 5 || g == 8, "a GPU outside the step: %u", g);
    }
  }
  return 0;
}
