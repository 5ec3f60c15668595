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

// Whether a uid is a user's (an entry in the passwd database), reentrant as above.
inline bool uidIsKnown(std::uint32_t uid) {
  struct passwd pw {};
  struct passwd* found = nullptr;
  std::vector<char> buf(16384);
  return getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == 0 && found != nullptr;
}

// A user as squeue -u gives it, a name or a uid: whether anyone is that user.
inline bool userIsKnown(const std::string& user) {
  if (!user.empty() && user.find_first_not_of("0123456789") == std::string::npos && user.size() <= 10) {
    const unsigned long long uid = std::stoull(user);
    return uid <= UINT32_MAX && uidIsKnown(static_cast<std::uint32_t>(uid));
  }
  return uidOfUserName(user).has_value();
}

}  // namespace drover::ctld
