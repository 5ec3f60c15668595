#include "pmi/node_server.h"

#include <gtest/gtest.h>

#include "frames.h"

namespace drover::pmi {
namespace {

using testing::frame;

// Reads the replies a task got, whichever wire.
std::vector<Command> replies(NodeServer& server, std::size_t local, bool framed = false) {
  CommandReader reader;
  if (framed) reader.useFramedWire();
  reader.append(server.takeOutput(local));
  std::vector<Command> out;
  Command c;
  std::string error;
  while (reader.next(c, error) == CommandReader::Next::kCommand) out.push_back(c);
  EXPECT_TRUE(error.empty()) << error;
  return out;
}

std::string value(const Command& c, const char* key) {
  const std::string* v = c.find(key);
  return v ? *v : "<none>";
}

TEST(PmiNodeServer, Pmi1StepOnOneNodeExchangesItsKeysAtTheBarrier) {
  NodeServer server({"7.0", 2, {0, 1}});
  EXPECT_TRUE(server.started());
  for (std::size_t t : {0u, 1u}) {
    server.received(t, "cmd=init pmi_version=1 pmi_subversion=1\ncmd=get_maxes\ncmd=get_appnum\n"
                       "cmd=get_my_kvsname\ncmd=get_universe_size\n");
    auto r = replies(server, t);
    ASSERT_EQ(r.size(), 5u);
    EXPECT_EQ(r[0].name, "response_to_init");
    EXPECT_EQ(value(r[0], "rc"), "0");
    EXPECT_EQ(r[1].name, "maxes");
    EXPECT_EQ(value(r[1], "vallen_max"), "1024");
    EXPECT_EQ(value(r[2], "appnum"), "0");
    EXPECT_EQ(value(r[3], "kvsname"), "7.0");
    EXPECT_EQ(value(r[4], "size"), "2");
  }
  server.received(0, "cmd=put kvsname=7.0 key=card0 value=tcp://a\ncmd=barrier_in\n");
  auto r = replies(server, 0);
  ASSERT_EQ(r.size(), 1u);  // put_result; the barrier waits for task 1
  EXPECT_EQ(r[0].name, "put_result");
  server.received(1, "cmd=put kvsname=7.0 key=card1 value=tcp://b\ncmd=barrier_in\n");
  EXPECT_FALSE(server.takeFence());  // the whole step is here: nothing for srun
  ASSERT_EQ(replies(server, 0).size(), 1u);
  r = replies(server, 1);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[1].name, "barrier_out");
  server.received(0, "cmd=get kvsname=7.0 key=card1\ncmd=get kvsname=7.0 key=PMI_process_mapping\n"
                     "cmd=get kvsname=7.0 key=nothing\n");
  r = replies(server, 0);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(value(r[0], "value"), "tcp://b");
  EXPECT_EQ(value(r[1], "value"), "(vector,(0,1,2))");
  EXPECT_EQ(value(r[2], "rc"), "-1");
  server.received(0, "cmd=finalize\n");
  EXPECT_EQ(replies(server, 0).at(0).name, "finalize_ack");
}

TEST(PmiNodeServer, WaitsForTheLayoutAndFencesThroughSrun) {
  NodeServer server({"7.1", 4, {1, 3}});
  server.received(0, "cmd=init pmi_version=1 pmi_subversion=1\ncmd=put kvsname=7.1 key=k1 value=v1\n"
                     "cmd=barrier_in\n");
  EXPECT_FALSE(server.started());
  EXPECT_TRUE(replies(server, 0).empty());
  server.start("(vector,(0,2,1),(0,2,1))");
  server.start("(vector,(9,9,9))");  // later starts change nothing
  EXPECT_EQ(replies(server, 0).size(), 2u);
  EXPECT_FALSE(server.takeFence());  // task 1 has not entered it
  server.received(1, "cmd=init pmi_version=1 pmi_subversion=1\ncmd=put kvsname=7.1 key=k3 value=v3\n"
                     "cmd=barrier_in\n");
  auto fence = server.takeFence();
  ASSERT_TRUE(fence);
  EXPECT_EQ(fence->sequence, 1u);
  ASSERT_EQ(fence->pairs.size(), 2u);
  EXPECT_EQ(fence->pairs[0], (std::pair<std::string, std::string>{"k1", "v1"}));
  EXPECT_EQ(replies(server, 1).size(), 2u);  // no barrier_out yet
  server.fenceDone(2, {{"stale", "x"}});      // not this fence: ignored
  EXPECT_TRUE(replies(server, 0).empty());
  server.fenceDone(1, {{"k0", "v0"}, {"k1", "v1"}, {"k2", "v2"}, {"k3", "v3"}});
  EXPECT_EQ(replies(server, 0).at(0).name, "barrier_out");
  EXPECT_EQ(replies(server, 1).at(0).name, "barrier_out");
  server.received(1, "cmd=get kvsname=7.1 key=k2\ncmd=get kvsname=7.1 key=stale\n"
                     "cmd=get kvsname=7.1 key=PMI_process_mapping\n");
  auto r = replies(server, 1);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(value(r[0], "value"), "v2");
  EXPECT_EQ(value(r[1], "rc"), "-1");
  EXPECT_EQ(value(r[2], "value"), "(vector,(0,2,1),(0,2,1))");
  // The second fence: task 0 finalized and left, so task 1 alone makes it.
  server.received(0, "cmd=finalize\n");
  server.closed(0);
  server.received(1, "cmd=barrier_in\n");
  fence = server.takeFence();
  ASSERT_TRUE(fence);
  EXPECT_EQ(fence->sequence, 2u);
  EXPECT_TRUE(fence->pairs.empty());
}

TEST(PmiNodeServer, Pmi2ClientFromItsVersionTwoInit) {
  NodeServer server({"8.0", 2, {0, 1}});
  for (std::size_t t : {0u, 1u}) {
    server.received(t, "cmd=init pmi_version=2 pmi_subversion=0\n");
    auto r = replies(server, t);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(value(r[0], "pmi_version"), "2");
    server.received(t, frame("cmd=fullinit;pmijobid=8.0;pmirank=" + std::to_string(t) + ";threaded=FALSE;") +
                           frame("cmd=job-getid;") +
                           frame("cmd=info-getjobattr;key=PMI_process_mapping;") +
                           frame("cmd=info-getjobattr;key=PMI_hwloc_xmlfile;"));
    r = replies(server, t, true);
    ASSERT_EQ(r.size(), 4u);
    EXPECT_EQ(r[0].name, "fullinit-response");
    EXPECT_EQ(value(r[0], "rank"), std::to_string(t));
    EXPECT_EQ(value(r[0], "size"), "2");
    EXPECT_EQ(value(r[0], "debugged"), "FALSE");
    EXPECT_EQ(value(r[1], "jobid"), "8.0");
    EXPECT_EQ(value(r[2], "value"), "(vector,(0,1,2))");
    EXPECT_EQ(value(r[3], "found"), "FALSE");
  }
  // A node attribute awaited before it is put.
  server.received(1, frame("cmd=info-getnodeattr;key=shm;wait=TRUE;"));
  EXPECT_TRUE(replies(server, 1, true).empty());
  server.received(0, frame("cmd=info-putnodeattr;key=shm;value=/dev/shm/x;") +
                         frame("cmd=kvs-put;key=a;value=1;;2;") + frame("cmd=kvs-fence;"));
  auto r = replies(server, 1, true);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(value(r[0], "value"), "/dev/shm/x");
  server.received(1, frame("cmd=kvs-fence;") + frame("cmd=kvs-get;jobid=8.0;srcid=0;key=a;") +
                         frame("cmd=spawn;ncmds=1;"));
  r = replies(server, 1, true);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].name, "kvs-fence-response");
  EXPECT_EQ(value(r[1], "value"), "1;2");
  EXPECT_EQ(r[2].name, "spawn-response");
  EXPECT_EQ(value(r[2], "rc"), "-1");
  EXPECT_EQ(replies(server, 0, true).size(), 3u);
}

// Slurm's PMIX_Ring: places by rank across nodes (through srun's fence), neighbours' values
// wrapping, and no trace of it in the key-value space.
TEST(PmiNodeServer, RingThroughAFence) {
  NodeServer server({"8.1", 3, {0, 2}});
  server.start("(vector,(0,2,1),(0,1,1))");
  for (std::size_t t : {0u, 1u}) {
    server.received(t, "cmd=init pmi_version=2 pmi_subversion=0\n");
    server.takeOutput(t);
  }
  server.received(0, frame("cmd=ring;ring-count=1;ring-left=a;;0;ring-right=a;;0;"));
  server.received(1, frame("cmd=ring;ring-count=1;ring-left=a2;ring-right=a2;"));
  auto fence = server.takeFence();
  ASSERT_TRUE(fence);
  ASSERT_EQ(fence->pairs.size(), 2u);
  // srun adds node 1's entry (rank 1) to this node's two.
  Pairs all = fence->pairs;
  NodeServer other({"8.1", 3, {1}});
  other.start("(vector,(0,2,1),(0,1,1))");
  other.received(0, "cmd=init pmi_version=2 pmi_subversion=0\n");
  other.received(0, frame("cmd=ring;ring-count=1;ring-left=a1;ring-right=a1;"));
  auto theirs = other.takeFence();
  ASSERT_TRUE(theirs);
  all.insert(all.end(), theirs->pairs.begin(), theirs->pairs.end());
  server.fenceDone(1, all);
  auto r0 = replies(server, 0, true);
  ASSERT_EQ(r0.size(), 1u);
  EXPECT_EQ(r0[0].name, "ring-response");
  EXPECT_EQ(value(r0[0], "ring-count"), "0");
  EXPECT_EQ(value(r0[0], "ring-left"), "a2");    // wraps to the last rank
  EXPECT_EQ(value(r0[0], "ring-right"), "a1");
  auto r2 = replies(server, 1, true);
  ASSERT_EQ(r2.size(), 1u);
  EXPECT_EQ(value(r2[0], "ring-count"), "2");
  EXPECT_EQ(value(r2[0], "ring-left"), "a1");
  EXPECT_EQ(value(r2[0], "ring-right"), "a;0");  // ';' kept
  server.received(0, frame("cmd=kvs-get;key=\x1dring:1;"));
  EXPECT_EQ(value(replies(server, 0, true).at(0), "found"), "FALSE");
}

TEST(PmiNodeServer, AbortsAndBrokenClients) {
  NodeServer server({"9.0", 3, {0, 2}});
  server.start("(vector,(0,2,1),(0,1,1))");
  server.received(1, "cmd=abort exitcode=7\n");
  server.received(0, "this is not PMI\n");
  auto aborts = server.takeAborts();
  ASSERT_EQ(aborts.size(), 1u);
  EXPECT_EQ(aborts[0].rank, 2u);
  EXPECT_EQ(aborts[0].exit_code, 7);
  EXPECT_TRUE(server.takeAborts().empty());
  EXPECT_NE(server.protocolError(0).find("key=value"), std::string::npos) << server.protocolError(0);
  EXPECT_TRUE(server.protocolError(1).empty());
  server.received(0, "cmd=barrier_in\n");  // nothing more is read from a broken client
  EXPECT_TRUE(server.takeOutput(0).empty());
}

}  // namespace
}  // namespace drover::pmi
