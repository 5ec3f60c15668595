// sstat's command line text: -j items and -o formats. Whatever the text, parsing gives a command
// or an error with a message; a -j item that parses names a job, and a format that parses
// renders a row in every layout, each line of the padded one as wide as its header.
#include <cstdint>
#include <string>

#include "acct/report/sstat_format.h"
#include "cli/sstat.h"
#include "fuzz_check.h"

namespace {

using namespace drover;

void checkLayouts(const std::vector<acct::report::Column>& columns) {
  acct::report::SstatRow row;
  row.step.job_id = 12;
  row.step.step_id = 0;
  row.step.ntasks = 2;
  row.step.node_list = "node[1-2]";
  row.step.usage.max_rss_kb = 65536;
  row.pids = {100, 200};
  acct::report::SstatOptions options;
  const std::string out = acct::report::renderSstat({row}, columns, options);
  const auto first = out.find('\n');
  FUZZ_CHECK(first != std::string::npos, "no header line");
  std::size_t start = 0;
  while (start < out.size()) {
    const auto end = out.find('\n', start);
    FUZZ_CHECK(end != std::string::npos, "unterminated line");
    FUZZ_CHECK(end - start == first, "lines of different widths");
    start = end + 1;
  }
  for (auto parsable : {acct::report::Parsable::kTrailing, acct::report::Parsable::kNoTrailing}) {
    options.parsable = parsable;
    (void)acct::report::renderSstat({row}, columns, options);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto jobs = cli::parseSstatArgs({"-j", text});
  if (!jobs.ok()) FUZZ_CHECK(!jobs.error().empty(), "empty -j error");
  auto format = cli::parseSstatArgs({"-j", "1", "-o", text});
  if (!format.ok()) {
    FUZZ_CHECK(!format.error().empty(), "empty -o error");
    return 0;
  }
  FUZZ_CHECK(!format->columns.empty(), "no columns");
  // A width the user asks for is printed (sacct's too): keep the fuzzer's lines small.
  for (const auto& c : format->columns) {
    if (c.width > 1000) return 0;
  }
  checkLayouts(format->columns);
  return 0;
}
