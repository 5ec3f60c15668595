#include "agent/ended_runs.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>

#include "common/file_write.h"
#include "common/log.h"

namespace drover::agent {
namespace {

namespace fs = std::filesystem;

spdlog::logger& log() { return *drover::log::get("agent"); }

// A file holding more than twice the remembered runs, and this many lines more, is rewritten:
// each rewrite follows at least as many appends as it writes lines.
constexpr std::size_t kCompactSlack = 1024;

// The whole file; nullopt (errno set) when it cannot be opened or read.
std::optional<std::string> readAll(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int saved = errno;
      ::close(fd);
      errno = saved;
      return std::nullopt;
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

template <typename T>
bool takeNumber(std::string_view& rest, T* out) {
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), *out);
  if (ec != std::errc() || end == rest.data()) return false;
  rest.remove_prefix(static_cast<std::size_t>(end - rest.data()));
  return true;
}

bool takeChar(std::string_view& rest, char c) {
  if (rest.empty() || rest.front() != c) return false;
  rest.remove_prefix(1);
  return true;
}

}  // namespace

std::string formatEndedRun(const EndedRun& run) {
  return std::to_string(run.ended_ms) + ' ' + std::to_string(run.key.job_id) + ' ' +
         std::to_string(run.key.step_id) + ' ' + std::to_string(run.run) + '\n';
}

std::optional<EndedRun> parseEndedRun(std::string_view line) {
  EndedRun r;
  if (takeNumber(line, &r.ended_ms) && takeChar(line, ' ') && takeNumber(line, &r.key.job_id) &&
      takeChar(line, ' ') && takeNumber(line, &r.key.step_id) && takeChar(line, ' ') &&
      takeNumber(line, &r.run) && takeChar(line, '\n') && line.empty()) {
    return r;
  }
  return std::nullopt;
}

std::string endedRunsPath(const std::string& spool_dir) {
  return (fs::path(spool_dir) / "ended_runs").string();
}

EndedRuns::EndedRuns(std::string path, const Clock& clock, EndedRunLimits limits)
    : path_(std::move(path)), clock_(clock), limits_(limits) {}

EndedRuns::~EndedRuns() {
  if (fd_ >= 0) ::close(fd_);
}

void EndedRuns::load() {
  order_.clear();
  runs_.clear();
  file_lines_ = 0;
  file_bytes_ = 0;
  const auto text = readAll(path_);
  if (!text && errno != ENOENT) {
    log().warn("cannot read the ended runs in {}: {}; a launch retried for a run that ended "
               "before this restart may run it again",
               path_, std::strerror(errno));
  }
  std::size_t bad = 0;
  const std::int64_t now = clock_.nowMs();
  if (text) {
    std::string_view rest = *text;
    while (!rest.empty()) {
      const auto eol = rest.find('\n');
      if (eol == std::string_view::npos) {
        // A line cut short by a crash in mid-append: its run is lost, the rest is sound.
        log().info("{}: its last line is incomplete ({} bytes): dropped", path_, rest.size());
        break;
      }
      file_bytes_ += eol + 1;
      ++file_lines_;
      auto run = parseEndedRun(rest.substr(0, eol + 1));
      rest.remove_prefix(eol + 1);
      if (!run) {
        ++bad;
        continue;
      }
      // Set back since it was written, the clock would keep this run for as long again.
      run->ended_ms = std::min(run->ended_ms, now);
      order_.push_back(*run);
    }
  }
  if (bad > 0) log().warn("{}: {} line(s) that are not ended runs: ignored", path_, bad);
  std::stable_sort(order_.begin(), order_.end(),
                   [](const EndedRun& a, const EndedRun& b) { return a.ended_ms < b.ended_ms; });
  std::deque<EndedRun> unique;
  for (const auto& run : order_) {
    if (runs_.emplace(run.key, run.run).second) unique.push_back(run);
  }
  order_ = std::move(unique);
  forgetOld();
  compact();
}

void EndedRuns::add(const StepKey& key, std::uint32_t run) {
  forgetOld();
  if (!runs_.emplace(key, run).second) return;
  // Never earlier than the last one: forgetting goes from the front.
  const std::int64_t now =
      std::max(clock_.nowMs(), order_.empty() ? std::int64_t{0} : order_.back().ended_ms);
  order_.push_back(EndedRun{now, key, run});
  forgetOld();
  if (fd_ < 0) return;
  if (file_lines_ > 2 * order_.size() + kCompactSlack && file_lines_ >= retry_compact_at_ &&
      compact()) {
    return;   // the rewrite holds this run
  }
  const std::string line = formatEndedRun(order_.back());
  if (!writeAll(fd_, line)) {
    const int saved = errno;
    // No part of a line may stay: the next append would complete it into another run.
    if (::ftruncate(fd_, static_cast<off_t>(file_bytes_)) != 0) {
      log().error("cannot truncate {} after a failed append: {}", path_, std::strerror(errno));
    }
    if (!write_failed_) {
      log().error("cannot append to {}: {}; the run is remembered until droverd restarts",
                  path_, std::strerror(saved));
    }
    write_failed_ = true;
    return;
  }
  write_failed_ = false;
  ++file_lines_;
  file_bytes_ += line.size();
}

bool EndedRuns::contains(const StepKey& key, std::uint32_t run) {
  forgetOld();
  return runs_.count({key, run}) != 0;
}

void EndedRuns::forgetOld() {
  const std::int64_t now = clock_.nowMs();
  while (!order_.empty() && (now - order_.front().ended_ms > limits_.memory.count() ||
                             order_.size() > limits_.kept)) {
    runs_.erase({order_.front().key, order_.front().run});
    order_.pop_front();
  }
}

bool EndedRuns::compact() {
  std::string text;
  text.reserve(order_.size() * 32);
  for (const auto& run : order_) text += formatEndedRun(run);
  if (const int error = replaceFile(path_, text); error != 0) {
    log().error("cannot rewrite {}: {}; appending to it as it is", path_, std::strerror(error));
    openForAppend();
    // Its lines that parsed stay valid: only a torn last line must go before the next append,
    // which would complete it into some other run.
    if (fd_ >= 0 && ::ftruncate(fd_, static_cast<off_t>(file_bytes_)) != 0) {
      log().error("cannot truncate {}: {}; not writing to it", path_, std::strerror(errno));
      ::close(fd_);
      fd_ = -1;
    }
    retry_compact_at_ = file_lines_ + kCompactSlack;   // not at every step's end
    return false;
  }
  file_lines_ = order_.size();
  file_bytes_ = text.size();
  openForAppend();
  return true;
}

void EndedRuns::openForAppend() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    log().error("cannot open {}: {}; runs that end are remembered until droverd restarts",
                path_, std::strerror(errno));
  }
}

}  // namespace drover::agent
