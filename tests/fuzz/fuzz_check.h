#pragma once
// Invariant checks for fuzz targets: print what broke, then abort so libFuzzer (or the replay
// runner) reports the input.
#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond, ...)                                                   \
  do {                                                                          \
    if (!(cond)) {                                                              \
      std::fprintf(stderr, "fuzz invariant failed at %s:%d: %s\n", __FILE__,    \
                   __LINE__, #cond);                                            \
      std::fprintf(stderr, __VA_ARGS__);                                        \
      std::fprintf(stderr, "\n");                                               \
      std::abort();                                                             \
    }                                                                           \
  } while (0)
