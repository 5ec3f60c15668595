// Time and memory invariants: parsing never crashes, and whatever parses prints back to text
// that parses to the same value.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "drover/time_spec.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 256) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);

  if (auto seconds = drover::parseTimeSpecSeconds(text); seconds.ok()) {
    auto minutes = drover::parseTimeLimitMinutes(text);
    FUZZ_CHECK(minutes.ok(), "seconds parse but minutes do not: '%.*s'", int(size), text.data());
    if (*seconds == drover::kUnlimitedSeconds) {
      FUZZ_CHECK(*minutes == drover::kUnlimitedMinutes, "unlimited minutes differ");
    } else {
      FUZZ_CHECK(*seconds >= 0, "negative seconds from '%.*s'", int(size), text.data());
      FUZZ_CHECK(*minutes == (*seconds + 59) / 60, "minutes do not round up");
    }
    for (const std::string& printed : {drover::formatDuration(*seconds),
                                       drover::formatTimeLimit(*seconds)}) {
      auto back = drover::parseTimeSpecSeconds(printed);
      FUZZ_CHECK(back.ok() && *back == *seconds, "'%s' does not parse back to %lld",
                 printed.c_str(), static_cast<long long>(*seconds));
    }
  } else {
    FUZZ_CHECK(!seconds.error().empty(), "empty error message");
  }

  if (auto mb = drover::parseMemoryMb(text); mb.ok()) {
    std::string printed = drover::formatMemoryMb(*mb);
    if (printed.find('.') == std::string::npos) {
      auto back = drover::parseMemoryMb(printed);
      FUZZ_CHECK(back.ok() && *back == *mb, "'%s' does not parse back to %llu", printed.c_str(),
                 static_cast<unsigned long long>(*mb));
    }
  }

  // A job's memory option takes less than the general reader, never more (a B after the unit
  // aside, which it drops).
  if (auto mb = drover::parseJobMemoryMb(text); mb.ok()) {
    std::string plain(text);
    if (plain.size() >= 2 && (plain.back() == 'b' || plain.back() == 'B')) plain.pop_back();
    auto general = drover::parseMemoryMb(plain);
    FUZZ_CHECK(general.ok() && *general == *mb, "'%s' read as a job's memory only", plain.c_str());
  } else {
    FUZZ_CHECK(!mb.error().empty(), "empty job memory error");
  }

  // Printing any number must not crash either.
  if (size >= 8) {
    std::int64_t v;
    std::memcpy(&v, data, sizeof v);
    (void)drover::formatDuration(v);
    (void)drover::formatTimeLimit(v);
    (void)drover::formatElapsed(v);
    (void)drover::formatMemoryMb(static_cast<std::uint64_t>(v));
  }
  return 0;
}
