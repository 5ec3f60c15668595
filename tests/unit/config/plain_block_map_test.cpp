// The CLIs' fast reading of cluster.conf's client sections: which texts it reads itself (the
// usual file's) and which it leaves to yaml-cpp. That what it reads equals yaml-cpp's tree is
// the fuzz target's job (tests/fuzz/fuzz_plain_block_map.cpp).
#include "config/plain_block_map.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace drover::config {
namespace {

TEST(PlainBlockMap, ReadsSectionsOfPlainKeyValueLines) {
  auto node = loadPlainBlockMap(
      "# header\n"
      "controller:\n"
      "  host: 127.0.0.1          # address clients connect to\n"
      "  cli_port: 7818\n"
      "\n"
      "munge_socket: /run/munge/munge.socket.2\n"
      "timeouts:\n"
      "    message: 10   \n"
      "    kill_wait: 5#not a comment\n");
  ASSERT_TRUE(node.has_value());
  EXPECT_EQ((*node)["controller"]["host"].Scalar(), "127.0.0.1");
  EXPECT_EQ((*node)["controller"]["cli_port"].as<int>(), 7818);
  EXPECT_EQ((*node)["munge_socket"].Scalar(), "/run/munge/munge.socket.2");
  EXPECT_EQ((*node)["timeouts"]["message"].Scalar(), "10");
  EXPECT_EQ((*node)["timeouts"]["kill_wait"].Scalar(), "5#not a comment");
  EXPECT_EQ(node->size(), 3u);
}

TEST(PlainBlockMap, LeavesEverythingElseToYamlCpp) {
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"quoted value", "a: \"x\"\n"},
      {"flow collection", "a: [1, 2]\n"},
      {"sequence", "a:\n  - 1\n"},
      {"anchor", "a: &x 1\n"},
      {"null value", "a: ~\n"},
      {"null key (found by the fuzz target)", "a:\n NULL: 1\n"},
      {"section with nothing under it", "a:\nb: 1\n"},
      {"three levels", "a:\n  b:\n    c: 1\n"},
      {"uneven indentation", "a:\n  b: 1\n   c: 2\n"},
      {"duplicate key", "a: 1\na: 2\n"},
      {"duplicate key in a section", "a:\n  b: 1\n  b: 2\n"},
      {"tab", "a:\n\tb: 1\n"},
      {"carriage return", "a: 1\r\n"},
      {"multi-line scalar", "a: 1\n  2\n"},
      {"no space after the colon", "a:b\n"},
      {"nested mapping on one line", "a: b: c\n"},
      {"document marker", "---\na: 1\n"},
      {"non-ASCII", "a: \xc3\xa9\n"},
      {"nothing but comments", "# x\n\n"},
  };
  for (const auto& [name, text] : cases) {
    EXPECT_FALSE(loadPlainBlockMap(text).has_value()) << name;
  }
}

// The shipped example, cut to what the CLIs read (as client_settings.cpp does), is read here.
TEST(PlainBlockMap, ReadsTheExampleFilesClientSections) {
  std::ifstream in(DROVER_EXAMPLE_CONF);
  std::stringstream all;
  all << in.rdbuf();
  std::string kept, line;
  bool keep = false;
  while (std::getline(all, line)) {
    if (!line.empty() && line[0] != ' ' && line[0] != '#') {
      keep = line.rfind("controller:", 0) == 0 || line.rfind("munge_socket:", 0) == 0 ||
             line.rfind("timeouts:", 0) == 0;
    }
    kept += (keep ? line : std::string()) + "\n";
  }
  auto node = loadPlainBlockMap(kept);
  ASSERT_TRUE(node.has_value()) << kept;
  EXPECT_TRUE((*node)["controller"]["host"].IsScalar());
  EXPECT_TRUE((*node)["timeouts"]["message"].IsScalar());
}

}  // namespace
}  // namespace drover::config
