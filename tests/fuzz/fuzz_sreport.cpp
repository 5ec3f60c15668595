// sreport's command line, as words: whatever they are, parsing gives a command or an error with
// a message, and a report that parses renders against fixed usage sums with every line of its
// fixed-width table as wide as the table's header.
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "cli/sreport_args.h"
#include "cli/sreport_view.h"
#include "fuzz_check.h"

namespace {

using namespace drover;
using namespace drover::cli::sreport;

constexpr std::int64_t kNow = 1796176765;   // 2026-12-02T01:59:25Z

ReportData fixedData() {
  ReportData d;
  d.cluster = "fuzz";
  d.parents = {{"research", "root"}, {"vision", "research"}};
  d.capacity = {{"cpu", 64}, {"gres/gpu", 8}, {"mem", 262144}, {"node", 4}, {"billing", 64}};
  // The controller's sums for three jobs: alice 1 CPU for 3000 s, carol 30 CPUs and 2 GPUs
  // running a day, bob 1000 CPUs for 100 s in an account the tree does not know.
  d.usage.by_assoc = {{{"research", "alice"}, {{"billing", 3000}, {"cpu", 3000}, {"mem", 12e6}, {"node", 3000}}},
                      {{"vision", "carol"}, {{"cpu", 30 * 86400.0}, {"gres/gpu", 2 * 86400.0}, {"node", 2 * 86400.0}}},
                      {{"nowhere", "bob"}, {{"cpu", 1e5}}}};
  d.usage.allocated = {{"billing", 3000}, {"cpu", 3000 + 30 * 86400.0 + 1e5}, {"gres/gpu", 2 * 86400.0},
                       {"mem", 12e6}, {"node", 3000 + 2 * 86400.0}};
  d.usage.waiting = {{"cpu", 5e5}};
  d.usage.sizes = {{"research", 1, 3000, 1}, {"vision", 30, 30 * 86400.0, 1}, {"nowhere", 1000, 1e5, 1},
                   {"vision", 7, 0, 0}};
  d.proper_name = [](const std::string& login) { return login == "alice" ? std::string("Alice A") : std::string(); };
  return d;
}

void checkWidths(const std::string& text) {
  const std::string dashes(80, '-');
  std::size_t table = 0;
  const std::size_t first = text.find(dashes + "\n");
  if (first != std::string::npos) {
    const std::size_t second = text.find(dashes + "\n", first + 81);
    FUZZ_CHECK(second != std::string::npos, "header block not closed");
    table = second + 81;
  }
  std::size_t width = std::string::npos;
  for (std::size_t start = table; start < text.size();) {
    const auto end = text.find('\n', start);
    FUZZ_CHECK(end != std::string::npos, "unterminated line");
    if (width == std::string::npos) width = end - start;
    FUZZ_CHECK(end - start == width, "lines of different widths");
    start = end + 1;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::vector<std::string> args;
  for (std::string w; in >> w;) args.push_back(w);
  auto inv = parseSreportArgs(args);
  if (!inv.ok()) {
    FUZZ_CHECK(!inv.error().empty(), "empty option error");
    return 0;
  }
  auto cmd = parseCommandWords(inv->words, kNow);
  if (!cmd.ok()) {
    FUZZ_CHECK(!cmd.error().empty(), "empty command error");
    return 0;
  }
  if (cmd->verb != Verb::kReport) return 0;
  for (const auto& f : cmd->report.format) {
    if (f.width > 1000 || f.width < -1000) return 0;   // keep the fuzzer's lines small
  }
  if (cmd->report.grouping.size() > 64) return 0;
  static const ReportData fixed = fixedData();
  ReportData d = fixed;
  d.window = reportWindow(cmd->report.start, cmd->report.end, kNow);
  FUZZ_CHECK(d.window.end > d.window.start, "empty window");
  Options o = inv->options;
  const Rendered r = renderReport(cmd->report, o, d);
  FUZZ_CHECK(r.exit_code == 0 || !r.err.empty(), "failure without a message");
  if (!o.style.parsable && !o.style.parsable2) checkWidths(r.out);
  return 0;
}
