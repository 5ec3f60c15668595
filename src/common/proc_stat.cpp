#include "common/proc_stat.h"

#include <dirent.h>

#include <charconv>

#include "common/kernel_file.h"

namespace drover {
namespace {

// The next blank-separated field of `rest`, consumed; "" at the end.
std::string_view nextField(std::string_view& rest) {
  const auto start = rest.find_first_not_of(" \n");
  if (start == std::string_view::npos) {
    rest = {};
    return {};
  }
  rest.remove_prefix(start);
  const auto end = rest.find_first_of(" \n");
  const std::string_view field = rest.substr(0, end);
  rest.remove_prefix(end == std::string_view::npos ? rest.size() : end);
  return field;
}

template <typename Number>
Number numberOf(std::string_view text) {
  Number n{};
  std::from_chars(text.data(), text.data() + text.size(), n);
  return n;
}

}  // namespace

std::optional<ProcStat> parseProcStat(std::string_view text) {
  const auto open = text.find('(');
  const auto close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return std::nullopt;
  }
  ProcStat st;
  std::string_view head = text.substr(0, open);
  st.pid = numberOf<pid_t>(nextField(head));
  st.comm = std::string(text.substr(open + 1, close - open - 1));
  std::string_view rest = text.substr(close + 1);
  for (int index = 3;; ++index) {
    const std::string_view field = nextField(rest);
    if (field.empty()) return index > 24 ? std::optional<ProcStat>(st) : std::nullopt;
    switch (index) {
      case 3: st.state = field[0]; break;
      case 4: st.ppid = numberOf<pid_t>(field); break;
      case 5: st.process_group = numberOf<pid_t>(field); break;
      case 6: st.session = numberOf<pid_t>(field); break;
      case 14: case 15: case 16: case 17: st.cpu_ticks += numberOf<std::uint64_t>(field); break;
      case 22: st.start_ticks = numberOf<std::uint64_t>(field); break;
      case 24: st.rss_pages = numberOf<std::int64_t>(field); break;
      case 39: st.processor = numberOf<int>(field); return st;
      default: break;
    }
  }
}

std::optional<ProcStat> readProcStat(pid_t pid, const std::string& proc) {
  return parseProcStat(readKernelFile(proc + "/" + std::to_string(pid) + "/stat"));
}

std::vector<ProcStat> readAllProcStats(const std::string& proc) {
  std::vector<ProcStat> out;
  DIR* dir = opendir(proc.c_str());
  if (!dir) return out;
  while (dirent* entry = readdir(dir)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    auto st = parseProcStat(readKernelFile(proc + "/" + entry->d_name + "/stat"));
    if (st) out.push_back(std::move(*st));
  }
  closedir(dir);
  return out;
}

}  // namespace drover
