#pragma once
// The step's memory limit as Slurm's task/cgroup enforces it: the step's tasks run in their own
// memory cgroup whose limit is the job's memory on this node, and a kernel OOM kill inside it
// makes the step OUT_OF_MEMORY. cgroup v2 (memory.max, memory.events "oom_kill") is used where
// the unified hierarchy has the memory controller, else the v1 memory hierarchy
// (memory.limit_in_bytes, memory.oom_control "oom_kill"). Where neither is writable (not
// root, no memory controller) the supervisor runs without a limit and says why in its log.
#include <cstdint>
#include <optional>
#include <string>

#include "drover/result.h"

namespace drover::stepd {

struct CgroupRoot {
  enum class Kind { kNone, kV2, kV1 } kind = Kind::kNone;
  std::string path;  // the directory steps' cgroups are made in
  std::string why;   // kNone: what was missing
  // Whether the hierarchy limits swap too (v2 memory.swap.max, v1 memory.memsw.*: swap
  // accounting), seen on `path` itself, so each step's cgroup need not be asked.
  bool limits_swap = false;
};

// Looks under `mount` (normally /sys/fs/cgroup) for a memory hierarchy this process may create
// cgroups in. Steps' cgroups go below a "drover" directory of that hierarchy. The supervisor
// launcher looks once for all the supervisors it forks.
CgroupRoot findMemoryCgroupRoot(const std::string& mount = "/sys/fs/cgroup");

class MemoryCgroup {
 public:
  // Makes <root>/drover/step_<job>.<step> (v1: the same below the memory hierarchy) with the
  // limit in bytes (swap included where the kernel offers it).
  static Result<MemoryCgroup> create(const CgroupRoot& root, std::uint64_t job_id,
                                     std::int64_t step_id, std::uint64_t limit_bytes);
  MemoryCgroup(MemoryCgroup&& other) noexcept;
  MemoryCgroup& operator=(MemoryCgroup&&) = delete;
  MemoryCgroup(const MemoryCgroup&) = delete;
  ~MemoryCgroup();  // removes the cgroup (once empty)

  // An O_CLOEXEC descriptor of cgroup.procs: a forked task writes its pid there before exec.
  int procsFd() const { return procs_fd_; }
  // OOM kills in this cgroup since it was made.
  std::uint64_t oomKills() const;
  const std::string& path() const { return path_; }

 private:
  MemoryCgroup(CgroupRoot::Kind kind, std::string path, int procs_fd)
      : kind_(kind), path_(std::move(path)), procs_fd_(procs_fd) {}
  CgroupRoot::Kind kind_;
  std::string path_;
  int procs_fd_ = -1;
};

// "oom_kill N" out of memory.events (v2) or memory.oom_control (v1); nullopt when absent.
std::optional<std::uint64_t> parseOomKills(const std::string& text);

}  // namespace drover::stepd
