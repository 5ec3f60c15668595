#include "cli/passwd_file.h"

#include <charconv>

#include "common/comma_list.h"

namespace drover::cli {

std::optional<std::string> loginShellOf(std::uint32_t uid, std::string_view passwd) {
  for (std::string_view line : splitFields(passwd, '\n')) {
    if (line.empty() || line.front() == '#') continue;  // as glibc's files back end reads it
    // name:password:UID:GID:GECOS:home:shell
    const auto fields = splitFields(line, ':');
    if (fields.size() != 7) continue;
    const std::string_view id = fields[2];
    std::uint32_t line_uid = 0;
    const auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), line_uid);
    if (ec != std::errc() || end != id.data() + id.size() || line_uid != uid) continue;
    if (fields[6].empty()) return std::nullopt;
    return std::string(fields[6]);
  }
  return std::nullopt;
}

}  // namespace drover::cli
