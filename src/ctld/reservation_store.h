#pragma once
// Advance reservations on disk: one row per reservation in the controller's state database
// (ctld.db), the record as a serialized v1::ReservationInfo. Each write is its own committed
// transaction, made before the RPC that asked for it is answered.
#include <string>
#include <vector>

#include "drover/result.h"
#include "drover/v1/reservations.pb.h"

struct sqlite3;

namespace drover::ctld {

class ReservationStore {
 public:
  // `db` belongs to the caller (StateStore::handle()) and must outlive this store; `path`
  // names it in error messages. Creates the table when missing.
  static Result<ReservationStore> open(sqlite3* db, std::string path);

  Status save(const v1::ReservationInfo& info);
  Status remove(const std::string& name);
  Result<std::vector<v1::ReservationInfo>> load();

 private:
  ReservationStore(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}

  sqlite3* db_;
  std::string path_;
};

}  // namespace drover::ctld
