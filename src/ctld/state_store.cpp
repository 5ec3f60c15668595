#include "ctld/state_store.h"

#include <sqlite3.h>

#include <filesystem>
#include <system_error>

namespace drover::ctld {
namespace {

// Append only: never edit a migration that has shipped.
const std::vector<std::string>& migrations() {
  static const std::vector<std::string> kMigrations = {
      // 1: node states set by administrators.
      "CREATE TABLE node_admin_state ("
      "  name TEXT PRIMARY KEY,"
      "  down INTEGER NOT NULL,"
      "  drain INTEGER NOT NULL,"
      "  reason TEXT NOT NULL,"
      "  reason_user TEXT NOT NULL,"
      "  reason_time INTEGER NOT NULL)",
  };
  return kMigrations;
}

struct Stmt {
  sqlite3_stmt* s = nullptr;
  ~Stmt() { sqlite3_finalize(s); }
};

}  // namespace

Result<std::unique_ptr<StateStore>> StateStore::open(const std::string& state_dir) {
  std::error_code ec;
  std::filesystem::create_directories(state_dir, ec);
  if (ec) {
    return makeError("cannot create state directory " + state_dir + ": " + ec.message());
  }
  const std::string path = state_dir + "/ctld.db";
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    std::string msg = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return makeError("cannot open state database " + path + ": " + msg);
  }
  sqlite3_busy_timeout(db, 5000);
  std::unique_ptr<StateStore> store(new StateStore(db, path));
  for (const char* pragma : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL",
                             "PRAGMA foreign_keys=ON"}) {
    auto r = store->exec(pragma);
    if (!r) return makeError(r.error());
  }
  auto m = store->migrate();
  if (!m) return makeError(m.error());
  return store;
}

StateStore::~StateStore() { sqlite3_close(db_); }

Status StateStore::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err != nullptr ? err : "unknown error";
    sqlite3_free(err);
    return makeError(path_ + ": " + msg + " (in: " + sql.substr(0, 80) + ")");
  }
  return okStatus();
}

Status StateStore::migrate() {
  auto r = exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY,"
                " applied_at INTEGER NOT NULL)");
  if (!r) return r;
  {
    Stmt st;
    sqlite3_prepare_v2(db_, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations", -1, &st.s,
                       nullptr);
    if (st.s != nullptr && sqlite3_step(st.s) == SQLITE_ROW) {
      schema_version_ = sqlite3_column_int(st.s, 0);
    }
  }
  const auto& all = migrations();
  if (schema_version_ > static_cast<int>(all.size())) {
    return makeError(path_ + ": schema version " + std::to_string(schema_version_) +
                     " is newer than this droverctld understands (" +
                     std::to_string(all.size()) + ")");
  }
  for (int v = schema_version_ + 1; v <= static_cast<int>(all.size()); ++v) {
    if (auto b = exec("BEGIN IMMEDIATE"); !b) return b;
    auto step = exec(all[v - 1]);
    if (step) {
      step = exec("INSERT INTO schema_migrations(version, applied_at) VALUES (" +
                  std::to_string(v) + ", strftime('%s','now'))");
    }
    if (!step) {
      exec("ROLLBACK");
      return step;
    }
    if (auto c = exec("COMMIT"); !c) return c;
    schema_version_ = v;
  }
  return okStatus();
}

Status StateStore::saveNodeAdminState(const AdminState& s) {
  Stmt st;
  const char* sql = (s.down || s.drain)
                        ? "INSERT INTO node_admin_state(name, down, drain, reason, reason_user,"
                          " reason_time) VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(name) DO"
                          " UPDATE SET down=?2, drain=?3, reason=?4, reason_user=?5,"
                          " reason_time=?6"
                        : "DELETE FROM node_admin_state WHERE name = ?1";
  if (sqlite3_prepare_v2(db_, sql, -1, &st.s, nullptr) != SQLITE_OK) {
    return makeError(path_ + ": " + sqlite3_errmsg(db_));
  }
  sqlite3_bind_text(st.s, 1, s.name.c_str(), -1, SQLITE_TRANSIENT);
  if (s.down || s.drain) {
    sqlite3_bind_int(st.s, 2, s.down ? 1 : 0);
    sqlite3_bind_int(st.s, 3, s.drain ? 1 : 0);
    sqlite3_bind_text(st.s, 4, s.reason.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st.s, 5, s.reason_user.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st.s, 6, s.reason_time);
  }
  if (sqlite3_step(st.s) != SQLITE_DONE) {
    return makeError(path_ + ": saving node state: " + sqlite3_errmsg(db_));
  }
  return okStatus();
}

Result<std::vector<AdminState>> StateStore::loadNodeAdminStates() {
  Stmt st;
  if (sqlite3_prepare_v2(db_,
                         "SELECT name, down, drain, reason, reason_user, reason_time"
                         " FROM node_admin_state ORDER BY name",
                         -1, &st.s, nullptr) != SQLITE_OK) {
    return makeError(path_ + ": " + sqlite3_errmsg(db_));
  }
  std::vector<AdminState> out;
  int rc;
  auto text = [&](int col) {
    const unsigned char* t = sqlite3_column_text(st.s, col);
    return t != nullptr ? std::string(reinterpret_cast<const char*>(t)) : std::string();
  };
  while ((rc = sqlite3_step(st.s)) == SQLITE_ROW) {
    AdminState s;
    s.name = text(0);
    s.down = sqlite3_column_int(st.s, 1) != 0;
    s.drain = sqlite3_column_int(st.s, 2) != 0;
    s.reason = text(3);
    s.reason_user = text(4);
    s.reason_time = sqlite3_column_int64(st.s, 5);
    out.push_back(std::move(s));
  }
  if (rc != SQLITE_DONE) return makeError(path_ + ": loading node states: " + sqlite3_errmsg(db_));
  return out;
}

}  // namespace drover::ctld
