#include "ctld/name_directory.h"

#include <grp.h>
#include <pwd.h>

#include <cerrno>
#include <chrono>
#include <limits>
#include <type_traits>

namespace drover::ctld {

std::optional<std::uint64_t> idInText(const std::string& text) {
  if (text.empty() || text.size() > 10 || text.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoull(text);
}

namespace {

// A name, or an id when it is all digits; a number too large for an id needs no lookup.
void addNameOrId(const std::string& text, std::vector<std::uint32_t>* ids, std::vector<std::string>* names) {
  if (text.empty()) return;
  if (auto id = idInText(text)) {
    if (*id <= std::numeric_limits<std::uint32_t>::max()) ids->push_back(static_cast<std::uint32_t>(*id));
    return;
  }
  names->push_back(text);
}

// Unknown names are kept at most this many per table: anyone can make the controller look up
// any number of names that do not exist (squeue -u x1,x2,...). A reader takes a missing answer
// for "unknown" anyway, so forgetting them all costs only lookups again.
constexpr std::size_t kMaxUnknown = 4096;

// Calls a reentrant NSS function, growing its buffer while it says ERANGE, and makes an entry
// of what it found while the buffer still holds the record's strings.
template <typename Record, typename Entry, typename Call>
std::optional<Entry> lookUp(Call call, Entry (*convert)(const Record&)) {
  std::vector<char> buffer(16384);
  for (;;) {
    Record record{};
    Record* found = nullptr;
    const int rc = call(&record, buffer.data(), buffer.size(), &found);
    if (rc == ERANGE && buffer.size() < (std::size_t{1} << 24)) {
      buffer.resize(buffer.size() * 2);
      continue;
    }
    if (rc != 0 || found == nullptr) return std::nullopt;
    return convert(*found);
  }
}

UserEntry userOf(const passwd& pw) { return UserEntry{pw.pw_uid, pw.pw_gid, pw.pw_name}; }
GroupEntry groupOf(const group& gr) { return GroupEntry{gr.gr_gid, gr.gr_name}; }

std::int64_t steadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

void NameQuery::addUser(const std::string& name_or_uid) { addNameOrId(name_or_uid, &uids, &user_names); }

void NameQuery::addGroup(const std::string& name_or_gid) { addNameOrId(name_or_gid, &gids, &group_names); }

NameSource NameSource::system() {
  NameSource s;
  s.user_by_uid = [](std::uint32_t uid) {
    return lookUp([uid](passwd* r, char* b, std::size_t n, passwd** f) { return getpwuid_r(uid, r, b, n, f); },
                  userOf);
  };
  s.user_by_name = [](const std::string& name) {
    return lookUp([&name](passwd* r, char* b, std::size_t n, passwd** f) { return getpwnam_r(name.c_str(), r, b, n, f); },
                  userOf);
  };
  s.group_by_gid = [](std::uint32_t gid) {
    return lookUp([gid](group* r, char* b, std::size_t n, group** f) { return getgrgid_r(gid, r, b, n, f); },
                  groupOf);
  };
  s.group_by_name = [](const std::string& name) {
    return lookUp([&name](group* r, char* b, std::size_t n, group** f) { return getgrnam_r(name.c_str(), r, b, n, f); },
                  groupOf);
  };
  return s;
}

NameDirectory::NameDirectory(NameSource source, std::int64_t known_ttl_ms,
                             std::int64_t unknown_ttl_ms, std::function<std::int64_t()> now_ms)
    : source_(std::move(source)),
      known_ttl_ms_(known_ttl_ms),
      unknown_ttl_ms_(unknown_ttl_ms),
      now_ms_(now_ms ? std::move(now_ms) : steadyMs) {}

template <typename Key, typename Entry>
bool NameDirectory::fresh(const Table<Key, Entry>& table, const Key& key, std::int64_t now) const {
  if (auto it = table.known.find(key); it != table.known.end()) return now - it->second.second < known_ttl_ms_;
  if (auto it = table.unknown.find(key); it != table.unknown.end()) return now - it->second < unknown_ttl_ms_;
  return false;
}

template <typename Key, typename Entry>
std::optional<Entry> NameDirectory::read(const Table<Key, Entry>& table, const Key& key) {
  auto it = table.known.find(key);
  if (it == table.known.end()) return std::nullopt;
  return it->second.first;
}

template <typename Key, typename Entry>
void NameDirectory::store(Table<Key, Entry>& table, const Key& key, const std::optional<Entry>& entry,
                          std::int64_t now) {
  if (entry) {
    table.known[key] = {*entry, now};
    table.unknown.erase(key);
    return;
  }
  table.known.erase(key);  // removed from the directory since
  if (table.unknown.size() >= kMaxUnknown) table.unknown.clear();
  table.unknown[key] = now;
}

void NameDirectory::storeUser(const UserEntry& entry, std::int64_t now) {
  store(users_by_uid_, entry.uid, std::optional(entry), now);
  store(users_by_name_, entry.name, std::optional(entry), now);
}

void NameDirectory::storeGroup(const GroupEntry& entry, std::int64_t now) {
  store(groups_by_gid_, entry.gid, std::optional(entry), now);
  store(groups_by_name_, entry.name, std::optional(entry), now);
}

bool NameDirectory::answered(const NameQuery& query) const {
  const std::int64_t now = now_ms_();
  std::lock_guard lock(mutex_);
  for (auto uid : query.uids)
    if (!fresh(users_by_uid_, uid, now)) return false;
  for (const auto& name : query.user_names)
    if (!fresh(users_by_name_, name, now)) return false;
  for (auto gid : query.gids)
    if (!fresh(groups_by_gid_, gid, now)) return false;
  for (const auto& name : query.group_names)
    if (!fresh(groups_by_name_, name, now)) return false;
  return true;
}

template <typename Key, typename Entry, typename Lookup>
std::optional<Entry> NameDirectory::resolveOne(Table<Key, Entry>& table, const Key& key, Lookup& lookup) {
  {
    std::lock_guard lock(mutex_);
    if (fresh(table, key, now_ms_())) return read(table, key);
  }
  // The lookup runs without the lock: the state thread reads meanwhile.
  const std::optional<Entry> entry = lookup(key);
  std::lock_guard lock(mutex_);
  const std::int64_t now = now_ms_();
  if (entry) {
    if constexpr (std::is_same_v<Entry, UserEntry>) {
      storeUser(*entry, now);
    } else {
      storeGroup(*entry, now);
    }
  }
  // Also when found: a directory may answer for a name under another spelling
  // (case-insensitive LDAP), and the name asked about is answered then too.
  store(table, key, entry, now);
  return entry;
}

void NameDirectory::resolve(const NameQuery& query) {
  // A user's answer brings its primary group's: a job run as that user (sbatch --uid) is in it.
  std::vector<std::uint32_t> gids = query.gids;
  auto withGroup = [&gids](const std::optional<UserEntry>& user) {
    if (user) gids.push_back(user->gid);
  };
  for (auto uid : query.uids) withGroup(resolveOne(users_by_uid_, uid, source_.user_by_uid));
  for (const auto& name : query.user_names) withGroup(resolveOne(users_by_name_, name, source_.user_by_name));
  for (auto gid : gids) resolveOne(groups_by_gid_, gid, source_.group_by_gid);
  for (const auto& name : query.group_names) resolveOne(groups_by_name_, name, source_.group_by_name);
}

template <typename Key, typename Entry>
std::optional<Entry> NameDirectory::readLocked(const Table<Key, Entry>& table, const Key& key) const {
  std::lock_guard lock(mutex_);
  return read(table, key);
}

std::optional<UserEntry> NameDirectory::user(std::uint32_t uid) const { return readLocked(users_by_uid_, uid); }

std::optional<UserEntry> NameDirectory::userNamed(const std::string& name) const {
  return readLocked(users_by_name_, name);
}

std::optional<GroupEntry> NameDirectory::group(std::uint32_t gid) const { return readLocked(groups_by_gid_, gid); }

std::optional<GroupEntry> NameDirectory::groupNamed(const std::string& name) const {
  return readLocked(groups_by_name_, name);
}

std::string NameDirectory::userName(std::uint32_t uid) const {
  auto entry = user(uid);
  return entry ? entry->name : std::to_string(uid);
}

std::optional<std::string> NameDirectory::groupName(std::uint32_t gid) const {
  auto entry = group(gid);
  if (!entry) return std::nullopt;
  return entry->name;
}

template <typename Entry>
std::optional<Entry> NameDirectory::named(const Table<std::uint32_t, Entry>& by_id,
                                          const Table<std::string, Entry>& by_name,
                                          const std::string& name_or_id) const {
  std::lock_guard lock(mutex_);
  if (auto id = idInText(name_or_id)) {
    if (*id > std::numeric_limits<std::uint32_t>::max()) return std::nullopt;
    return read(by_id, static_cast<std::uint32_t>(*id));
  }
  return read(by_name, name_or_id);
}

std::optional<std::uint32_t> NameDirectory::uidOf(const std::string& name_or_uid) const {
  auto entry = named(users_by_uid_, users_by_name_, name_or_uid);
  if (!entry) return std::nullopt;
  return entry->uid;
}

std::optional<std::uint32_t> NameDirectory::gidOf(const std::string& name_or_gid) const {
  auto entry = named(groups_by_gid_, groups_by_name_, name_or_gid);
  if (!entry) return std::nullopt;
  return entry->gid;
}

}  // namespace drover::ctld
