// sstat's output against real Slurm 22.05's (golden/sstat-*.txt, captured on the reference
// cluster from a batch job running `srun -n2` of a python that holds 32 MiB): the field list,
// the default header, and rows rebuilt from the same tasks' figures.
#include <gtest/gtest.h>

#include "acct/report/sstat_format.h"
#include "acct/task_usage.h"
#include "golden_jobs.h"

namespace drover::acct::report {
namespace {

using testing::goldenStdout;

std::string firstLines(const std::string& text, int n) {
  std::size_t pos = 0;
  for (int i = 0; i < n && pos != std::string::npos; ++i) pos = text.find('\n', pos) + 1;
  return text.substr(0, pos);
}

std::vector<Column> format(const std::string& spec) {
  auto c = parseSstatFormat(spec);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error());
  return c.ok() ? *c : std::vector<Column>{};
}

// Step 7025.0 as its node reported it: two tasks, the second with the larger resident set.
SstatRow goldenStep() {
  SstatRow row;
  row.step.job_id = 7025;
  row.step.step_id = 0;
  row.step.nnodes = 1;
  row.step.ntasks = 2;
  row.step.node_list = "node01";
  std::vector<TaskUsage> tasks(2);
  for (std::uint32_t i = 0; i < 2; ++i) {
    tasks[i].node = "node01";
    tasks[i].task = i;
    tasks[i].vmsize_kb = 46728;
    tasks[i].read_bytes = 47817;
    tasks[i].write_bytes = 1;
  }
  tasks[0].rss_kb = 40776;
  tasks[1].rss_kb = 40876;
  addTaskUsage(tasks, &row.step.usage);
  return row;
}

TEST(SstatFormat, HelpFormatListsSlurmsFields) {
  EXPECT_EQ(renderSstatHelpFormat(), goldenStdout("sstat-helpformat.txt"));
}

TEST(SstatFormat, DefaultHeaderIsSlurms) {
  const std::string golden = goldenStdout("sstat-default.txt");
  EXPECT_EQ(renderSstat({}, sstatDefaultColumns(), {}), firstLines(golden, 2));
}

TEST(SstatFormat, ParsableRowMatchesSlurmsForTheSameTasks) {
  // Slurm prints a 1-byte write as "1.00M" (MaxDiskWrite, AveDiskWrite); Drover prints bytes
  // as it does for every other figure, so those two fields are compared apart.
  const std::string spec =
      "JobID,MaxVMSize,MaxVMSizeNode,MaxVMSizeTask,AveVMSize,MaxRSS,MaxRSSNode,MaxRSSTask,"
      "AveRSS,MaxPages,MaxPagesNode,MaxPagesTask,AvePages,MinCPU,MinCPUNode,MinCPUTask,AveCPU,"
      "NTasks,AveCPUFreq,ReqCPUFreq,ReqCPUFreqMin,ReqCPUFreqMax,ReqCPUFreqGov,ConsumedEnergy,"
      "ConsumedEnergyRaw,MaxDiskRead,MaxDiskReadNode,MaxDiskReadTask,AveDiskRead,MaxDiskWrite,"
      "MaxDiskWriteNode,MaxDiskWriteTask,AveDiskWrite,Nodelist";
  SstatOptions opts;
  opts.parsable = Parsable::kNoTrailing;
  std::string golden = goldenStdout("sstat-parsable2-fields.txt");
  std::string ours = renderSstat({goldenStep()}, format(spec), opts);
  const std::string slurm_write = "|1.00M|node01|0|1.00M|";
  const std::string drover_write = "|1|node01|0|1|";
  ASSERT_NE(golden.find(slurm_write), std::string::npos);
  golden.replace(golden.find(slurm_write), slurm_write.size(), drover_write);
  EXPECT_EQ(ours, golden);
}

TEST(SstatFormat, NoconvertPrintsBytesAndTheBatchStepsFrequenciesAreZero) {
  SstatRow row;
  row.step.job_id = 7025;
  row.step.step_id = kBatchStep;
  row.step.ntasks = 1;
  row.step.nnodes = 1;
  row.step.node_list = "node01";
  row.step.req_cpu_freq_min = row.step.req_cpu_freq_max = row.step.req_cpu_freq_gov = 0;
  std::vector<TaskUsage> tasks(1);
  tasks[0].node = "node01";
  tasks[0].rss_kb = 86120;
  tasks[0].vmsize_kb = 300860;
  addTaskUsage(tasks, &row.step.usage);
  SstatOptions opts;
  opts.parsable = Parsable::kTrailing;
  opts.noconvert = true;
  EXPECT_EQ(renderSstat({row}, format("JobID,MaxRSS,AveRSS,MaxVMSize,NTasks,Nodelist,ReqCPUFreqMin"),
                        opts),
            goldenStdout("sstat-batch-noconvert.txt"));
}

TEST(SstatFormat, PidFormatCutsLongPidLists) {
  SstatRow batch;
  batch.step.job_id = 7025;
  batch.step.step_id = kBatchStep;
  batch.step.node_list = "node01";
  batch.pids = {16535, 16531, 16532, 16530};
  SstatRow step = batch;
  step.step.step_id = 0;
  step.pids = {16547, 16548};
  EXPECT_EQ(renderSstat({batch, step}, sstatPidColumns(), {}),
            goldenStdout("sstat-pidformat.txt"));
}

TEST(SstatFormat, TresOutMinimumsAreSstatsOwn) {
  SstatRow row = goldenStep();
  row.tres_usage_out_min = "energy=0,fs/disk=1";
  row.tres_usage_out_min_node = "energy=node01,fs/disk=node01";
  row.tres_usage_out_min_task = "fs/disk=0";
  SstatOptions opts;
  opts.parsable = Parsable::kNoTrailing;
  opts.header = false;
  // As golden 7021.0 printed them.
  EXPECT_EQ(renderSstat({row}, format("TRESUsageOutMin,TRESUsageOutMinNode,TRESUsageOutMinTask"),
                        opts),
            "energy=0,fs/disk=1|energy=node01,fs/disk=node01|fs/disk=0\n");
}

TEST(SstatFormat, FieldsAreFoundInAnyCaseWithWidthsAndUnknownOnesAreRefused) {
  auto cols = parseSstatFormat("jobid,maxrss%-15,ntasks%3");
  ASSERT_TRUE(cols.ok());
  ASSERT_EQ(cols->size(), 3u);
  EXPECT_EQ((*cols)[0].field->name, "JobID");
  EXPECT_EQ((*cols)[1].width, 15);
  EXPECT_TRUE((*cols)[1].left);
  EXPECT_EQ((*cols)[2].width, 3);
  SstatRow row = goldenStep();
  EXPECT_EQ(renderSstat({row}, *cols, {}),
            "JobID        MaxRSS          NTa \n"
            "------------ --------------- --- \n"
            "7025.0       40876K            2 \n");
  auto bad = parseSstatFormat("JobID,Bogus");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "Invalid field requested: \"Bogus\"");
  // sacct's fields that sstat does not have are unknown here.
  EXPECT_FALSE(parseSstatFormat("State").ok());
}

TEST(SstatFormat, AStepWithoutFiguresPrintsBlanks) {
  SstatRow row;
  row.step.job_id = 5;
  row.step.step_id = 1;
  row.step.ntasks = 4;
  SstatOptions opts;
  opts.parsable = Parsable::kNoTrailing;
  opts.header = false;
  EXPECT_EQ(renderSstat({row}, format("JobID,MaxRSS,AveCPU,NTasks,MaxDiskRead"), opts),
            "5.1|||4|\n");
}

}  // namespace
}  // namespace drover::acct::report
