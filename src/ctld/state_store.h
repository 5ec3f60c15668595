#pragma once
// The controller's durable state: one SQLite database (WAL) in the state directory.
// The schema grows by appending migrations (state_store.cpp); each runs once, in order, and
// the applied version is recorded in schema_migrations.
#include <memory>
#include <string>
#include <vector>

#include "ctld/node_registry.h"
#include "drover/result.h"

struct sqlite3;

namespace drover::ctld {


class StateStore {
 public:
  // Opens (creating if needed) <state_dir>/ctld.db, creating state_dir too.
  static Result<std::unique_ptr<StateStore>> open(const std::string& state_dir);
  ~StateStore();
  StateStore(const StateStore&) = delete;
  StateStore& operator=(const StateStore&) = delete;

  // Admin-set node states (DOWN/DRAIN with reason). A state with neither flag deletes the row.
  Status saveNodeAdminState(const AdminState& state);
  Result<std::vector<AdminState>> loadNodeAdminStates();

  int schemaVersion() const { return schema_version_; }
  const std::string& path() const { return path_; }
  sqlite3* handle() { return db_; }   // for later tables in the same database

 private:
  StateStore(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  Status exec(const std::string& sql);
  Status migrate();

  sqlite3* db_;
  std::string path_;
  int schema_version_ = 0;
};

}  // namespace drover::ctld
