#include "cli/passwd_file.h"

#include <charconv>
#include <vector>

namespace drover::cli {

std::optional<std::string> loginShellOf(std::uint32_t uid, std::string_view passwd) {
  while (!passwd.empty()) {
    const auto eol = passwd.find('\n');
    std::string_view line = passwd.substr(0, eol);
    passwd = eol == std::string_view::npos ? std::string_view{} : passwd.substr(eol + 1);
    if (line.empty() || line.front() == '#') continue;  // as glibc's files back end reads it
    // name:password:UID:GID:GECOS:home:shell
    std::vector<std::string_view> fields;
    for (std::size_t start = 0;;) {
      const auto colon = line.find(':', start);
      fields.push_back(line.substr(start, colon - start));
      if (colon == std::string_view::npos) break;
      start = colon + 1;
    }
    if (fields.size() != 7) continue;
    std::uint32_t line_uid = 0;
    const auto [end, ec] = std::from_chars(fields[2].data(), fields[2].data() + fields[2].size(), line_uid);
    if (ec != std::errc() || end != fields[2].data() + fields[2].size() || line_uid != uid) continue;
    if (fields[6].empty()) return std::nullopt;
    return std::string(fields[6]);
  }
  return std::nullopt;
}

}  // namespace drover::cli
