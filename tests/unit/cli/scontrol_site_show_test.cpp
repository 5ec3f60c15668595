// scontrol show daemons/aliases: which host names count as this machine, and which nodes a
// host name stands for (cli/scontrol_site_show.h).
#include "cli/scontrol_site_show.h"

#include <gtest/gtest.h>

namespace drover::cli {
namespace {

v1::GetNodesReply nodes(std::initializer_list<std::pair<const char*, const char*>> name_host) {
  v1::GetNodesReply reply;
  for (const auto& [name, host] : name_host) {
    auto* n = reply.add_nodes();
    n->set_name(name);
    n->set_hostname(host);
  }
  return reply;
}

TEST(ScontrolSiteShow, ThisHostIsItsNameLocalhostOrALoopbackAddress) {
  EXPECT_TRUE(isThisHost("127.0.0.1", "vm"));
  EXPECT_TRUE(isThisHost("127.0.1.1", "vm"));
  EXPECT_TRUE(isThisHost("::1", "vm"));
  EXPECT_TRUE(isThisHost("localhost", "vm"));
  EXPECT_TRUE(isThisHost("vm", "vm"));
  EXPECT_TRUE(isThisHost("vm.cluster.lan", "vm")) << "a full name of this host";
  EXPECT_TRUE(isThisHost("vm", "vm.cluster.lan"));
  EXPECT_FALSE(isThisHost("ctl01", "vm"));
  EXPECT_FALSE(isThisHost("10.0.0.1", "vm"));
  EXPECT_FALSE(isThisHost("vm", "")) << "no host name known";
}

TEST(ScontrolSiteShow, AHostStandsForTheNodesWhoseAgentsRegisteredFromIt) {
  const auto reply = nodes({{"gpu1", "host-a"}, {"gpu2", "host-a.lan"}, {"gpu3", "host-b"},
                            {"gpu4", ""}});
  EXPECT_EQ(nodesOfHost(reply, "host-a"), (std::vector<std::string>{"gpu1", "gpu2"}));
  EXPECT_EQ(nodesOfHost(reply, "host-b"), (std::vector<std::string>{"gpu3"}));
  EXPECT_TRUE(nodesOfHost(reply, "gpu1").empty()) << "a node name is no host name";
  EXPECT_TRUE(nodesOfHost(reply, "").empty()) << "a node that never registered has no host";
}

}  // namespace
}  // namespace drover::cli
