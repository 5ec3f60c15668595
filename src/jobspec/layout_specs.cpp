#include "jobspec/layout_specs.h"

#include <array>
#include <utility>

#include "common/ascii_case.h"
#include "common/comma_list.h"
#include "jobspec/parse_util.h"

namespace drover::jobspec {

namespace {

// "12" or "2k" (x1024), as Slurm's node counts.
std::optional<std::uint32_t> parseCount(std::string_view s) {
  std::uint64_t mult = 1;
  if (!s.empty() && (s.back() == 'k' || s.back() == 'K')) {
    mult = 1024;
    s.remove_suffix(1);
  }
  auto v = detail::parseUnsigned(s, UINT32_MAX / 1024);
  if (!v) return std::nullopt;
  return static_cast<std::uint32_t>(*v * mult);
}

std::optional<DistMode> distLevel(std::string_view s, bool first) {
  std::string l = toLowerAscii(s);
  if (l == "*") return DistMode::Unset;
  if (l == "block") return DistMode::Block;
  if (l == "cyclic") return DistMode::Cyclic;
  if (l == "fcyclic" && !first) return DistMode::FCyclic;
  if (l == "arbitrary" && first) return DistMode::Arbitrary;
  return std::nullopt;
}

}  // namespace

Result<NodeRange> parseNodeRange(std::string_view text) {
  NodeRange r;
  auto dash = text.find('-');
  std::string_view lo = text.substr(0, dash);
  auto min = parseCount(lo);
  if (!min) return makeError("\"" + std::string(text) + "\" is not a valid node count");
  r.min = *min;
  if (dash != std::string_view::npos) {
    std::string_view hi = text.substr(dash + 1);
    auto max = parseCount(hi);
    if (!max) return makeError("\"" + std::string(hi) + "\" is not a valid node count");
    if (*max < *min) {
      return makeError("Maximum node count " + std::to_string(*max) +
                       " is less than minimum node count " + std::to_string(*min));
    }
    r.max = *max;
  }
  return r;
}

Result<Distribution> parseDistribution(std::string_view text) {
  auto fail = [&]() {
    return makeError("invalid distribution '" + std::string(text) +
                     "' (accepted: block|cyclic|arbitrary|plane=N[:block|cyclic|fcyclic"
                     "[:block|cyclic|fcyclic]][,Pack|NoPack])");
  };
  Distribution d;
  d.text = std::string(text);
  std::string_view body = text;
  if (auto comma = body.find(','); comma != std::string_view::npos) {
    std::string_view flag = body.substr(comma + 1);
    if (equalsIgnoreCase(flag, "pack")) {
      d.pack = true;
    } else if (equalsIgnoreCase(flag, "nopack")) {
      d.pack = false;
    } else {
      return fail();
    }
    body = body.substr(0, comma);
  }
  if (body.empty()) return d;
  auto levels = splitFields(body, ':');
  if (levels.size() > 3) return fail();
  std::string first = toLowerAscii(levels[0]);
  if (first == "plane") {
    d.nodes = DistMode::Plane;  // size from SLURM_DIST_PLANESIZE or the default
  } else if (first.starts_with("plane")) {
    if (first.size() < 7 || first[5] != '=') return fail();
    auto n = detail::parseUnsigned(std::string_view(first).substr(6), UINT32_MAX);
    if (!n || *n == 0) return fail();
    d.nodes = DistMode::Plane;
    d.plane_size = static_cast<std::uint32_t>(*n);
  } else {
    auto m = distLevel(levels[0], true);
    if (!m) return fail();
    d.nodes = *m;
  }
  if (levels.size() > 1) {
    auto m = distLevel(levels[1], false);
    if (!m) return fail();
    d.sockets = *m;
  }
  if (levels.size() > 2) {
    auto m = distLevel(levels[2], false);
    if (!m) return fail();
    d.cores = *m;
  }
  return d;
}

Result<OpenMode> parseOpenMode(std::string_view text) {
  std::string l = toLowerAscii(text);
  if (l == "append" || l == "a") return OpenMode::Append;
  if (l == "truncate" || l == "t") return OpenMode::Truncate;
  return makeError("invalid open mode '" + std::string(text) + "' (accepted: append, truncate)");
}

Result<std::uint32_t> parseMailType(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, std::uint32_t>, 13> kTypes = {{
      {"none", 0},
      {"begin", mail::kBegin},
      {"end", mail::kEnd},
      {"fail", mail::kFail},
      {"requeue", mail::kRequeue},
      {"all", mail::kAll},
      {"invalid_depend", mail::kInvalidDepend},
      {"stage_out", mail::kStageOut},
      {"time_limit", mail::kTimeLimit},
      {"time_limit_90", mail::kTimeLimit90},
      {"time_limit_80", mail::kTimeLimit80},
      {"time_limit_50", mail::kTimeLimit50},
      {"array_tasks", mail::kArrayTasks},
  }};
  std::uint32_t bits = 0;
  for (std::string_view item : splitFields(text, ',')) {
    std::string l = toLowerAscii(item);
    bool found = false;
    for (const auto& [name, bit] : kTypes) {
      if (l == name) {
        bits |= bit;
        found = true;
      }
    }
    if (!found) {
      return makeError("invalid mail type '" + std::string(item) +
                       "' (accepted: NONE, BEGIN, END, FAIL, REQUEUE, ALL, INVALID_DEPEND, "
                       "STAGE_OUT, TIME_LIMIT, TIME_LIMIT_90, TIME_LIMIT_80, TIME_LIMIT_50, "
                       "ARRAY_TASKS)");
    }
  }
  return bits;
}

Result<ExclusiveMode> parseExclusive(std::optional<std::string_view> text) {
  if (!text) return ExclusiveMode::Exclusive;
  std::string l = toLowerAscii(*text);
  if (l == "user") return ExclusiveMode::User;
  if (l == "mcs") return ExclusiveMode::Mcs;
  return makeError("invalid --exclusive value '" + std::string(*text) + "' (accepted: user, mcs)");
}

Result<std::string> parseCpuBind(std::string_view text) {
  static constexpr std::array<std::string_view, 16> kWords = {
      "none", "no", "rank", "rank_ldom", "sockets", "cores", "threads", "ldoms", "boards",
      "verbose", "v", "quiet", "q", "help", "socket", "core"};
  static constexpr std::array<std::string_view, 4> kLists = {"map_cpu:", "mask_cpu:", "map_ldom:",
                                                             "mask_ldom:"};
  for (std::string_view item : splitFields(text, ',')) {
    std::string l = toLowerAscii(item);
    bool ok = false;
    for (auto w : kWords) ok = ok || l == w;
    for (auto p : kLists) {
      if (l.starts_with(p) && l.size() > p.size()) {
        ok = true;
        // The list itself contains commas in Slurm's syntax; stop checking here.
        return std::string(text);
      }
    }
    if (!ok) return makeError("unrecognized --cpu-bind argument \"" + std::string(item) + "\"");
  }
  return std::string(text);
}

std::span<const std::string_view> mpiTypes() {
  static constexpr std::array<std::string_view, 2> kTypes = {"none", "pmi2"};
  return kTypes;
}

Result<std::string> parseMpiType(std::string_view text) {
  // Slurm's pmix and cray_shasta are refused as the reference refused a type whose plugin it
  // could not load.
  std::string l = toLowerAscii(text);
  if (l == "list") return l;
  for (auto t : mpiTypes()) {
    if (l == t) return l;
  }
  return makeError("Invalid MPI type '" + std::string(text) + "', --mpi=list for acceptable types");
}

}  // namespace drover::jobspec
