#include "cli/batch_script_write.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <iostream>

#include "cli/cli_common.h"
#include "common/errno_text.h"
#include "common/unique_fd.h"

namespace drover::cli {
namespace {

Status writeAll(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return makeError(errnoText(errno));
    }
    done += static_cast<std::size_t>(n);
  }
  return okStatus();
}

}  // namespace

std::string batchScriptJobId(const std::string& job_id) {
  std::size_t digits = 0;
  while (digits < job_id.size() && job_id[digits] >= '0' && job_id[digits] <= '9') ++digits;
  return digits == 0 ? std::string("0") : job_id.substr(0, digits);
}

std::string defaultBatchScriptFile(const std::string& job_id) {
  return "slurm-" + batchScriptJobId(job_id) + ".sh";
}

int writeBatchScript(const std::vector<std::string>& words) {
  // Slurm's texts, printed without "scontrol: error: ".
  if (words.size() < 3) {
    std::cerr << "too few arguments for keyword:" << words.front() << "\n";
    return 1;
  }
  if (!abbrev(words[1], "batch_script", 5)) {
    std::cerr << "invalid write argument:" << words[1] << "\n";
    return 1;
  }
  if (words.size() > 4) {
    std::cerr << "too many arguments for keyword:" << words.front() << "\n";
    return 1;
  }
  const std::string& job_id = words[2];
  const std::string file = words.size() == 4 ? words[3] : defaultBatchScriptFile(job_id);

  auto client = ControllerClient::fromConfig();
  if (!client) {
    printError("scontrol", client.error());
    return 1;
  }
  v1::GetJobScriptRequest request;
  // Only the leading number, as the reference's scontrol: "12_1", "12.0" and "12_[1-2]" all
  // read job 12, an array or not (an array's tasks share its script).
  request.set_job_id(batchScriptJobId(job_id));
  auto reply = client->getJobScript(request);
  if (!reply) {
    // Slurm's scontrol exits 0 here; a failure exits 1 in Drover (docs/cli-compatibility.md).
    std::cerr << "job script retrieval failed: " << reply.error() << "\n";
    return 1;
  }
  if (file == "-") {
    std::cout << reply->script() << std::flush;
    return 0;
  }
  // Created by the caller, with the caller's umask, replacing an older copy (as Slurm's).
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    std::cerr << "failed to open file `" << file << "`: " << errnoText(errno) << "\n";
    return 1;
  }
  UniqueFd closer(fd);
  if (auto written = writeAll(fd, reply->script()); !written) {
    std::cerr << "failed to write file `" << file << "`: " << written.error() << "\n";
    return 1;
  }
  std::cout << "batch script for job " << batchScriptJobId(job_id) << " written to " << file << "\n";
  return 0;
}

}  // namespace drover::cli
