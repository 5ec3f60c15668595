#pragma once
// The durable job table: SQLite in WAL mode (synchronous=NORMAL, so a kill -9 of the process
// loses nothing that commit() returned for). One row per job: indexed id/state/end columns, the
// record as a serialized v1::JobInfo, and the script and exported environment, which are read
// back only when the job is launched. Writes are staged and land together in one transaction
// on commit() (group commit: the daemon commits once per burst of submissions, then replies).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "drover/result.h"
#include "jobs/job.h"

struct sqlite3;
struct sqlite3_stmt;

namespace drover::jobs {

struct JobPayload {
  std::string script;
  std::map<std::string, std::string> environment;
};

struct LoadedJobs {
  std::vector<Job> jobs;  // ordered by id
  JobId next_job_id = 1;
};

class JobStore {
 public:
  // Opens (creating when missing) the database at `path`, e.g. <state_dir>/jobs.db.
  static Result<std::unique_ptr<JobStore>> open(const std::string& path);
  ~JobStore();
  JobStore(const JobStore&) = delete;
  JobStore& operator=(const JobStore&) = delete;

  // Hands out `count` consecutive ids; the counter is persisted by the next commit() and is
  // never lowered, so an acknowledged id is never reused.
  JobId allocateIds(std::uint32_t count);
  JobId nextJobId() const { return next_id_; }

  // Staged writes; nothing reaches the disk before commit().
  void stageInsert(const Job& job, JobPayload payload);
  // An array's tasks share one script and environment: stored once for the array (not once per
  // task), the tasks' rows holding none; payload() finds it by the task's array id.
  void stageArrayPayload(JobId array_id, JobPayload payload);
  void stageInsertTask(const Job& job);
  void stageArrayPayloadDelete(JobId array_id);
  void stageUpdate(const Job& job);
  void stageDelete(JobId id);
  // The row of `from` becomes the row of job.id() (a started array task taking its job id):
  // its script and environment stay where they are, nothing is copied.
  void stageRename(JobId from, const Job& job);
  std::size_t stagedCount() const { return staged_.size(); }

  // Writes everything staged in one transaction. On failure nothing staged is written and
  // the staged changes are kept, so the caller may retry.
  Status commit();

  // Every job not in a final state, and final ones that ended at or after `finished_since`.
  // A row whose id differs from its record's job id (an array task not started yet) loads
  // with Job::key set to the row's id.
  Result<LoadedJobs> load(std::int64_t finished_since);
  // The script and environment of a job (staged or committed); `array_id`: the array of a task
  // stored with stageInsertTask.
  Result<JobPayload> payload(JobId id, JobId array_id = 0);
  // Deletes finished jobs that ended before `before` (they live on in accounting).
  Status purgeFinished(std::int64_t before);

  std::int64_t commits() const { return commits_; }

 private:
  explicit JobStore(sqlite3* db) : db_(db) {}
  Status exec(const char* sql);
  Status migrate();
  Result<JobPayload> arrayPayload(JobId array_id);

  enum CachedStmt { kBegin, kCommit, kRollback, kInsert, kUpdate, kDelete, kMeta, kPayload,
                   kRename, kArrayInsert, kArrayDelete, kArrayPayload, kCachedStmtCount };
  sqlite3_stmt* cached(CachedStmt which);   // nullptr when it cannot be prepared
  bool runCached(sqlite3_stmt* s);
  void rollback();

  struct Staged {
    enum Kind { kInsert, kUpdate, kDelete, kRename, kArrayInsert, kArrayDelete } kind;
    JobId id = 0;
    int state = 0;
    std::int64_t end_time = 0;
    std::uint32_t pending_end = 0;
    std::string info;  // serialized v1::JobInfo
    std::unique_ptr<JobPayload> payload;  // kInsert: null for a task (the array's payload)
    JobId from = 0;  // kRename: the row's old id
  };
  // A row holding the job as it is now (no payload, no old id).
  static Staged rowOf(Staged::Kind kind, const Job& job);

  sqlite3* db_;
  JobId next_id_ = 1;
  JobId committed_next_id_ = 1;
  std::vector<Staged> staged_;
  std::int64_t commits_ = 0;
  sqlite3_stmt* stmts_[kCachedStmtCount] = {};
};

}  // namespace drover::jobs
