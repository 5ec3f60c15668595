// What process creation and page faults cost on this machine, the floor under every sbatch,
// drover-stepd and batch shell (docs/performance.md, "Cost of running a trivial job"). Each
// figure is CPU time (self + reaped children) per iteration, over N iterations, from a parent
// that has 4 MiB of written memory (as a supervisor has a heap).
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

enum { kPages = 256, kPage = 4096 };
static char* heap;

static double cpuMs(void) {
  struct rusage self, kids;
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &kids);
  const struct timeval* t[] = {&self.ru_utime, &self.ru_stime, &kids.ru_utime, &kids.ru_stime};
  double ms = 0;
  for (int i = 0; i < 4; ++i) ms += t[i]->tv_sec * 1e3 + t[i]->tv_usec / 1e3;
  return ms;
}

static void touch(char* p) {
  for (int k = 0; k < kPages; ++k) p[k * kPage] = 2;
}

// The child's work between fork and _exit, by case.
static void child(const char* what, const char* program) {
  if (!strcmp(what, "fork-cow-touch")) touch(heap);
  if (!strcmp(what, "fork-fresh-touch")) {
    touch(mmap(0, kPages * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  }
  if (!strcmp(what, "fork-fresh-populate")) {
    touch(mmap(0, kPages * kPage, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0));
  }
  if (!strcmp(what, "fork-exec")) execl(program, program, (char*)0);
  _exit(0);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 200;
  const char* program = argc > 2 ? argv[2] : "/bin/true";
  heap = malloc(4 << 20);
  memset(heap, 1, 4 << 20);
  const char* cases[] = {"fork", "fork-cow-touch", "fork-fresh-touch", "fork-fresh-populate",
                         "fork-exec", "vfork-exec"};
  for (unsigned c = 0; c < sizeof cases / sizeof *cases; ++c) {
    const double start = cpuMs();
    for (int i = 0; i < n; ++i) {
      pid_t pid = strcmp(cases[c], "vfork-exec") ? fork() : vfork();
      if (pid == 0) {
        if (!strcmp(cases[c], "vfork-exec")) execl(program, program, (char*)0);
        child(cases[c], program);
      }
      waitpid(pid, 0, 0);
    }
    printf("%-20s %7.3f ms CPU per iteration%s\n", cases[c], (cpuMs() - start) / n,
           strstr(cases[c], "touch") || strstr(cases[c], "populate") ? " (256 pages)" : "");
  }
  return 0;
}
