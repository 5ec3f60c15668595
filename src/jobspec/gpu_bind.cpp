#include "jobspec/gpu_bind.h"

#include <algorithm>
#include <charconv>

#include "common/ascii_case.h"
#include "common/comma_list.h"

namespace drover::jobspec {
namespace {

// One list item: a value in `base`, optionally "*COUNT" repeated; appended to `out`.
Status appendEntries(std::string_view item, int base, std::vector<std::uint64_t>& out) {
  std::string_view value = item;
  std::uint64_t repeat = 1;
  if (const auto star = item.find('*'); star != std::string_view::npos) {
    value = item.substr(0, star);
    const std::string_view count = item.substr(star + 1);
    auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), repeat);
    if (count.empty() || ec != std::errc() || end != count.data() + count.size() || repeat == 0) {
      return makeError("bad repetition count in '" + std::string(item) + "'");
    }
  }
  if (base == 16 && value.size() > 2 && value[0] == '0' && (value[1] == 'x' || value[1] == 'X')) {
    value.remove_prefix(2);
  }
  std::uint64_t number = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number, base);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size()) {
    return makeError("'" + std::string(item) + "' is not a " +
                     (base == 16 ? "hexadecimal GPU mask" : "GPU index"));
  }
  if (base == 10 && number > UINT32_MAX) return makeError("GPU index " + std::string(value) + " is too large");
  if (repeat > kMaxGpuBindEntries - out.size()) {
    return makeError("the list has more than " + std::to_string(kMaxGpuBindEntries) + " entries");
  }
  out.insert(out.end(), repeat, number);
  return okStatus();
}

Result<std::uint32_t> positiveCount(std::string_view type, std::string_view text) {
  std::uint32_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || n == 0) {
    return makeError(std::string(type) + " needs a positive count, not '" + std::string(text) + "'");
  }
  return n;
}

}  // namespace

Result<GpuBind> parseGpuBind(std::string_view text) {
  GpuBind bind;
  std::string_view rest = text;
  if (startsWithIgnoreCase(rest, "verbose,")) {
    bind.verbose = true;
    rest.remove_prefix(8);
  } else if (equalsIgnoreCase(rest, "verbose")) {
    return makeError("verbose needs a type after it (verbose,TYPE)");
  }
  // Slurm's srun reads only as far as the type (and its count) goes: whatever follows a comma
  // after none, closest, single:N or per_task:N is ignored, "verbose" included (the reference
  // ran --gpu-bind=closest,verbose and single:1,verbose as closest and single:1, printing
  // nothing). map_gpu and mask_gpu go on with their comma-separated lists.
  const std::string leading = toLowerAscii(rest.substr(0, rest.find_first_of(":,")));
  if (leading == "none" || leading == "closest" || leading == "single" || leading == "per_task") {
    rest = rest.substr(0, rest.find(','));
  }
  const auto colon = rest.find(':');
  const std::string type = toLowerAscii(rest.substr(0, colon));
  const std::string_view arg = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
  const bool has_arg = colon != std::string_view::npos;
  if (type == "none" || type == "closest") {
    if (has_arg) return makeError(type + " takes no value");
    bind.kind = type == "none" ? GpuBind::Kind::None : GpuBind::Kind::Closest;
    return bind;
  }
  if (type == "single" || type == "per_task") {
    auto n = positiveCount(type, arg);
    if (!n) return makeError(n.error());
    bind.kind = type == "single" ? GpuBind::Kind::Single : GpuBind::Kind::PerTask;
    bind.count = *n;
    return bind;
  }
  if (type == "map_gpu" || type == "mask_gpu") {
    if (arg.empty()) return makeError(type + " needs a list");
    bind.kind = type == "map_gpu" ? GpuBind::Kind::Map : GpuBind::Kind::Mask;
    if (arg.front() == ',' || arg.back() == ',' || arg.find(",,") != std::string_view::npos) {
      return makeError(type + " has an empty list item");
    }
    for (const std::string& item : splitCommas(arg)) {
      if (Status s = appendEntries(item, type == "map_gpu" ? 10 : 16, bind.entries); !s) {
        return makeError(s.error());
      }
    }
    return bind;
  }
  return makeError("unknown type '" + std::string(rest.substr(0, colon)) +
                   "' (closest, map_gpu:LIST, mask_gpu:LIST, none, per_task:N, single:N)");
}

std::vector<std::uint32_t> gpusOfTask(const GpuBind& bind, const std::vector<std::uint32_t>& step_gpus,
                                      std::uint32_t local_task) {
  switch (bind.kind) {
    case GpuBind::Kind::None:
    case GpuBind::Kind::Closest:
      return {};
    case GpuBind::Kind::Single:
      if (step_gpus.empty()) return {};
      return {step_gpus[(local_task / bind.count) % step_gpus.size()]};
    case GpuBind::Kind::PerTask: {
      if (step_gpus.empty()) return {};
      std::vector<std::uint32_t> out;
      const std::uint64_t first = std::uint64_t{local_task} * bind.count;
      for (std::uint64_t k = 0; k < bind.count && k < step_gpus.size(); ++k) {
        out.push_back(step_gpus[(first + k) % step_gpus.size()]);
      }
      return out;
    }
    case GpuBind::Kind::Map:
      if (bind.entries.empty()) return {};
      return {static_cast<std::uint32_t>(bind.entries[local_task % bind.entries.size()])};
    case GpuBind::Kind::Mask: {
      if (bind.entries.empty()) return {};
      const std::uint64_t mask = bind.entries[local_task % bind.entries.size()];
      std::vector<std::uint32_t> out;
      for (std::uint32_t bit = 0; bit < 64; ++bit) {
        if (mask & (std::uint64_t{1} << bit)) out.push_back(bit);
      }
      return out;
    }
  }
  return {};
}

TaskGpuView taskGpuView(std::string_view gpu_bind_text, std::uint32_t gpus_per_task,
                        const std::vector<std::uint32_t>& step_gpus, std::uint32_t node_tasks,
                        std::uint32_t local_task) {
  TaskGpuView view;
  if (node_tasks <= 1 || step_gpus.empty()) return view;
  GpuBind bind;
  if (!gpu_bind_text.empty()) {
    auto parsed = parseGpuBind(gpu_bind_text);
    if (!parsed) return view;
    bind = *parsed;
    view.tres_bind = "gpu:" + std::string(gpu_bind_text);
    view.verbose = bind.verbose;
  } else if (gpus_per_task > 0) {
    bind.kind = GpuBind::Kind::PerTask;
    bind.count = gpus_per_task;
    view.tres_bind = "gpu:per_task:" + std::to_string(gpus_per_task);
  } else {
    return view;
  }
  if (bind.kind == GpuBind::Kind::None) {
    view.hidden = true;
    return view;
  }
  view.gpus = gpusOfTask(bind, step_gpus, local_task);
  if (bind.kind == GpuBind::Kind::Map || bind.kind == GpuBind::Kind::Mask) {
    std::erase_if(view.gpus, [&](std::uint32_t g) {
      return std::find(step_gpus.begin(), step_gpus.end(), g) == step_gpus.end();
    });
    if (view.gpus.empty()) {
      view.gpus = {step_gpus.front()};
      view.fell_back = true;
    }
  }
  return view;
}

std::string gpuHexMask(const std::vector<std::uint32_t>& gpus) {
  std::uint32_t top = 0;
  for (std::uint32_t g : gpus) top = std::max(top, g);
  std::vector<std::uint8_t> nibbles(gpus.empty() ? 1 : top / 4 + 1, 0);
  for (std::uint32_t g : gpus) nibbles[g / 4] |= static_cast<std::uint8_t>(1u << (g % 4));
  std::string out = "0x";
  for (auto it = nibbles.rbegin(); it != nibbles.rend(); ++it) out += "0123456789ABCDEF"[*it];
  return out;
}

std::string gpuBindNotice(const TaskGpuView& view, const std::vector<std::uint32_t>& step_gpus,
                          std::uint32_t local_task, std::string_view node_name) {
  std::string out;
  if (view.fell_back) {
    out += "drover-stepd-" + std::string(node_name) + ": error: Bind request " + view.tres_bind +
           " does not specify any devices within the allocation for task " +
           std::to_string(local_task) + ". Binding to the first device in the allocation instead.\n";
  }
  if (view.verbose && !view.hidden) {
    const std::vector<std::uint32_t>& mine = view.gpus.empty() ? step_gpus : view.gpus;
    std::string list;
    for (std::uint32_t g : mine) list += (list.empty() ? "" : ",") + std::to_string(g);
    // local_inx is the index of the GPU type among the node's GRES in Slurm; Drover's nodes
    // have one (gpu), so 0, as every line the reference printed.
    out += "gpu-bind: usable_gres=" + gpuHexMask(mine) + "; bit_alloc=" + gpuHexMask(step_gpus) +
           "; local_inx=0; global_list=" + list + "; local_list=" + list + "\n";
  }
  return out;
}

}  // namespace drover::jobspec
