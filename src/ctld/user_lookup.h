#pragma once
// The controller's name -> uid lookup (reentrant: RPC handlers and the state thread may look up
// at once). nullopt when no user has that name.
#include <pwd.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace drover::ctld {

inline std::optional<std::uint32_t> uidOfUserName(const std::string& name) {
  struct passwd pw {};
  struct passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (getpwnam_r(name.c_str(), &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
    return std::nullopt;
  }
  return found->pw_uid;
}

}  // namespace drover::ctld
