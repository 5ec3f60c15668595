#pragma once
// The controller's name -> uid lookup (reentrant: RPC handlers and the state thread may look up
// at once). nullopt when no user has that name.
#include <grp.h>
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

// A user as --uid names one, a name or a uid; nullopt for nobody.
inline std::optional<std::uint32_t> uidNamedBy(const std::string& user) {
  if (user.find_first_not_of("0123456789") == std::string::npos && !user.empty() && user.size() <= 10) {
    const std::uint64_t uid = std::stoull(user);
    if (uid <= UINT32_MAX && uidIsKnown(static_cast<std::uint32_t>(uid))) return static_cast<std::uint32_t>(uid);
    return std::nullopt;
  }
  return uidOfUserName(user);
}

// A group as --gid names one, a name or a gid; nullopt for none.
inline std::optional<std::uint32_t> gidNamedBy(const std::string& group) {
  struct group entry {};
  struct group* found = nullptr;
  std::vector<char> buf(65536);
  if (group.find_first_not_of("0123456789") == std::string::npos && !group.empty() && group.size() <= 10) {
    const std::uint64_t gid = std::stoull(group);
    if (gid > UINT32_MAX) return std::nullopt;
    if (getgrgid_r(static_cast<gid_t>(gid), &entry, buf.data(), buf.size(), &found) != 0 || found == nullptr)
      return std::nullopt;
    return found->gr_gid;
  }
  if (getgrnam_r(group.c_str(), &entry, buf.data(), buf.size(), &found) != 0 || found == nullptr)
    return std::nullopt;
  return found->gr_gid;
}

// A user's primary group, reentrant as above; nullopt for a uid nobody has.
inline std::optional<std::uint32_t> primaryGroupOf(std::uint32_t uid) {
  struct passwd pw {};
  struct passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr) return std::nullopt;
  return found->pw_gid;
}

// A user given as a uid ("1001", up to ten digits), as -u of squeue, sprio and sshare takes
// one: its number (possibly no uid at all, above 2^32 - 1); nullopt for a name.
inline std::optional<std::uint64_t> uidInText(const std::string& user) {
  if (user.empty() || user.size() > 10 || user.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoull(user);
}

// Whether a uid as uidInText reads it is a user's.
inline bool uidNumberIsKnown(std::uint64_t uid) {
  return uid <= UINT32_MAX && uidIsKnown(static_cast<std::uint32_t>(uid));
}

// A user as squeue -u gives it, a name or a uid: whether anyone is that user.
inline bool userIsKnown(const std::string& user) {
  if (auto uid = uidInText(user)) return uidNumberIsKnown(*uid);
  return uidOfUserName(user).has_value();
}

// squeue's and sprio's -u of users nobody is: the reference named each ("Invalid user: X")
// and listed the other users' jobs (an unknown user's filter matches no job here either).
template <class Users, class Out>
void addUnknownUsers(const Users& users, Out* unknown) {
  for (const auto& u : users)
    if (!userIsKnown(u)) unknown->Add(std::string(u));
}

}  // namespace drover::ctld
