// The `bcast` section: sbcast's and srun --bcast's defaults (Slurm's BcastParameters and
// BcastExclude). Read by the daemons with the whole file and by those CLIs with their client
// sections, so a wrong value is refused by both alike.
#include <fmt/format.h>

#include "config/sections.h"

namespace drover::config::detail {
namespace {

bool readAbsolutePath(Context& ctx, const YAML::Node& node, const std::string& path, std::string& out) {
  if (!readString(ctx, node, path, out)) return false;
  if (out.empty() || out.front() != '/') {
    return ctx.fail(node, fmt::format("{}: expected an absolute path (starting with /), got {}", path,
                                      describe(node)));
  }
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return true;
}

}  // namespace

bool parseBcast(Context& ctx, const YAML::Node& node, BcastConfig& out) {
  MapReader m;
  if (!m.open(ctx, node, "bcast", {"dest_dir", "compression", "send_libs", "exclude"})) return false;
  if (auto* v = m.find("dest_dir"); v && !readAbsolutePath(ctx, *v, m.path("dest_dir"), out.dest_dir)) {
    return false;
  }
  if (auto* v = m.find("compression")) {
    static constexpr std::string_view kNames[] = {"lz4", "zlib", "none"};
    std::size_t which = 0;
    if (!readChoice(ctx, *v, m.path("compression"), {kNames[0], kNames[1], kNames[2]}, which)) return false;
    out.compression = std::string(kNames[which]);
  }
  if (auto* v = m.find("send_libs"); v && !readBool(ctx, *v, m.path("send_libs"), out.send_libs)) {
    return false;
  }
  if (auto* v = m.find("exclude")) {
    const std::string path = m.path("exclude");
    if (!v->IsSequence()) {
      return ctx.fail(*v, fmt::format("{}: expected a list of absolute directories ([] for none), got {}",
                                      path, describe(*v)));
    }
    out.exclude.clear();
    for (std::size_t i = 0; i < v->size(); ++i) {
      std::string dir;
      if (!readAbsolutePath(ctx, (*v)[i], fmt::format("{}[{}]", path, i), dir)) return false;
      out.exclude.push_back(std::move(dir));
    }
  }
  return true;
}

}  // namespace drover::config::detail

namespace drover::config {

std::string bcastExcludeText(const BcastConfig& bcast) {
  std::string out;
  for (const auto& dir : bcast.exclude) out += (out.empty() ? "" : ",") + dir;
  return out.empty() ? "none" : out;
}

}  // namespace drover::config
