// A pending job's reason code and the words squeue shows for it when nodes are down or drained
// (jobs/pending_description.h), through the real scheduler and job manager.
#include "jobs/pending_description.h"

#include "jobs_fixture.h"

namespace drover::jobs::testing {
namespace {

class PendingDescriptionTest : public JobsTest {
 protected:
  // A job on `nodelist` taking every CPU of its nodes (4 each).
  v1::JobSpec on(const std::string& nodelist, std::uint32_t nodes = 1) {
    v1::JobSpec s = SpecBuilder().time(30).nodes(nodes).ntasks(4 * nodes).spec();
    s.set_nodelist(nodelist);
    return s;
  }
};

TEST_F(PendingDescriptionTest, RequiredNodesThatAreDownAreNamed) {
  down_ = {"node02", "node04"};
  const JobId one = submit(on("node04"));
  const JobId three = submit(on("node[02-04]", 3));
  pass();
  // The reference: code ReqNodeNotAvail (sacct, squeue --json), the nodes in the description.
  EXPECT_EQ(job(one).reason(), "ReqNodeNotAvail");
  EXPECT_EQ(job(one).reason_description(), "ReqNodeNotAvail, UnavailableNodes:node04");
  EXPECT_EQ(job(three).reason_description(), "ReqNodeNotAvail, UnavailableNodes:node[02,04]")
      << "only the required nodes that are down, not node03";
  // node04 comes back: the first job starts; the other still waits for node02 alone.
  down_ = {"node02"};
  pass();
  EXPECT_EQ(job(one).state(), v1::JOB_RUNNING);
  EXPECT_EQ(job(three).reason_description(), "ReqNodeNotAvail, UnavailableNodes:node02");
  down_.clear();
  pass();
  EXPECT_EQ(job(three).reason(), "Resources") << "node04 is busy with the first job";
  EXPECT_EQ(job(three).reason_description(), "");
}

// The reference (2026-12-03): behind a job that waits for its -w node, a smaller job naming the
// same node said `ReqNodeNotAvail, UnavailableNodes:node02`, not Priority.
TEST_F(PendingDescriptionTest, RequiredNodesAJobAheadWaitsForAreNamed) {
  const JobId running = submit(on("node04"));
  pass();
  ASSERT_EQ(job(running).state(), v1::JOB_RUNNING);
  const JobId waiting = submit(on("node04"));
  v1::JobSpec small = SpecBuilder().time(30).spec();
  small.set_nodelist("node[03-04]");
  small.set_min_nodes(2);
  small.set_ntasks(2);
  small.set_nice(1000);  // ranked after `waiting`, whatever its size weighs
  const JobId behind = submit(small);
  pass();
  EXPECT_EQ(job(waiting).reason(), "Resources");
  EXPECT_EQ(job(behind).reason(), "ReqNodeNotAvail");
  EXPECT_EQ(job(behind).reason_description(), "ReqNodeNotAvail, UnavailableNodes:node04")
      << "only the node the job ahead requires, not node03";
  // The job ahead gone, the one behind waits for node04's CPUs like any other.
  v1::CancelJobsRequest cancel;
  cancel.add_job_ids(std::to_string(waiting));
  ASSERT_TRUE(manager_->cancel(alice(), cancel)[0].ok());
  pass();
  EXPECT_EQ(job(behind).reason(), "Resources");
  EXPECT_EQ(job(behind).reason_description(), "");
}

TEST_F(PendingDescriptionTest, TooFewNodesUpInThePartitionIsSaidInSlurmsWords) {
  down_ = {"node04"};
  const JobId four = submit(SpecBuilder().time(30).nodes(4));
  const JobId three = submit(SpecBuilder().time(30).nodes(3).ntasks(12));
  pass();
  EXPECT_EQ(job(four).reason(), "Resources");
  EXPECT_EQ(job(four).reason_description(), kNodesDownDescription);
  EXPECT_EQ(job(three).state(), v1::JOB_RUNNING) << "three nodes are up";
  // The three up nodes are busy: the four-node job still waits for the node that is down.
  pass();
  EXPECT_EQ(job(four).reason_description(), kNodesDownDescription);
  down_.clear();
  pass();
  EXPECT_EQ(job(four).reason(), "Resources") << "all four up, three of them full";
  EXPECT_EQ(job(four).reason_description(), "");
}

// The same through the controller's maintained scheduler, whose apply leaves entries equal to
// the last written ones (a change in the nodes makes it write every entry again).
TEST_F(PendingDescriptionTest, TheControllersPassSaysSoToo) {
  auto controllerPass = [&] {
    manager_->schedulePass(nodeViews());
    ASSERT_TRUE(manager_->commit().ok());
  };
  down_ = {"node04"};
  const JobId three = submit(SpecBuilder().time(30).nodes(3).ntasks(12));
  const JobId four = submit(SpecBuilder().time(30).nodes(4));
  controllerPass();
  ASSERT_EQ(job(three).state(), v1::JOB_RUNNING);
  EXPECT_EQ(job(four).reason(), "Resources");
  EXPECT_EQ(job(four).reason_description(), kNodesDownDescription);
  controllerPass();
  EXPECT_EQ(job(four).reason_description(), kNodesDownDescription);
  down_.clear();
  controllerPass();
  EXPECT_EQ(job(four).reason(), "Resources") << "all four up, three of them full";
  EXPECT_EQ(job(four).reason_description(), "");
}

TEST_F(PendingDescriptionTest, APartitionWhoseOnlyNodeIsDown) {
  down_ = {"node01"};
  const JobId debug = submit(SpecBuilder().time(10).partition("debug"));
  pass();
  EXPECT_EQ(job(debug).reason(), "Resources");
  EXPECT_EQ(job(debug).reason_description(), kNodesDownDescription);
}

TEST_F(PendingDescriptionTest, AHoldReplacesTheDescriptionAndARequeueHoldKeepsItsOwn) {
  down_ = {"node04"};
  const JobId id = submit(on("node04"));
  pass();
  ASSERT_EQ(job(id).reason_description(), "ReqNodeNotAvail, UnavailableNodes:node04");
  ASSERT_TRUE(manager_->control(alice(), act("hold", std::to_string(id)))[0].ok());
  pass();
  EXPECT_EQ(job(id).reason(), "JobHeldUser");
  EXPECT_EQ(job(id).reason_description(), "");
  ASSERT_TRUE(manager_->control(alice(), act("release", std::to_string(id)))[0].ok());
  pass();
  EXPECT_EQ(job(id).reason_description(), "ReqNodeNotAvail, UnavailableNodes:node04");
}

TEST(NodeAvailabilityTest, CountsUsableNodesOfThePartitionTheJobDoesNotExclude) {
  NodeAvailability a;
  std::vector<sched::Node> nodes(3);
  nodes[0].name = "n1";
  nodes[1].name = "n2";
  nodes[2].name = "n3";
  for (auto& n : nodes) n.partitions = {"p"};
  nodes[2].usable = false;
  a.reset(nodes);
  sched::JobRequest r;
  r.partition = "p";
  EXPECT_EQ(a.usableFor(r), 2);
  r.excludedNodes = {"n1", "n3"};  // n3 is down already: excluding it changes nothing
  EXPECT_EQ(a.usableFor(r), 1);
  r.requiredNodes = {"n3", "ghost", "n2"};
  EXPECT_EQ(a.unavailableRequired(r), (std::vector<std::string>{"n3", "ghost"}));
  EXPECT_EQ(pendingDescription(NodeAvailability{}, r, sched::Reason::ReqNodeNotAvail), "")
      << "no view of the nodes yet";
}

}  // namespace
}  // namespace drover::jobs::testing
