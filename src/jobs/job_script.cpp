// scontrol write batch_script: the script a batch job was submitted with, read from the job
// store (it is not kept in memory with the job), for the job's owner, root and operators.
#include "jobs/job_manager.h"

namespace drover::jobs {

Result<v1::GetJobScriptReply> JobManager::jobScript(const Caller& caller,
                                                    const std::string& job_id) const {
  auto ids = resolveIds(job_id);
  if (!ids) return makeError(ids.error());
  // An array's tasks share the array's script: the first task's is everyone's.
  const Job& job = jobs_.at(ids->front());
  if (!owns(caller, job)) return makeError("Invalid user id");
  if (!job.info.batch()) return makeError("Job script not specified");
  auto payload = store_.payload(job.id(), job.info.array_job_id());
  if (!payload) return makeError(payload.error());
  v1::GetJobScriptReply reply;
  reply.set_script(std::move(payload->script));
  return reply;
}

}  // namespace drover::jobs
