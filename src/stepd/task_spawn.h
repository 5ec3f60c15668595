#pragma once
// Starting one task of a step as the submitting user. Everything that can fail in the child
// (privileges, working directory, output files, exec) is reported back to the parent (through
// the memory a vfork child shares with it), so a task that cannot start is an error message,
// not a silent exit 127.
#include <sys/types.h>

#include <string>
#include <vector>

#include "drover/result.h"

namespace drover::stepd {

struct TaskSpec {
  std::vector<std::string> argv;        // argv[0]: a path, or a name looked up in env's PATH
  std::vector<std::string> env;         // KEY=VALUE
  uid_t uid = 0;
  gid_t gid = 0;
  std::string user;                     // for supplementary groups
  // The user's supplementary groups, looked up by the agent (a static drover-stepd must not
  // call NSS: glibc's static getgrouplist crashes); unset = looked up here with getgrouplist.
  const std::vector<gid_t>* groups = nullptr;
  std::string work_dir;
  std::string stdin_path = "/dev/null";
  std::string stdout_path = "/dev/null";
  std::string stderr_path = "/dev/null";
  bool append = false;                  // --open-mode=append
  // When >= 0, these descriptors (pipes to the supervisor, for srun's I/O stream) are the
  // task's stdin/stdout/stderr instead of the paths above. The caller keeps and closes them.
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  pid_t process_group = 0;              // 0 = lead a new group (the step's first task)
  // srun --pty: the slave of the task's pseudo-terminal (task_terminal.h). The task leads a
  // new session (so process_group is not used) with this as its controlling terminal, and as
  // its stdin, stdout and stderr. The caller keeps and closes it.
  int terminal_fd = -1;
  // cgroup.procs of the step's memory cgroup (memory_cgroup.h): the task joins it before it
  // runs anything, so all it allocates counts against the limit. -1 = none.
  int cgroup_procs_fd = -1;
  // srun --mpi=pmi2: the task's end of its PMI socket (close-on-exec in the caller), kept open
  // in the task under the same number, which PMI_FD names. -1 = none.
  int pmi_fd = -1;
  // Written on the task's stderr before it runs (--gpu-bind=verbose's line, as Slurm's step
  // daemon writes it from the task's process); "" = nothing.
  std::string stderr_notice;
};

// Forks and execs the task. Blocks only until exec succeeded or the child reported why not.
// Signals blocked in the caller are unblocked in the task. The caller must have no signal
// handler installed (a supervisor has none: it reads its signals from a signalfd): the child
// runs in the caller's memory until its exec, where a handler must not run.
// When the exec itself failed, `exec_errno` (if given) receives its errno, which Slurm's step
// daemon makes the task's exit code (2 for a program not found, 13 for one that may not run).
Result<pid_t> spawnTask(const TaskSpec& spec, int* exec_errno = nullptr);

}  // namespace drover::stepd
