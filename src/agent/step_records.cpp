#include "agent/step_records.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <sstream>
#include <system_error>

#include "common/file_write.h"
#include "common/kernel_file.h"

namespace drover::agent {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSupervisorName = "drover-stepd";

std::string stepBase(const std::string& spool_dir, const StepKey& key) {
  return (fs::path(spool_dir) / "steps" /
          (std::to_string(key.job_id) + "." + std::to_string(key.step_id)))
      .string();
}

// /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces and parentheses, so the
// fields after it are found from the last ')'.
struct ProcStat {
  std::string comm;
  char state = '?';
  std::uint64_t start_ticks = 0;
};

std::optional<ProcStat> readProcStat(pid_t pid) {
  const std::string text = readKernelFile("/proc/" + std::to_string(pid) + "/stat");
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

std::string formatStepRecord(const StepRecord& record) {
  std::string line = std::to_string(record.key.job_id) + ' ' +
                     std::to_string(record.key.step_id) + ' ' + std::to_string(record.pid) + ' ' +
                     std::to_string(record.start_ticks);
  if (record.run) line += ' ' + std::to_string(*record.run);
  return line + '\n';
}

std::optional<StepRecord> parseStepRecord(const std::string& line) {
  std::istringstream in(line);
  StepRecord r;
  if (!(in >> r.key.job_id >> r.key.step_id >> r.pid >> r.start_ticks)) return std::nullopt;
  std::uint32_t run = 0;
  if (in >> run) {
    r.run = run;
  } else if (!in.eof()) {
    return std::nullopt;   // a fifth field that is not a run number
  }
  return r;
}

std::string stepRecordPath(const std::string& spool_dir, const StepKey& key) {
  return stepBase(spool_dir, key) + ".rec";
}

std::string stepLogPath(const std::string& spool_dir, const StepKey& key) {
  return stepBase(spool_dir, key) + ".log";
}

std::string launcherLogPath(const std::string& spool_dir) {
  return (fs::path(spool_dir) / "launcher.log").string();
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
  const std::string line = formatStepRecord(record);
  int error = replaceFile(path, line);
  if (error == ENOENT) {
    // The steps dir exists from StepTable::start(); it is made again only if someone removed it.
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    error = replaceFile(path, line);
  }
  if (error != 0) return makeError("cannot write step record " + path + ": " + std::strerror(error));
  return okStatus();
}

void removeStepRecord(const std::string& spool_dir, const StepKey& key) {
  std::error_code ec;
  fs::remove(stepRecordPath(spool_dir, key), ec);
}

std::vector<StepRecord> loadRunningSteps(const std::string& spool_dir,
                                         std::vector<StepRecord>* ended) {
  std::vector<StepRecord> running;
  std::error_code ec;
  fs::directory_iterator it(fs::path(spool_dir) / "steps", ec);
  if (ec) return running;
  for (const auto& entry : it) {
    if (entry.path().extension() != ".rec") continue;
    auto r = parseStepRecord(readKernelFile(entry.path().string()));
    if (!r || !isRunningSupervisor(*r)) {
      if (r && ended != nullptr) ended->push_back(*r);
      fs::remove(entry.path(), ec);
      continue;
    }
    running.push_back(*r);
  }
  return running;
}

}  // namespace drover::agent
