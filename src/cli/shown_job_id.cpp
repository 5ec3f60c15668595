#include "cli/shown_job_id.h"

#include <charconv>

namespace drover::cli {
namespace {

// Reads the digits at the front of `text` into `value`; false when there are none or they do
// not fit. An empty run is allowed only where `empty_is_zero` (the task after '_').
bool takeNumber(std::string_view& text, std::uint32_t& value, bool empty_is_zero) {
  std::size_t n = 0;
  while (n < text.size() && text[n] >= '0' && text[n] <= '9') ++n;
  if (n == 0) {
    value = 0;
    return empty_is_zero;
  }
  if (std::from_chars(text.data(), text.data() + n, value).ec != std::errc()) return false;
  text.remove_prefix(n);
  return true;
}

}  // namespace

std::optional<ShownJobId> parseShownJobId(std::string_view text) {
  ShownJobId id;
  if (!takeNumber(text, id.job, false)) return std::nullopt;
  if (!text.empty() && text.front() == '_') {
    text.remove_prefix(1);
    std::uint32_t task = 0;
    if (!takeNumber(text, task, true)) return std::nullopt;
    id.task = task;
  }
  if (!text.empty() && text.front() == '+') {
    text.remove_prefix(1);
    std::uint32_t offset = 0;
    if (!takeNumber(text, offset, false)) return std::nullopt;
    id.offset = offset;
  }
  if (!text.empty()) return std::nullopt;
  return id;
}

std::string controllerJobId(const ShownJobId& id) {
  std::string text = std::to_string(id.job);
  if (id.task) text += "_" + std::to_string(*id.task);
  return text;
}

std::string shownJobIdText(const ShownJobId& id) {
  std::string text = controllerJobId(id);
  if (id.offset) text += "+" + std::to_string(*id.offset);
  return text;
}

}  // namespace drover::cli
