#pragma once
// The runs of steps whose supervisors ended on this node lately. The controller sends a launch
// again when the agent did not answer the first attempt in time; if that attempt reached the
// agent after all and its run already ran and ended, a repeat must not run the script a second
// time (the agent answers ALREADY_EXISTS). The memory is kept in the spool dir too, so that a
// launch retried across a droverd restart is still recognised.
//
// <spool>/ended_runs holds one line per ended run, "<ended, unix ms> <job> <step> <run>\n",
// oldest first. A step's end costs one append; the file is rewritten with only the runs still
// remembered when the agent starts (which also drops a torn last line and lines that do not
// parse) and whenever it has grown to hold mostly forgotten runs. Times are wall-clock times,
// as a steady clock's do not survive a restart; a run whose time lies ahead of the clock (the
// clock was set back) is kept as if it had just ended, so it is forgotten at most one memory
// later than it would have been. Nothing is fsync'ed: the file has to survive a droverd
// restart, not a crash of the node, which ends the node's steps anyway.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "agent/step_records.h"
#include "common/clock.h"

namespace drover::agent {

// How long, and how many, ended runs are remembered: well past the controller's launch
// attempts (a few message timeouts).
inline constexpr std::chrono::minutes kEndedRunMemory{10};
inline constexpr std::size_t kEndedRunsKept = 100000;

struct EndedRunLimits {
  std::chrono::milliseconds memory = kEndedRunMemory;
  std::size_t kept = kEndedRunsKept;
};

struct EndedRun {
  std::int64_t ended_ms = 0;   // unix time
  StepKey key;
  std::uint32_t run = 0;
};

// The file's line for one run, and back; nullopt for anything else, including a line without
// its final '\n' (torn by a crash in mid-write).
std::string formatEndedRun(const EndedRun& run);
std::optional<EndedRun> parseEndedRun(std::string_view line);

// "<spool>/ended_runs".
std::string endedRunsPath(const std::string& spool_dir);

// Used on the agent's io thread only, as the step table that owns it.
class EndedRuns {
 public:
  EndedRuns(std::string path, const Clock& clock, EndedRunLimits limits = {});
  ~EndedRuns();
  EndedRuns(const EndedRuns&) = delete;
  EndedRuns& operator=(const EndedRuns&) = delete;

  // Reads the file (a missing one is an empty memory; an unreadable or partly corrupt one is
  // logged, and what parses is kept) and rewrites it with the runs still remembered.
  void load();
  // The run of the step ended now. A run already remembered is not added again.
  void add(const StepKey& key, std::uint32_t run);
  // Whether that run of the step ended within the memory.
  bool contains(const StepKey& key, std::uint32_t run);

  std::size_t size() const { return order_.size(); }
  // Lines in the file, forgotten runs included (what the next compaction would drop).
  std::size_t fileLines() const { return file_lines_; }

 private:
  void forgetOld();
  // Rewrites the file with the remembered runs (temp file + rename) and opens it for appends;
  // false (logged) when it could not, and appends go to the file as it was.
  bool compact();
  void openForAppend();

  const std::string path_;
  const Clock& clock_;
  const EndedRunLimits limits_;
  std::deque<EndedRun> order_;   // oldest first, times never decreasing
  std::set<std::pair<StepKey, std::uint32_t>> runs_;
  int fd_ = -1;                  // the file, opened O_APPEND; -1 when it cannot be written
  std::size_t file_lines_ = 0;
  std::size_t file_bytes_ = 0;   // the file's complete lines: a failed append is cut back to it
  std::size_t retry_compact_at_ = 0;   // after a failed rewrite: lines before the next try
  bool write_failed_ = false;    // logged once, until a write succeeds again
};

}  // namespace drover::agent
