#pragma once
// scontrol notify's messages, held until the salloc or srun holding the job's interactive
// allocation takes them (its next AwaitAllocation). Slurm's controller sends each one to that
// client at once; Drover's clients poll, so the controller keeps them meanwhile, in memory
// only: like Slurm's, a message is not worth keeping across a restart.
//
// Bounded, so that a client that never asks (killed, or a script notifying in a loop) cannot
// grow the controller: at most kMaxPerJob messages a job (the oldest go first), each cut to
// kMaxBytes, and the jobs whose client never came are dropped once their job is over.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace drover::ctld {

class JobNotices {
 public:
  static constexpr std::size_t kMaxPerJob = 64;
  static constexpr std::size_t kMaxBytes = 4096;

  // Queues `message` for `job_id`. `active(job)` tells whether a job with messages still
  // holds its allocation: those that do not are dropped, checked when many jobs have some.
  void add(std::uint64_t job_id, std::string message,
           const std::function<bool(std::uint64_t)>& active);
  // The job's messages, oldest first, forgotten here.
  std::vector<std::string> take(std::uint64_t job_id);
  bool has(std::uint64_t job_id) const { return by_job_.count(job_id) != 0; }
  std::size_t jobs() const { return by_job_.size(); }

 private:
  std::unordered_map<std::uint64_t, std::vector<std::string>> by_job_;
  std::size_t prune_at_ = 64;   // jobs with messages that make add() look for ended ones
};

}  // namespace drover::ctld
