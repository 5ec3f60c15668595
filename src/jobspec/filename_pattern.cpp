#include "jobspec/filename_pattern.h"

#include <algorithm>

namespace drover::jobspec {

namespace {

std::string padded(std::uint64_t value, int width) {
  std::string s = std::to_string(value);
  if (static_cast<int>(s.size()) < width) s.insert(0, static_cast<std::size_t>(width) - s.size(), '0');
  return s;
}

}  // namespace

std::string expandFilenamePattern(std::string_view pattern, const PatternContext& ctx) {
  if (pattern.find('\\') != std::string_view::npos) {
    std::string literal;
    for (char c : pattern) {
      if (c != '\\') literal += c;
    }
    return literal;
  }
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c != '%' || i + 1 >= pattern.size()) {
      out += c;
      continue;
    }
    std::size_t j = i + 1;
    if (pattern[j] == '.') ++j;
    int width = 0;
    while (j < pattern.size() && pattern[j] >= '0' && pattern[j] <= '9') {
      width = std::min(width * 10 + (pattern[j] - '0'), 1000);
      ++j;
    }
    width = std::min(width, kMaxPatternPad);
    if (j >= pattern.size()) {
      out.append(pattern.substr(i));
      break;
    }
    switch (pattern[j]) {
      case '%': out += '%'; break;
      case 'j': out += padded(ctx.job_id, width); break;
      case 'J':
        out += padded(ctx.job_id, width);
        if (ctx.step_id) out += '.' + std::to_string(*ctx.step_id);
        break;
      case 'A': out += padded(ctx.array_job_id.value_or(ctx.job_id), width); break;
      case 'a': out += padded(ctx.array_task_id.value_or(kNoArrayTask), width); break;
      case 's': out += ctx.step_id ? padded(*ctx.step_id, width) : std::string("batch"); break;
      case 't': out += padded(ctx.task_id, width); break;
      case 'n': out += padded(ctx.node_index, width); break;
      case 'N': out += ctx.node; break;
      case 'u': out += ctx.user; break;
      case 'x': out += ctx.job_name; break;
      default:
        // Not a pattern letter: keep the text as written.
        out.append(pattern.substr(i, j - i + 1));
        break;
    }
    i = j;
  }
  return out;
}

}  // namespace drover::jobspec
