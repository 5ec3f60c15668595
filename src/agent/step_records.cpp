#include "agent/step_records.h"

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <system_error>

namespace drover::agent {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSupervisorName = "drover-stepd";

std::string stepBase(const std::string& spool_dir, const StepKey& key) {
  return (fs::path(spool_dir) / "steps" /
          (std::to_string(key.job_id) + "." + std::to_string(key.step_id)))
      .string();
}

std::string readSmallFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces and parentheses, so the
// fields after it are found from the last ')'.
struct ProcStat {
  std::string comm;
  char state = '?';
  std::uint64_t start_ticks = 0;
};

std::optional<ProcStat> readProcStat(pid_t pid) {
  const std::string text = readSmallFile("/proc/" + std::to_string(pid) + "/stat");
  const auto open = text.find('(');
  const auto close = text.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  ProcStat st;
  st.comm = text.substr(open + 1, close - open - 1);
  std::istringstream rest(text.substr(close + 1));
  rest >> st.state;
  std::string field;
  // Fields 4..21 are skipped; field 22 is starttime.
  for (int i = 4; i <= 21 && rest >> field; ++i) {
  }
  if (!(rest >> st.start_ticks)) return std::nullopt;
  return st;
}

}  // namespace

std::string stepRecordPath(const std::string& spool_dir, const StepKey& key) {
  return stepBase(spool_dir, key) + ".rec";
}

std::string stepLogPath(const std::string& spool_dir, const StepKey& key) {
  return stepBase(spool_dir, key) + ".log";
}

std::optional<std::uint64_t> processStartTicks(pid_t pid) {
  auto st = readProcStat(pid);
  if (!st) return std::nullopt;
  return st->start_ticks;
}

bool isRunningSupervisor(const StepRecord& record) {
  if (record.pid <= 0) return false;
  auto st = readProcStat(record.pid);
  if (!st) return false;
  return st->comm == kSupervisorName && st->state != 'Z' && st->state != 'X' &&
         st->start_ticks == record.start_ticks;
}

Status writeStepRecord(const std::string& spool_dir, const StepRecord& record) {
  const std::string path = stepRecordPath(spool_dir, record.key);
  const std::string tmp = path + ".tmp";
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << record.key.job_id << ' ' << record.key.step_id << ' ' << record.pid << ' '
        << record.start_ticks << '\n';
    out.flush();
    if (!out) return makeError("cannot write step record " + tmp);
  }
  fs::rename(tmp, path, ec);
  if (ec) return makeError("cannot rename " + tmp + " to " + path + ": " + ec.message());
  return okStatus();
}

void removeStepRecord(const std::string& spool_dir, const StepKey& key) {
  std::error_code ec;
  fs::remove(stepRecordPath(spool_dir, key), ec);
}

std::vector<StepRecord> loadRunningSteps(const std::string& spool_dir) {
  std::vector<StepRecord> running;
  std::error_code ec;
  fs::directory_iterator it(fs::path(spool_dir) / "steps", ec);
  if (ec) return running;
  for (const auto& entry : it) {
    if (entry.path().extension() != ".rec") continue;
    std::istringstream in(readSmallFile(entry.path().string()));
    StepRecord r;
    if (!(in >> r.key.job_id >> r.key.step_id >> r.pid >> r.start_ticks) ||
        !isRunningSupervisor(r)) {
      fs::remove(entry.path(), ec);
      continue;
    }
    running.push_back(r);
  }
  return running;
}

}  // namespace drover::agent
