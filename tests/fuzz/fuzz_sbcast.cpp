// sbcast's command line: the input's lines are its arguments (SBCAST_* variables come in as
// the same options). Whatever they are, parsing gives a command or an error with a message; a
// command names two files, a -j that parses names a job (written back, it parses the same),
// and a -s that parses is a size the block bound keeps within one message.
#include <cstdint>
#include <string>
#include <vector>

#include "cli/file_broadcast.h"
#include "cli/sbcast.h"
#include "common/bcast_path.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace drover;
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> args;
  std::size_t start = 0;
  for (;;) {
    const auto nl = text.find('\n', start);
    args.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  auto cmd = cli::parseSbcastArgs(args);
  if (!cmd) {
    FUZZ_CHECK(!cmd.error().empty(), "empty error");
  } else if (auto files = cli::sbcastFiles(*cmd); files) {
    FUZZ_CHECK(cmd->files.size() == 2 && !files->source.empty() && !files->dest.empty(),
               "a command without two files");
  } else {
    FUZZ_CHECK(cmd->files.size() != 2 || cmd->files[0].empty() || cmd->files[1].empty(),
               "two file names refused");
  }

  auto job = cli::parseSbcastJobId(text);
  if (job) {
    FUZZ_CHECK(job->job_id > 0, "job id 0 accepted");
    std::string again = std::to_string(job->job_id);
    if (job->step_id) again += "." + std::to_string(*job->step_id);
    auto reparsed = cli::parseSbcastJobId(again);
    FUZZ_CHECK(reparsed && reparsed->job_id == job->job_id && reparsed->step_id == job->step_id,
               "a job id written back parses differently");
  } else {
    FUZZ_CHECK(!job.error().empty(), "empty -j error");
  }

  auto block = cli::parseSbcastSize(text);
  if (block) {
    const std::size_t bounded = cli::boundedBlockSize(*block);
    FUZZ_CHECK(bounded > 0 && bounded <= kMaxBroadcastBlock, "block outside one message");
  }

  const std::string path = bcastPath(text, 7, "0", "node1");
  FUZZ_CHECK(isBcastDirectory(text) == (path != text), "directory rule");
  return 0;
}
