#pragma once
// The controller's copy of what the user and group databases (NSS: passwd and group, often LDAP
// or SSSD behind them) said about the names and ids its RPCs carry. A lookup there can block for
// as long as the directory service takes, and the state thread holds up the scheduler and every
// RPC while it waits, so that thread never makes one: each RPC's names are looked up on a worker
// thread before its handler runs (name_stage.h), and handlers read the answers here, from memory.
//
// Thread-safe: the worker writes while the state thread reads.
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace drover::ctld {

struct UserEntry {
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;  // the primary group
  std::string name;
};

struct GroupEntry {
  std::uint32_t gid = 0;
  std::string name;
};

// The names and ids one request needs answers for.
struct NameQuery {
  std::vector<std::uint32_t> uids;
  std::vector<std::uint32_t> gids;
  std::vector<std::string> user_names;
  std::vector<std::string> group_names;

  // A user as the CLIs pass one (-u, --uid): a uid when it is all digits, else a name. A number
  // too large for a uid is neither and needs no lookup (no one is that user).
  void addUser(const std::string& name_or_uid);
  // A group likewise (-g, --gid).
  void addGroup(const std::string& name_or_gid);
};

// A user or group given as an id ("1001", at most ten digits), as the CLIs' -u, --uid, -g and
// --gid take one: its number, which may be too large for an id; nullopt for a name.
std::optional<std::uint64_t> idInText(const std::string& text);

// Where the answers come from: the system's databases (getpwuid_r and the rest) unless a test
// gives its own. Each returns nullopt for a name or id the database does not have.
struct NameSource {
  std::function<std::optional<UserEntry>(std::uint32_t)> user_by_uid;
  std::function<std::optional<UserEntry>(const std::string&)> user_by_name;
  std::function<std::optional<GroupEntry>(std::uint32_t)> group_by_gid;
  std::function<std::optional<GroupEntry>(const std::string&)> group_by_name;

  static NameSource system();
};

class NameDirectory {
 public:
  // Answers are trusted for `known_ttl_ms` (users renamed or removed show after that) and the
  // absence of a name for `unknown_ttl_ms` (a user just added can use the cluster that soon).
  // `now_ms` is a monotonic clock (steady_clock unless a test gives its own).
  explicit NameDirectory(NameSource source = NameSource::system(),
                         std::int64_t known_ttl_ms = 60'000, std::int64_t unknown_ttl_ms = 5'000,
                         std::function<std::int64_t()> now_ms = {});

  // Whether everything `query` asks about has an answer young enough to use.
  bool answered(const NameQuery& query) const;
  // Asks the source about what `query` names that has no such answer. Blocks as long as the
  // source does: never on the state thread.
  void resolve(const NameQuery& query);

  // The readers: memory only, never the source, whatever the answer's age. A name or id with no
  // answer reads as unknown, as it does when the database said so.
  std::optional<UserEntry> user(std::uint32_t uid) const;
  std::optional<UserEntry> userNamed(const std::string& name) const;
  std::optional<GroupEntry> group(std::uint32_t gid) const;
  std::optional<GroupEntry> groupNamed(const std::string& name) const;

  // A uid's user name, or the number when it has none.
  std::string userName(std::uint32_t uid) const;
  // A group's name, or nullopt.
  std::optional<std::string> groupName(std::uint32_t gid) const;
  // A user as --uid or -u gives one, a name or a uid: its uid when someone is that user.
  std::optional<std::uint32_t> uidOf(const std::string& name_or_uid) const;
  // A group as --gid or -g gives one, a name or a gid: its gid when the group exists.
  std::optional<std::uint32_t> gidOf(const std::string& name_or_gid) const;

 private:
  // One kind of key's answers: known ones with the time of the answer, and when the source had
  // none, so that a name nobody has is not asked about on every call either.
  template <typename Key, typename Entry>
  struct Table {
    std::map<Key, std::pair<Entry, std::int64_t>> known;
    std::map<Key, std::int64_t> unknown;
  };

  template <typename Key, typename Entry>
  bool fresh(const Table<Key, Entry>& table, const Key& key, std::int64_t now) const;
  template <typename Key, typename Entry>
  static std::optional<Entry> read(const Table<Key, Entry>& table, const Key& key);
  template <typename Key, typename Entry>
  std::optional<Entry> readLocked(const Table<Key, Entry>& table, const Key& key) const;
  template <typename Key, typename Entry>
  static void store(Table<Key, Entry>& table, const Key& key, const std::optional<Entry>& entry,
                    std::int64_t now);
  // The entry a user or group as the CLIs give one (a name or an id) reads as.
  template <typename Entry>
  std::optional<Entry> named(const Table<std::uint32_t, Entry>& by_id, const Table<std::string, Entry>& by_name,
                             const std::string& name_or_id) const;
  // The answer for `key`, asking the source when the one kept is too old.
  template <typename Key, typename Entry, typename Lookup>
  std::optional<Entry> resolveOne(Table<Key, Entry>& table, const Key& key, Lookup& lookup);
  void storeUser(const UserEntry& entry, std::int64_t now);
  void storeGroup(const GroupEntry& entry, std::int64_t now);

  NameSource source_;
  const std::int64_t known_ttl_ms_;
  const std::int64_t unknown_ttl_ms_;
  std::function<std::int64_t()> now_ms_;

  mutable std::mutex mutex_;
  Table<std::uint32_t, UserEntry> users_by_uid_;
  Table<std::string, UserEntry> users_by_name_;
  Table<std::uint32_t, GroupEntry> groups_by_gid_;
  Table<std::string, GroupEntry> groups_by_name_;
};

}  // namespace drover::ctld
