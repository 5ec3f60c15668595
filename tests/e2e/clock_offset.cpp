// LD_PRELOAD shim for e2e tests: the process's wall clock runs DROVER_TEST_CLOCK_OFFSET seconds
// ahead of the real one. For a CLI whose output depends on where now falls within the hour
// (sreport's end=now is rounded to the nearest hour), so that a test lands now where it wants
// instead of passing or failing by the minute it happens to run. Only CLOCK_REALTIME (and
// time(), gettimeofday()) moves; the monotonic clocks and every other process are untouched.
#include <dlfcn.h>
#include <sys/time.h>

#include <cstdlib>
#include <ctime>

namespace {

long offsetSeconds() {
  const char* text = std::getenv("DROVER_TEST_CLOCK_OFFSET");
  return text ? std::strtol(text, nullptr, 10) : 0;
}

using ClockGettime = int (*)(clockid_t, timespec*);

ClockGettime realClockGettime() {
  static const auto real = reinterpret_cast<ClockGettime>(dlsym(RTLD_NEXT, "clock_gettime"));
  return real;
}

}  // namespace

extern "C" {

int clock_gettime(clockid_t clock, timespec* ts) {
  const int rc = realClockGettime()(clock, ts);
  if (rc == 0 && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE)) ts->tv_sec += offsetSeconds();
  return rc;
}

time_t time(time_t* out) {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  if (out) *out = ts.tv_sec;
  return ts.tv_sec;
}

int gettimeofday(timeval* tv, void*) {
  timespec ts{};
  const int rc = clock_gettime(CLOCK_REALTIME, &ts);
  if (rc == 0) {
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = ts.tv_nsec / 1000;
  }
  return rc;
}

}  // extern "C"
