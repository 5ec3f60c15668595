// Slurm's time specs (--begin, sacct -S, sacctmgr start=): reading never crashes; a text read
// for --begin is read for a report window too (only the placing differs); a failure names a
// position inside the text (an empty text has no such line); trailing spaces change nothing.
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "jobspec/begin_time.h"

namespace {
constexpr std::int64_t kNow = 1796040000;  // 2026-11-30T12:00:00Z
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("TZ", "UTC", 1);
  tzset();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 128) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  using drover::jobspec::parseTimeSpec;
  using drover::jobspec::TimeSpecUse;
  auto begin = parseTimeSpec(text, kNow, TimeSpecUse::kBegin);
  auto window = parseTimeSpec(text, kNow, TimeSpecUse::kWindow);
  FUZZ_CHECK(begin.ok() == window.ok(), "'%s' read for one use only", text.c_str());
  if (!begin.ok()) {
    const std::string& e = begin.error();
    if (text.empty()) {
      FUZZ_CHECK(e.empty(), "an empty text has the line '%s'", e.c_str());
      return 0;
    }
    const std::string head = "Invalid time specification (pos=";
    FUZZ_CHECK(e.rfind(head, 0) == 0, "error '%s' is not Slurm's line", e.c_str());
    const std::size_t pos = std::strtoull(e.c_str() + head.size(), nullptr, 10);
    FUZZ_CHECK(pos <= text.size(), "pos %zu past the end of '%s'", pos, text.c_str());
    FUZZ_CHECK(e == window.error(), "the two uses fail differently on '%s'", text.c_str());
    return 0;
  }
  auto spaced = parseTimeSpec(text + "  ", kNow, TimeSpecUse::kBegin);
  FUZZ_CHECK(spaced.ok() && *spaced == *begin, "trailing spaces change '%s'", text.c_str());
  return 0;
}
