#include "ctld/reservation_store.h"

#include <sqlite3.h>

namespace drover::ctld {
namespace {

struct Stmt {
  sqlite3_stmt* s = nullptr;
  ~Stmt() { sqlite3_finalize(s); }
};

}  // namespace

Result<ReservationStore> ReservationStore::open(sqlite3* db, std::string path) {
  // Its own IF NOT EXISTS rather than a StateStore migration: the table is private to this
  // class, and a database from before reservations simply gains it.
  char* err = nullptr;
  if (sqlite3_exec(db,
                   "CREATE TABLE IF NOT EXISTS reservations ("
                   "  name TEXT PRIMARY KEY,"
                   "  info BLOB NOT NULL)",
                   nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err != nullptr ? err : "unknown error";
    sqlite3_free(err);
    return makeError(path + ": creating the reservations table: " + msg);
  }
  return ReservationStore(db, std::move(path));
}

Status ReservationStore::save(const v1::ReservationInfo& info) {
  Stmt st;
  if (sqlite3_prepare_v2(db_,
                         "INSERT INTO reservations(name, info) VALUES (?1, ?2)"
                         " ON CONFLICT(name) DO UPDATE SET info = ?2",
                         -1, &st.s, nullptr) != SQLITE_OK) {
    return makeError(path_ + ": " + sqlite3_errmsg(db_));
  }
  std::string blob;
  info.SerializeToString(&blob);
  sqlite3_bind_text(st.s, 1, info.name().c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_blob(st.s, 2, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
  if (sqlite3_step(st.s) != SQLITE_DONE) {
    return makeError(path_ + ": saving reservation " + info.name() + ": " + sqlite3_errmsg(db_));
  }
  return okStatus();
}

Status ReservationStore::remove(const std::string& name) {
  Stmt st;
  if (sqlite3_prepare_v2(db_, "DELETE FROM reservations WHERE name = ?1", -1, &st.s, nullptr) !=
      SQLITE_OK) {
    return makeError(path_ + ": " + sqlite3_errmsg(db_));
  }
  sqlite3_bind_text(st.s, 1, name.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(st.s) != SQLITE_DONE) {
    return makeError(path_ + ": deleting reservation " + name + ": " + sqlite3_errmsg(db_));
  }
  return okStatus();
}

Result<std::vector<v1::ReservationInfo>> ReservationStore::load() {
  Stmt st;
  if (sqlite3_prepare_v2(db_, "SELECT name, info FROM reservations ORDER BY name", -1, &st.s,
                         nullptr) != SQLITE_OK) {
    return makeError(path_ + ": " + sqlite3_errmsg(db_));
  }
  std::vector<v1::ReservationInfo> out;
  int rc;
  while ((rc = sqlite3_step(st.s)) == SQLITE_ROW) {
    const void* data = sqlite3_column_blob(st.s, 1);
    const int size = sqlite3_column_bytes(st.s, 1);
    v1::ReservationInfo info;
    if (!info.ParseFromArray(data, size)) {
      const unsigned char* name = sqlite3_column_text(st.s, 0);
      return makeError(path_ + ": reservation " +
                       (name != nullptr ? reinterpret_cast<const char*>(name) : "?") +
                       " is not a readable record");
    }
    out.push_back(std::move(info));
  }
  if (rc != SQLITE_DONE) {
    return makeError(path_ + ": loading reservations: " + sqlite3_errmsg(db_));
  }
  return out;
}

}  // namespace drover::ctld
