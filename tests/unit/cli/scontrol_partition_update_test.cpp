// scontrol update PartitionName=: the request each line makes and the reference Slurm 22.05's
// words for the lines it refused (captured side by side, 2026-12-03).
#include "cli/scontrol_partition_update.h"

#include <gtest/gtest.h>

namespace drover::cli {
namespace {

Result<v1::UpdatePartitionRequest> parse(std::vector<std::string> words) {
  return parseUpdatePartition(words);
}

std::string refusal(std::vector<std::string> words) {
  auto r = parse(std::move(words));
  return r.ok() ? "(accepted)" : r.error();
}

TEST(ScontrolPartitionUpdate, NamesThePartitionByAnyCaseOfItsKey) {
  EXPECT_TRUE(updatesPartition({"partitionname=debug", "State=UP"}));
  EXPECT_TRUE(updatesPartition({"State=UP", "PartitionName=debug"}));
  EXPECT_FALSE(updatesPartition({"NodeName=node1", "State=DRAIN"}));
  EXPECT_TRUE(updatesPartition({"partition=debug", "state=drain"}));  // the reference took it
  EXPECT_FALSE(updatesPartition({"PartitionName"}));
}

TEST(ScontrolPartitionUpdate, EachKeyItsField) {
  auto r = parse({"PartitionName=debug", "state=d", "MaxTime=1:30", "DefaultTime=UNLIMITED",
                  "MaxNodes=infinite", "Default=yes", "Priority=7", "AllowAccounts=a,b",
                  "AllowGroups=ALL", "Nodes=node[1-2]", "Shared=EXCLUSIVE"});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->name(), "debug");
  EXPECT_EQ(r->state(), "DOWN");  // any beginning, the first of UP DOWN DRAIN INACTIVE
  EXPECT_EQ(r->max_time_min(), 2);  // seconds round up to a minute, as the reference's 00:02:00
  EXPECT_EQ(r->default_time_min(), -1);
  EXPECT_EQ(r->max_nodes(), -1);
  EXPECT_TRUE(r->is_default());
  EXPECT_EQ(r->priority_tier(), 7u);  // Priority= sets both, as the reference's
  EXPECT_EQ(r->priority_job_factor(), 7u);
  EXPECT_EQ(r->allow_accounts(), "a,b");
  EXPECT_EQ(r->allow_groups(), "ALL");
  EXPECT_EQ(r->nodes(), "node[1-2]");
  EXPECT_TRUE(r->exclusive());

  // Only what is given is set; the last of a repeated key (PartitionName too) wins.
  r = parse({"PartitionName=debug", "Partition=gpu", "State=UP", "State=dr", "MaxTime=-1",
             "Nodes="});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->name(), "gpu");
  EXPECT_EQ(r->state(), "DRAIN");
  EXPECT_EQ(r->max_time_min(), -1);
  EXPECT_TRUE(r->has_nodes());
  EXPECT_EQ(r->nodes(), "");
  EXPECT_FALSE(r->has_default_time_min());
  EXPECT_FALSE(r->has_priority_tier());
  EXPECT_FALSE(r->has_exclusive());
}

TEST(ScontrolPartitionUpdate, RefusedInTheReferencesWords) {
  const std::string no_error = "slurm_update error: No error\n";
  EXPECT_EQ(refusal({"PartitionName=debug", "State=DOWNX"}),
            "scontrol: error: Invalid input: State=DOWNX\n"
            "scontrol: error: Acceptable State values are UP, DOWN, DRAIN and INACTIVE\n" + no_error);
  EXPECT_EQ(refusal({"PartitionName=debug", "State="}),
            "scontrol: error: Invalid input: State=\n"
            "scontrol: error: Acceptable State values are UP, DOWN, DRAIN and INACTIVE\n" + no_error);
  EXPECT_EQ(refusal({"PartitionName=debug", "MaxTime=bogus"}),
            "scontrol: error: Invalid input MaxTime=bogus\n" + no_error);
  EXPECT_EQ(refusal({"PartitionName=debug", "DefaultTime=none"}),
            "scontrol: error: Invalid input DefaultTime=none\n" + no_error);
  EXPECT_EQ(refusal({"PartitionName=debug", "MaxNodes=x"}),
            "scontrol: error: Invalid numeric value \"x\" for MaxNodes.\n");
  EXPECT_EQ(refusal({"PartitionName=debug", "MaxNodes=-3"}),
            "scontrol: error: Invalid numeric value \"-3\" for MaxNodes.\n");
  EXPECT_EQ(refusal({"PartitionName=debug", "PriorityTier=70000"}),
            "scontrol: error: Invalid PriorityTier value: 70000\n" + no_error);
  EXPECT_EQ(refusal({"PartitionName=debug", "PriorityJobFactor=65534"}),
            "scontrol: error: Invalid PriorityJobFactor value: 65534\n" + no_error);
  EXPECT_EQ(refusal({"PartitionName=debug", "Default=maybe"}),
            "scontrol: error: Invalid input: Default=maybe\n"
            "scontrol: error: Acceptable Default values are YES and NO\n" + no_error);
  EXPECT_EQ(refusal({"PartitionName=debug", "OverSubscribe=bogus"}),
            "scontrol: error: Invalid input: OverSubscribe=bogus\n"
            "scontrol: error: Acceptable OverSubscribe values are NO, EXCLUSIVE, YES:#, and "
            "FORCE:#\n" + no_error);
  EXPECT_EQ(refusal({"PartitionName=debug", "Bogus=1"}),
            "scontrol: error: Update of this parameter is not supported: Bogus=1\n\n"
            "scontrol: error: Request aborted\n" + no_error);
  EXPECT_EQ(refusal({"PartitionName=debug", "=UP"}),
            "scontrol: error: Update of this parameter is not supported: =UP\n\n"
            "scontrol: error: Request aborted\n" + no_error);
  EXPECT_EQ(refusal({"PartitionName=debug", "State"}),
            "scontrol: error: Invalid input: State  Request aborted\n" + no_error);
  EXPECT_EQ(refusal({"PartitionName=debug"}), "scontrol: error: No changes specified\n");
}

TEST(ScontrolPartitionUpdate, CreateAndDeleteArePartitionCommandsByTheirFirstWord) {
  EXPECT_TRUE(isPartitionCreateOrDelete({"create", "PartitionName=extra", "Nodes=node3"}));
  EXPECT_TRUE(isPartitionCreateOrDelete({"cr", "partitionname=extra"}));
  EXPECT_TRUE(isPartitionCreateOrDelete({"delete", "PartitionName=extra"}));
  EXPECT_TRUE(isPartitionCreateOrDelete({"del", "partition=extra"}));  // the reference took both
  EXPECT_TRUE(isPartitionCreateOrDelete({"create", "partition=extra"}));
  EXPECT_FALSE(isPartitionCreateOrDelete({"create", "ReservationName=r", "PartitionName=p"}));
  EXPECT_FALSE(isPartitionCreateOrDelete({"delete", "reservation", "r"}));
  EXPECT_FALSE(isPartitionCreateOrDelete({"update", "PartitionName=p", "State=UP"}));
  EXPECT_FALSE(isPartitionCreateOrDelete({"create"}));

  // A creation may name the partition alone (the reference made one of no nodes).
  auto r = parseUpdatePartition({"PartitionName=extra"}, v1::UpdatePartitionRequest::CREATE);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->action(), v1::UpdatePartitionRequest::CREATE);
  EXPECT_EQ(r->name(), "extra");
  EXPECT_FALSE(r->has_nodes());
}

TEST(ScontrolPartitionUpdate, SlurmKeysDroverLacksAreNamed) {
  const std::string hidden = refusal({"PartitionName=debug", "Hidden=YES"});
  EXPECT_EQ(hidden.rfind("scontrol: error: Update of Hidden is not supported by Drover "
                         "(supported: State, ",
                         0),
            0u)
      << hidden;
  const std::string yes = refusal({"PartitionName=debug", "OverSubscribe=YES:4"});
  EXPECT_EQ(yes.rfind("scontrol: error: OverSubscribe=YES:4 is not supported by Drover", 0), 0u)
      << yes;
}

TEST(ScontrolPartitionUpdate, PreemptModeAndGraceTimeAsTheReferenceTookThem) {
  auto r = parseUpdatePartition({"PartitionName=low", "preemptmode=cancel", "GraceTime=30"},
                                v1::UpdatePartitionRequest::UPDATE);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->preempt_mode(), "CANCEL");
  EXPECT_EQ(r->grace_time_s(), 30u);
  // The reference's words for a bad value.
  EXPECT_EQ(refusal({"PartitionName=low", "PreemptMode=bogus"}),
            "scontrol: error: Invalid input: PreemptMode=bogus\nslurm_update error: No error\n");
  EXPECT_EQ(refusal({"PartitionName=low", "GraceTime=-1"}),
            "scontrol: error: Invalid GraceTime value: -1\nslurm_update error: No error\n");
  EXPECT_EQ(refusal({"PartitionName=low", "GraceTime=x"}),
            "scontrol: error: Invalid GraceTime value: x\nslurm_update error: No error\n");
  // What needs Slurm's gang scheduler, which the reference took.
  const std::string gang = refusal({"PartitionName=low", "PreemptMode=requeue,gang"});
  EXPECT_EQ(gang.rfind("scontrol: error: PreemptMode=requeue,gang is not supported by Drover", 0), 0u)
      << gang;
  EXPECT_EQ(refusal({"PartitionName=low", "PreemptMode=suspend"})
                .rfind("scontrol: error: PreemptMode=suspend is not supported by Drover", 0),
            0u);
}

}  // namespace
}  // namespace drover::cli
