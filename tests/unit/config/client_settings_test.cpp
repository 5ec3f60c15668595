// The CLIs' reading of cluster.conf: what it must produce for files the fast path reads (only
// the controller, munge_socket and timeouts sections), and that anything it cannot read alone
// gives exactly the full parser's result or error.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/client_settings.h"
#include "drover/config.h"

namespace drover::config {
namespace {

constexpr std::string_view kRest =
    "cluster_name: c\n"
    "nodes:\n"
    "  - names: n[1-2]\n"
    "    address: 10.0.0.1\n"
    "    port: 7001-7002\n"
    "partitions:\n"
    "  - name: p\n"
    "    nodes: ALL\n";

struct Expected {
  std::string host;
  std::uint16_t cli_port;
  std::string munge_socket;
  std::uint32_t message_s;
};

struct ValidCase {
  std::string name;
  std::string text;
  Expected expected;
};

TEST(ClientSettings, ReadsTheClientSectionsOnly) {
  const std::vector<ValidCase> cases = {
      {"all three sections, between others",
       std::string(kRest) +
           "# comment\ncontroller:\n  host: ctl.example\n  port: 7000\n"
           "munge_socket: /run/m.sock\ntimeouts:\n  message: 25\n",
       {"ctl.example", 7002, "/run/m.sock", 25}},
      {"cli_port given; relative socket resolved against the file's directory",
       "controller:\n  host: h\n  port: 7000\n  cli_port: 7100\nmunge_socket: m/s.sock\n" +
           std::string(kRest),
       {"h", 7100, "/etc/drover/m/s.sock", 10}},
      {"a broken section the CLIs do not read is not validated",
       "controller:\n  host: h\n  port: 7000\nnodes: [not, a, node, group]\n",
       {"h", 7002, "", 10}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto s = parseClientSettings(c.text, "/etc/drover/cluster.conf");
    ASSERT_TRUE(s.ok()) << s.error();
    EXPECT_EQ(s->controller.host, c.expected.host);
    EXPECT_EQ(s->controller.cliPort(), c.expected.cli_port);
    EXPECT_EQ(s->munge_socket, c.expected.munge_socket);
    EXPECT_EQ(s->timeouts.message_s, c.expected.message_s);
  }
}

// sbcast and srun --bcast read their defaults (BcastParameters) from the client's file.
TEST(ClientSettings, ReadsTheBcastSection) {
  auto s = parseClientSettings(std::string(kRest) +
                                   "bcast:\n  dest_dir: /scratch\n  compression: lz4\n"
                                   "  send_libs: yes\n  exclude: [/opt/lib]\n",
                               "/etc/drover/cluster.conf");
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(s->bcast.dest_dir, "/scratch");
  EXPECT_EQ(s->bcast.compression, "lz4");
  EXPECT_TRUE(s->bcast.send_libs);
  EXPECT_EQ(bcastExcludeText(s->bcast), "/opt/lib");
  auto bad = parseClientSettings(std::string(kRest) + "bcast:\n  compression: gzip\n", "/etc/drover/cluster.conf");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("bcast.compression"), std::string::npos) << bad.error();
}

// srun reads its MPI default (Slurm's MpiDefault) from the client's file.
TEST(ClientSettings, ReadsTheStepsSectionsMpiDefault) {
  auto none = parseClientSettings(std::string(kRest), "/etc/drover/cluster.conf");
  ASSERT_TRUE(none.ok()) << none.error();
  EXPECT_EQ(none->steps.mpi_default, "none");
  auto s = parseClientSettings(std::string(kRest) + "steps:\n  pytorch_env: false\n  mpi_default: pmi2\n",
                               "/etc/drover/cluster.conf");
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(s->steps.mpi_default, "pmi2");
  EXPECT_FALSE(s->steps.pytorch_env);
  auto bad = parseClientSettings(std::string(kRest) + "steps:\n  mpi_default: pmix\n",
                                 "/etc/drover/cluster.conf");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("steps.mpi_default"), std::string::npos) << bad.error();
  EXPECT_NE(bad.error().find("pmi2"), std::string::npos) << bad.error();
}

// Documents the fast path leaves to the full parser, or whose client sections are wrong: the
// result is the full parser's, error message included (with the file's own line numbers).
TEST(ClientSettings, FallsBackToTheFullParser) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"bad port in controller (line 3)",
       std::string(kRest) + "controller:\n  host: h\n  port: 99999\n"},
      {"unknown key in timeouts", "timeouts:\n  mesage: 5\n" + std::string(kRest)},
      {"flow-style document",
       "{cluster_name: c, controller: {host: f, port: 7000}, nodes: [{names: n1, address: a, "
       "port: 1}], partitions: [{name: p, nodes: ALL}]}\n"},
      {"two documents", std::string(kRest) + "---\ncontroller:\n  host: h\n"},
      {"alias into a dropped section",
       "x: &port 7000\ncontroller:\n  host: h\n  port: *port\n" + std::string(kRest)},
      {"no client section at all", std::string(kRest)},
      {"empty file", ""},
  };
  for (const auto& [name, text] : cases) {
    SCOPED_TRACE(name);
    auto fast = parseClientSettings(text, "/etc/drover/cluster.conf");
    auto full = parseClusterConfig(text, "/etc/drover/cluster.conf");
    ASSERT_EQ(fast.ok(), full.ok()) << (fast.ok() ? full.error() : fast.error());
    if (!full.ok()) {
      EXPECT_EQ(fast.error(), full.error());
      continue;
    }
    EXPECT_EQ(fast->controller.host, full->controller.host);
    EXPECT_EQ(fast->controller.cliPort(), full->controller.cliPort());
    EXPECT_EQ(fast->munge_socket, full->munge_socket);
    EXPECT_EQ(fast->timeouts.message_s, full->timeouts.message_s);
  }
}

TEST(ClientSettings, ExampleFileGivesWhatTheFullParserGives) {
  auto fast = loadClientSettings(DROVER_EXAMPLE_CONF);
  auto full = loadClusterConfig(DROVER_EXAMPLE_CONF);
  ASSERT_TRUE(full.ok()) << full.error();
  ASSERT_TRUE(fast.ok()) << fast.error();
  EXPECT_EQ(fast->controller.host, full->controller.host);
  EXPECT_EQ(fast->controller.cliPort(), full->controller.cliPort());
  EXPECT_EQ(fast->munge_socket, full->munge_socket);
  EXPECT_EQ(fast->timeouts.message_s, full->timeouts.message_s);
}

TEST(ClientSettings, MissingFileIsAnError) {
  auto s = loadClientSettings("/nonexistent/drover/cluster.conf");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("cannot open cluster configuration"), std::string::npos) << s.error();
}

}  // namespace
}  // namespace drover::config
