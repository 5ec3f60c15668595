// sacctmgr's command line, as words: whatever they are, parsing gives a command or an error
// with a message, and a listing that parses renders against an account tree with every line
// of the fixed-width table as wide as its header.
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "cli/sacctmgr.h"
#include "cli/sacctmgr_query.h"
#include "cli/sacctmgr_view.h"
#include "fuzz_check.h"

namespace {

using namespace drover;

config::ClusterConfig treeConfig() {
  config::ClusterConfig c;
  c.cluster_name = "fuzz";
  c.controller.host = "127.0.0.1";
  c.controller.port = 6817;
  config::AccountConfig a;
  a.name = "research";
  a.users = {"alice", "bob"};
  c.accounts.push_back(a);
  a.name = "vision";
  a.parent = "research";
  a.users = {"carol"};
  a.priority = 7;
  c.accounts.push_back(a);
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::vector<std::string> args;
  for (std::string w; in >> w;) args.push_back(w);
  auto cmd = cli::parseSacctmgrArgs(args);
  if (!cmd.ok()) {
    FUZZ_CHECK(!cmd.error().empty(), "empty option error");
    return 0;
  }
  auto action = cli::parseSacctmgrWords(cmd->words, cmd->with_assoc);
  if (!action.ok()) {
    FUZZ_CHECK(!action.error().empty(), "empty command error");
    return 0;
  }
  if (action->verb != cli::SacctmgrVerb::kList) return 0;
  for (const auto& f : action->list.format) {
    if (f.width > 1000 || f.width < -1000) return 0;   // keep the fuzzer's lines small
  }
  static const config::ClusterConfig config = treeConfig();
  cli::TableStyle fixed;
  auto out = cli::renderSacctmgrList(action->list, config, fixed);
  if (!out.ok()) {
    FUZZ_CHECK(out.error().rfind("Unknown field '", 0) == 0, "unexpected render error");
    return 0;
  }
  const std::string& text = *out;
  const auto first = text.find('\n');
  FUZZ_CHECK(first != std::string::npos, "no header line");
  for (std::size_t start = 0; start < text.size();) {
    const auto end = text.find('\n', start);
    FUZZ_CHECK(end != std::string::npos, "unterminated line");
    FUZZ_CHECK(end - start == first, "lines of different widths");
    start = end + 1;
  }
  (void)cli::renderSacctmgrList(action->list, config, cmd->style);
  return 0;
}
