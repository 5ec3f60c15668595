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
#include "common/proc_stat.h"

namespace drover::agent {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSupervisorName = "drover-stepd";

std::string stepBase(const std::string& spool_dir, const StepKey& key) {
  return (fs::path(spool_dir) / "steps" /
          (std::to_string(key.job_id) + "." + std::to_string(key.step_id)))
      .string();
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
