// sstat's options: -j items as Slurm's sstat reads them, -o/-i/-p/-P/-n/--noconvert, and its
// errors.
#include <gtest/gtest.h>

#include "cli/sstat.h"

namespace drover::cli {
namespace {

Result<SstatCommand> parse(std::vector<std::string> args) {
  return parseSstatArgs(args);
}

TEST(SstatArgs, JobItems) {
  auto cmd = parse({"-j", "12,13.batch,14.3", "--jobs=15.extern"});
  ASSERT_TRUE(cmd.ok()) << cmd.error();
  ASSERT_EQ(cmd->targets.size(), 4u);
  EXPECT_EQ(cmd->targets[0].job_id, 12u);
  EXPECT_FALSE(cmd->targets[0].step_id);
  EXPECT_EQ(*cmd->targets[1].step_id, -5);
  EXPECT_EQ(cmd->targets[2].job_id, 14u);
  EXPECT_EQ(*cmd->targets[2].step_id, 3);
  EXPECT_EQ(*cmd->targets[3].step_id, -4);
}

TEST(SstatArgs, BadItemsAreSlurmsFatalErrors) {
  auto job = parse({"-j", "abc"});
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.error(), "fatal: Bad job/step specified: abc");
  // Slurm names the job in its text, not the step it could not read.
  auto step = parse({"-j", "7021.foo"});
  ASSERT_FALSE(step.ok());
  EXPECT_EQ(step.error(), "fatal: Bad step specified: 7021");
  EXPECT_FALSE(parse({"-j", "12.-1"}).ok());
}

TEST(SstatArgs, FormatsAndLayout) {
  auto cmd = parse({"-j", "1", "-o", "JobID,MaxRSS%12", "--fields=NTasks", "-p", "-n",
                    "--noconvert", "-a"});
  ASSERT_TRUE(cmd.ok()) << cmd.error();
  ASSERT_EQ(cmd->columns.size(), 3u);
  EXPECT_EQ(cmd->columns[1].width, 12);
  EXPECT_EQ(cmd->columns[2].field->name, "NTasks");
  EXPECT_EQ(cmd->render.parsable, acct::report::Parsable::kTrailing);
  EXPECT_FALSE(cmd->render.header);
  EXPECT_TRUE(cmd->render.noconvert);
  EXPECT_TRUE(cmd->all_steps);

  auto pids = parse({"-j", "1", "-i", "-o", "MaxRSS", "-P"});
  ASSERT_TRUE(pids.ok());
  ASSERT_EQ(pids->columns.size(), 3u);   // -i wins: JobID Nodelist Pids
  EXPECT_EQ(pids->columns[2].field->name, "Pids");
  EXPECT_EQ(pids->render.parsable, acct::report::Parsable::kNoTrailing);

  auto plain = parse({"-j", "1"});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->columns.size(), acct::report::sstatDefaultColumns().size());
  EXPECT_EQ(plain->columns.front().field->name, "JobID");
  EXPECT_EQ(plain->columns.back().field->name, "TRESUsageOutTot");
}

TEST(SstatArgs, ErrorsAreSlurms) {
  auto field = parse({"-j", "1", "-o", "Bogus"});
  ASSERT_FALSE(field.ok());
  EXPECT_EQ(field.error(), "Invalid field requested: \"Bogus\"");
  // sstat has no -u (it is sacct's and squeue's).
  auto user = parse({"-j", "1", "-u", "alice"});
  ASSERT_FALSE(user.ok());
  EXPECT_EQ(user.error(), "bare: sstat: invalid option -- 'u'");   // as the reference's
  // No -j at all parses; runSstat then says "You didn't give me any jobs to stat."
  auto none = parse({});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->targets.empty());
}

}  // namespace
}  // namespace drover::cli
