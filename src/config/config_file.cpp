#include "config/config_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace drover::config {
namespace {

constexpr std::size_t kMaxFileBytes = 64u << 20;

}  // namespace

Result<std::string> readConfigFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return makeError(fmt::format("{}: cannot open cluster configuration: {}", path,
                                 std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return makeError(fmt::format("{}: cannot read cluster configuration", path));
  if (text.tellp() > static_cast<std::streamoff>(kMaxFileBytes)) {
    return makeError(fmt::format("{}: larger than {} MiB; not a cluster configuration", path,
                                 kMaxFileBytes >> 20));
  }
  return std::move(text).str();
}

std::filesystem::path baseDirOf(std::string_view file_name) {
  std::error_code ec;
  auto abs = std::filesystem::absolute(std::filesystem::path(file_name), ec);
  if (ec) return std::filesystem::path(file_name).parent_path();
  return abs.parent_path();
}

}  // namespace drover::config
