#include "cli/iterate.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <thread>

namespace drover::cli {

std::optional<int> parseIterateSeconds(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && (text[i] == ' ' || (text[i] >= '\t' && text[i] <= '\r'))) ++i;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  long long value = 0;
  const std::size_t first_digit = i;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    value = value * 10 + (text[i] - '0');
    if (value > INT_MAX) return std::nullopt;   // atoi's result would be meaningless
  }
  if (i == first_digit || negative || value < 1) return std::nullopt;
  return static_cast<int>(value);
}

void reportEvery(int seconds, const std::function<void()>& report) {
  for (;;) {
    report();
    // Unbuffered, after the report's own flush: a reader piping the output sees each report
    // whole as soon as it is complete.
    while (write(STDOUT_FILENO, "\n", 1) < 0 && errno == EINTR) {
    }
    std::this_thread::sleep_for(std::chrono::seconds(seconds));
  }
}

}  // namespace drover::cli
