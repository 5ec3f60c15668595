// scontrol listpids/pidinfo's parsing and layout, and wait_job/notify's job ids, against what
// the reference Slurm 22.05 printed.
#include "cli/scontrol_pids.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "cli/scontrol_wait_notify.h"
#include "drover/accounting.h"

namespace drover::cli {
namespace {

TEST(ParsePidsTarget, JobsStepsAndTheReferencesComplaints) {
  auto target = [](const std::string& word) { return std::get<PidsTarget>(parsePidsTarget(word)); };
  EXPECT_EQ(target("").job_id, 0u);
  EXPECT_EQ(target("*").job_id, 0u);
  EXPECT_EQ(target("107").job_id, 107u);
  EXPECT_FALSE(target("107").step_id);
  EXPECT_EQ(*target("107.0").step_id, 0);
  EXPECT_EQ(*target("107.batch").step_id, acct::kBatchStep);
  auto complaint = [](const std::string& word) {
    return std::get<PidsTargetError>(parsePidsTarget(word));
  };
  EXPECT_EQ(complaint("abc").message, "\"abc\" does not look like a jobid");
  EXPECT_FALSE(complaint("abc").about_step);
  EXPECT_EQ(complaint("12x").message, "\"12x\" does not look like a jobid");
  EXPECT_EQ(complaint("12.x").message, "\"12.x\" does not look like a stepid");
  EXPECT_TRUE(complaint("12.x").about_step);
}

// The reference's table for a batch step (its shell, then the shell's children) and an srun
// step of three tasks on the node.
TEST(PidsTable, TheReferencesLayout) {
  v1::ListPidsReply reply;
  auto* batch = reply.add_steps();
  batch->set_job_id(107);
  batch->set_step_id(acct::kBatchStep);
  auto* shell = batch->add_tasks();
  shell->set_task(0);
  for (int pid : {21634, 21639, 21635}) shell->add_pids(pid);
  auto* step = reply.add_steps();
  step->set_job_id(107);
  step->set_step_id(0);
  for (std::uint32_t rank : {3u, 4u}) {
    auto* t = step->add_tasks();
    t->set_task(rank);
    t->add_pids(static_cast<int>(21658 + rank));
  }
  EXPECT_EQ(pidsTable(reply),
            "PID      JOBID    STEPID   LOCALID GLOBALID\n"
            "21634    107      batch    0       0       \n"
            "21639    107      batch    -       -       \n"
            "21635    107      batch    -       -       \n"
            "21661    107      0        0       3       \n"
            "21662    107      0        1       4       \n");
}

TEST(PidInfoLines, EndInCtimesLayoutAndSecondsLeft) {
  setenv("TZ", "UTC", 1);
  tzset();
  EXPECT_EQ(pidInfoLines(84058, 1579096444, 1579096444 - 3599),
            "Slurm job id 84058 ends at Wed Jan 15 13:54:04 2020\nslurm_get_rem_time is 3599\n");
  EXPECT_EQ(pidInfoLines(5, 1764806400, 0),   // day of month padded as ctime's
            "Slurm job id 5 ends at Thu Dec  4 00:00:00 2025\nslurm_get_rem_time is 1764806400\n");
  EXPECT_EQ(pidInfoLines(5, 0, 100), "Slurm job id 5 ends at Unknown\nslurm_get_rem_time is -1\n");
}

TEST(LeadingJobId, AsTheReferenceReadIt) {
  EXPECT_EQ(leadingJobId("106"), 106u);
  EXPECT_EQ(leadingJobId("106_1"), 106u);
  EXPECT_EQ(leadingJobId("106.0"), 106u);
  EXPECT_EQ(leadingJobId("5x"), 5u);
  EXPECT_FALSE(leadingJobId("abc"));
  EXPECT_FALSE(leadingJobId("0"));
  EXPECT_FALSE(leadingJobId(""));
}

}  // namespace
}  // namespace drover::cli
