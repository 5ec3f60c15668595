#include <gtest/gtest.h>

#include "builders.h"
#include "sched/scheduler.h"

namespace drover::sched {
namespace {
using namespace testing;

TEST(Validate, RejectionsAtSubmission) {
  std::vector<Node> nodes = {NodeBuilder("gpu001", 0).gpus(8, "h100").features({"ib"}),
                             NodeBuilder("gpu002", 1).gpus(8, "h100")};
  Partition restricted = partition("vip");
  restricted.allowedAccounts = {"vip"};
  std::vector<Partition> parts = {partition(), restricted};
  struct Case {
    std::string name;
    Job job;
    RejectCode want;
  };
  std::vector<Case> cases = {
      {"fine", JobBuilder(1).gpusPerNode(8), RejectCode::None},
      {"unknown partition", JobBuilder(1).partition("nope"), RejectCode::InvalidPartition},
      {"account not allowed", JobBuilder(1).partition("vip"), RejectCode::InvalidAccount},
      {"unknown feature", JobBuilder(1).constraint("nvlink"), RejectCode::InvalidFeature},
      {"bad constraint", JobBuilder(1).constraint("a&&b"), RejectCode::InvalidFeature},
      {"unknown gpu type (golden 011)", JobBuilder(1).gpusPerNode(1, "a100"),
       RejectCode::NodeConfigUnavailable},
      {"unknown node", JobBuilder(1).require({"gpu999"}), RejectCode::InvalidNodeName},
      {"a node required and excluded (the reference's)",
       JobBuilder(1).nodes(2).require({"gpu001", "gpu002"}).exclude({"gpu002"}),
       RejectCode::InvalidNodeName},
      {"another node excluded", JobBuilder(1).require({"gpu001"}).exclude({"gpu002"}),
       RejectCode::None},
      {"more GPUs than any node", JobBuilder(1).gpusPerNode(9), RejectCode::NodeConfigUnavailable},
      {"more nodes than exist", JobBuilder(1).nodes(3), RejectCode::NodeConfigUnavailable},
      {"feature on too few nodes", JobBuilder(1).nodes(2).constraint("ib"),
       RejectCode::NodeConfigUnavailable},
      {"min above max", [] { Job j = JobBuilder(1).nodes(3); j.request.maxNodes = 2; return j; }(),
       RejectCode::InvalidNodeCount},
  };
  for (const auto& c : cases) {
    Validation v = validateRequest(c.job.request, nodes, parts);
    EXPECT_EQ(static_cast<int>(v.code), static_cast<int>(c.want)) << c.name << ": " << v.message;
  }
  Validation v = validateRequest(JobBuilder(1).gpusPerNode(9).build().request, nodes, parts);
  EXPECT_EQ(v.message.rfind("Requested node configuration is not available", 0), 0u) << v.message;
}

}  // namespace
}  // namespace drover::sched
