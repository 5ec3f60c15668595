// The command lines of sacct, squeue and scancel: the input's lines are the arguments (the first
// line's first byte picks the command). Whatever they say, parsing gives a command or an error
// with a message, never an exception or a crash (sacct -u 99999999999999999999 once threw).
// The fourth choice is scontrol show job's id: one that parses reads back the same from the
// text scontrol prints for it.
#include <cstdint>
#include <string>
#include <vector>

#include "cli/sacct.h"
#include "cli/scancel.h"
#include "cli/shown_job_id.h"
#include "cli/squeue.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int command = data[0] % 4;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<std::string> args;
  std::size_t start = 0;
  while (start <= text.size() && args.size() < 64) {
    const auto end = text.find('\n', start);
    args.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  using namespace drover::cli;
  if (command == 0) {
    auto cmd = parseSacctArgs(args, 1796254042, 1001);
    if (!cmd.ok()) FUZZ_CHECK(!cmd.error().empty(), "empty sacct error");
  } else if (command == 1) {
    auto cmd = parseSqueueArgs(args);
    if (!cmd.ok()) FUZZ_CHECK(!cmd.error().empty(), "empty squeue error");
  } else if (command == 2) {
    auto cmd = parseScancelArgs(args);
    if (!cmd.ok()) FUZZ_CHECK(!cmd.error().empty(), "empty scancel error");
  } else if (auto id = parseShownJobId(text)) {
    auto again = parseShownJobId(shownJobIdText(*id));
    FUZZ_CHECK(again && again->job == id->job && again->task == id->task && again->offset == id->offset,
               "a shown job id does not read back");
  }
  return 0;
}
