#include "cli/scontrol_wait_notify.h"

#include <cctype>
#include <iostream>

#include "cli/cli_common.h"
#include "cli/controller_client.h"

namespace drover::cli {
namespace {

constexpr const char* kProg = "scontrol";

}  // namespace

std::optional<std::uint64_t> leadingJobId(const std::string& word) {
  std::uint64_t id = 0;
  std::size_t i = 0;
  for (; i < word.size() && std::isdigit(static_cast<unsigned char>(word[i])) && i < 19; ++i)
    id = id * 10 + static_cast<std::uint64_t>(word[i] - '0');
  if (id == 0) return std::nullopt;
  return id;
}

int cmdWaitJob(const std::vector<std::string>& words) {
  if (!keywordArgumentsOk(words, 2, 2)) return 1;
  const auto id = leadingJobId(words[1]);
  if (!id) {
    std::cerr << "Invalid job_id " << words[1] << "\n";
    return 1;
  }
  auto client = ControllerClient::fromConfig();
  if (!client.ok()) {
    printError(kProg, client.error());
    return 1;
  }
  v1::GetJobsRequest query;
  query.add_job_ids(std::to_string(*id));
  query.set_include_finished(true);
  auto reply = client->getJobs(query);
  if (!reply.ok()) {
    if (client->lastFailure() != FailureKind::kNotFound) {
      printError(kProg, reply.error());
      return 1;
    }
  }
  const v1::JobInfo* job = nullptr;
  if (reply.ok()) {
    for (const auto& j : reply->jobs())
      if (j.job_id() == *id) job = &j;
  }
  if (job == nullptr) {
    std::cerr << "scontrol: Problem running job " << *id << "\n";
    return 1;
  }
  if (job->state() == v1::JOB_RUNNING || job->state() == v1::JOB_SUSPENDED) {
    std::cerr << "scontrol: Nodes are ready for job " << *id << "\n";
    return 0;
  }
  std::cerr << "scontrol: Job " << *id << " no longer running\n";
  return 1;
}

int cmdNotify(const std::vector<std::string>& words) {
  if (!keywordArgumentsOk(words, 3, words.size())) return 1;
  const auto id = leadingJobId(words[1]);
  if (!id) {
    std::cerr << "Invalid job_id " << words[1] << "\n";
    return 1;
  }
  // The message is the remaining words, one space between them (the reference's).
  std::string message;
  for (std::size_t i = 2; i < words.size(); ++i) message += (i > 2 ? " " : "") + words[i];
  auto client = ControllerClient::fromConfig();
  if (!client.ok()) {
    printError(kProg, client.error());
    return 1;
  }
  v1::NotifyJobRequest request;
  request.set_job_id(*id);
  request.set_message(message);
  if (auto reply = client->notifyJob(request); !reply.ok()) {
    std::cerr << "job notify failure: " << reply.error() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace drover::cli
