#pragma once
// SqliteAccountingStore's prepared statement, shared by the files that implement the store
// (sqlite_store_apply.cpp and sqlite_store_query.cpp: jobs and steps; sqlite_events.cpp: node
// and cluster events). Internal to src/acct.
#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "acct/sqlite_store.h"

namespace drover::acct {

using Value = std::variant<std::int64_t, std::string>;

// A cached prepared statement; reset (not finalized) between uses.
class SqliteAccountingStore::Stmt {
 public:
  Stmt(sqlite3_stmt* s) : s_(s) {}
  ~Stmt() { sqlite3_finalize(s_); }
  sqlite3_stmt* get() const { return s_; }
  // Ready to be bound and stepped again, from the first parameter.
  void reset() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
    idx = 0;
  }
  int idx = 0;
  void bind(std::int64_t v) { sqlite3_bind_int64(s_, ++idx, v); }
  // Copied by SQLite (SQLITE_TRANSIENT): text bound from a temporary or a local of the function
  // that bound it (a filter's arguments, a record's joined flags) is gone before the statement
  // is stepped; borrowing it read freed memory. The copies are a few dozen bytes per field.
  void bind(const std::string& v) {
    sqlite3_bind_text(s_, ++idx, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  template <typename T>
  void bind(const std::optional<T>& v) {
    if (v) {
      bind(static_cast<std::int64_t>(*v));
    } else {
      sqlite3_bind_null(s_, ++idx);
    }
  }
  void bind(const std::optional<std::string>& v) {
    if (v) {
      bind(*v);
    } else {
      sqlite3_bind_null(s_, ++idx);
    }
  }
  void bindValue(const Value& v) {
    std::visit([this](const auto& x) { bind(x); }, v);
  }
  std::int64_t i64(int c) const { return sqlite3_column_int64(s_, c); }
  std::string str(int c) const {
    auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_, c));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(s_, c))) : std::string();
  }
  bool isNull(int c) const { return sqlite3_column_type(s_, c) == SQLITE_NULL; }

 private:
  sqlite3_stmt* s_;
};

}  // namespace drover::acct
