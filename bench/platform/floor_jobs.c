// The jobs' half of bench/platform/wlm-floor: runs a batch script N times, P at a time (one
// per core: more cannot finish sooner on a machine they keep busy), each started the cheapest
// way a process can start another here (posix_spawn: glibc's clone(CLONE_VM | CLONE_VFORK) +
// exec, no copy of this process's page tables). It stands for agents that cost nothing: what
// is left is what the jobs themselves cost the machine, their shells' exec and exit, which any
// workload manager pays.
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

extern char** environ;

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: floor_jobs N P SCRIPT\n");
    return 2;
  }
  const long n = strtol(argv[1], NULL, 10), p = strtol(argv[2], NULL, 10);
  char* const args[] = {argv[3], NULL};
  long started = 0, running = 0;
  while (started < n || running > 0) {
    if (started < n && running < p) {
      pid_t pid;
      const int err = posix_spawn(&pid, argv[3], NULL, NULL, args, environ);
      if (err != 0) {
        fprintf(stderr, "floor_jobs: cannot run %s (errno %d)\n", argv[3], err);
        return 1;
      }
      ++started, ++running;
      continue;
    }
    int status;
    if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fprintf(stderr, "floor_jobs: %s failed\n", argv[3]);
      return 1;
    }
    --running;
  }
  return 0;
}
