#pragma once
// A process's /proc/PID/stat (proc(5)): the one reader of it for the supervisor (usage samples,
// process trees, a --pty task's session) and the agent (is a recorded supervisor still the same
// process). The command name may hold spaces and parentheses, so the fields after it are found
// from its last ')'.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace drover {

struct ProcStat {
  pid_t pid = 0;                  // field 1
  std::string comm;               // 2, without its parentheses
  char state = '?';               // 3: R, S, D, Z (zombie), X, ...
  pid_t ppid = 0;                 // 4
  pid_t process_group = 0;        // 5
  pid_t session = 0;              // 6
  std::uint64_t cpu_ticks = 0;    // 14-17: utime + stime + cutime + cstime (reaped children's)
  std::uint64_t start_ticks = 0;  // 22: since boot, in clock ticks
  std::int64_t rss_pages = 0;     // 24
  int processor = -1;             // 39: the CPU it last ran on; -1 = not given
};

// The fields of one stat line; none when it is not one (fewer than 24 fields).
std::optional<ProcStat> parseProcStat(std::string_view text);

// /proc/PID/stat under `proc` (tests use a made-up tree); none when it cannot be read.
std::optional<ProcStat> readProcStat(pid_t pid, const std::string& proc = "/proc");

// One walk over `proc`: every process whose stat could be read.
std::vector<ProcStat> readAllProcStats(const std::string& proc = "/proc");

}  // namespace drover
