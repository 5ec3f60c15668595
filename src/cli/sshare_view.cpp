#include "cli/sshare_view.h"

#include <cmath>
#include <cstdio>
#include <vector>

namespace drover::cli {

namespace {

struct Column {
  const char* header;
  int width;
  bool left;
  std::string (*value)(const v1::ShareInfo&);
};

std::string fixed6(double v) {
  if (std::isinf(v)) return "inf";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.6f", v);
  return buf;
}

std::string account(const v1::ShareInfo& s) { return std::string(s.depth(), ' ') + s.account(); }
std::string user(const v1::ShareInfo& s) { return s.user(); }
std::string rawShares(const v1::ShareInfo& s) {
  return s.is_root() ? "" : std::to_string(s.raw_shares());
}
std::string normShares(const v1::ShareInfo& s) { return fixed6(s.is_root() ? 0 : s.norm_shares()); }
std::string rawUsage(const v1::ShareInfo& s) {
  return std::to_string(static_cast<unsigned long long>(std::max(0.0, s.raw_usage())));
}
std::string normUsage(const v1::ShareInfo& s) { return fixed6(s.norm_usage()); }
std::string effectiveUsage(const v1::ShareInfo& s) { return fixed6(s.effective_usage()); }
std::string fairShare(const v1::ShareInfo& s) {
  return s.user().empty() ? "" : fixed6(s.fair_share());
}
std::string levelFs(const v1::ShareInfo& s) { return s.is_root() ? "" : fixed6(s.level_fs()); }
std::string grpTresMins(const v1::ShareInfo&) { return ""; }
std::string tresRunMins(const v1::ShareInfo& s) {
  const std::string cpu = std::to_string(s.tres_run_cpu_mins());
  return "cpu=" + cpu + ",mem=0,energy=0,node=0,billing=" + cpu + ",fs/disk=0,vmem=0,pages=0";
}

const std::vector<Column>& columns(bool long_format) {
  static const std::vector<Column> kDefault = {
      {"Account", 20, true, account},         {"User", 10, false, user},
      {"RawShares", 10, false, rawShares},    {"NormShares", 11, false, normShares},
      {"RawUsage", 11, false, rawUsage},      {"EffectvUsage", 13, false, effectiveUsage},
      {"FairShare", 10, false, fairShare},
  };
  static const std::vector<Column> kLong = {
      {"Account", 20, true, account},           {"User", 10, false, user},
      {"RawShares", 10, false, rawShares},      {"NormShares", 11, false, normShares},
      {"RawUsage", 11, false, rawUsage},        {"NormUsage", 11, false, normUsage},
      {"EffectvUsage", 13, false, effectiveUsage}, {"FairShare", 10, false, fairShare},
      {"LevelFS", 10, false, levelFs},          {"GrpTRESMins", 30, true, grpTresMins},
      {"TRESRunMins", 30, true, tresRunMins},
  };
  return long_format ? kLong : kDefault;
}

// Pads to the width and, as Slurm's fixed columns do, cuts a longer value to width-1
// characters followed by '+'.
std::string cell(const std::string& v, const Column& c) {
  if (static_cast<int>(v.size()) > c.width) return v.substr(0, c.width - 1) + "+";
  std::string pad(static_cast<std::size_t>(c.width) - v.size(), ' ');
  return c.left ? v + pad : pad + v;
}

}  // namespace

std::string renderSshare(const SshareOptions& o, const v1::GetSharesReply& reply) {
  const auto& cols = columns(o.long_format);
  const bool parsable = o.parsable || o.parsable2;
  auto line = [&](auto valueOf) {
    std::string out;
    for (std::size_t i = 0; i < cols.size(); ++i) {
      std::string v = valueOf(cols[i]);
      if (parsable) {
        out += v;
        if (o.parsable || i + 1 < cols.size()) out += "|";
      } else {
        out += cell(v, cols[i]) + " ";
      }
    }
    return out + "\n";
  };
  std::string out;
  if (!o.no_header) {
    out += line([](const Column& c) { return std::string(c.header); });
    if (!parsable) out += line([](const Column& c) { return std::string(static_cast<std::size_t>(c.width), '-'); });
  }
  for (const auto& s : reply.shares()) {
    if (o.users_only && s.user().empty()) continue;
    out += line([&](const Column& c) { return c.value(s); });
  }
  return out;
}

}  // namespace drover::cli
