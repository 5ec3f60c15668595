// squeue asks the controller only for the fields its output reads (squeueFields ->
// GetJobsRequest.fields, filled by the controller's jobs::JobFieldMask). Every format code, -O
// field and built-in view must print the same from those partial rows as from whole records.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "cli/squeue.h"
#include "cli/squeue_steps.h"
#include "cli/squeue_view.h"
#include "job_fixture.h"
#include "jobs/job_fields.h"

namespace drover::cli {
namespace {

using testing::at;
using testing::JobBuilder;
using testing::referenceJobs;

constexpr std::int64_t kNow = testing::at(12, 40, 0);

// The reference cluster plus jobs with every field a code can read set to something visible.
std::vector<v1::JobInfo> jobs() {
  auto out = referenceJobs();
  v1::JobInfo full = JobBuilder(40, "full").running("node[01-02]", "node01")
                         .times(at(12, 0, 0), at(12, 1, 0), at(13, 1, 0)).priority(77).limit(60)
                         .size(2, 16, 2).reqNodes("node[01-02]").dependency("afterany:3")
                         .tres("cpu=16,node=2", "cpu=16,node=2").build();
  full.set_command("/home/alice/run.sh");
  full.set_features("a100");
  full.set_exc_nodes("node03");
  full.set_qos("high");
  full.set_nice(5);
  full.set_reason("None");
  auto* spec = full.mutable_spec();
  spec->set_comment("a comment");
  spec->set_reservation("maint");
  spec->set_cpus_per_task(8);
  spec->set_min_nodes(2);
  spec->set_mem_per_cpu_mb(0);
  spec->set_mem_per_node_mb(65536);
  spec->set_exclusive(true);
  auto* g = spec->add_gres();
  g->set_name("gpu");
  g->set_type("a100");
  g->set_count(4);
  spec->mutable_gpus_per_node()->set_count(4);
  spec->set_submit_line("sbatch --wrap=true");
  spec->set_std_out("out_%j.txt");
  spec->set_std_err("/tmp/err_%j.txt");
  spec->set_std_in("in.txt");
  spec->set_time_min_min(30);
  spec->set_max_nodes(3);
  spec->set_ntasks(2);
  spec->set_ntasks_per_node(1);
  spec->set_reboot(true);
  spec->set_cpus_per_gpu(4);
  spec->set_mem_per_gpu_mb(2048);
  spec->set_gpu_bind("closest");
  spec->set_begin_time(at(11, 0, 0));
  spec->mutable_gpus()->set_count(8);
  spec->mutable_gpus_per_task()->set_count(1);
  full.set_exit_code(2);
  full.set_exit_signal(0);
  full.set_restart_count(3);
  full.set_derived_exit_code(1);
  full.set_requeue(false);
  full.set_batch(false);
  full.set_eligible_time(at(12, 0, 30));
  spec->set_script("#!/bin/sh\n");
  (*spec->mutable_environment())["PATH"] = "/bin";
  out.push_back(full);
  v1::JobInfo nodes_unset = JobBuilder(41, "minnodes").pending("Resources")
                                .times(at(12, 2, 0), 0, 0).limit(-1).build();
  nodes_unset.set_num_nodes(0);
  nodes_unset.mutable_spec()->set_min_nodes(3);
  nodes_unset.set_group("");
  nodes_unset.set_user("");
  nodes_unset.set_account("");
  out.push_back(nodes_unset);
  v1::JobInfo done = JobBuilder(42, "done").state(v1::JOB_FAILED, "NonZeroExitCode")
                         .times(at(11, 0, 0), at(11, 1, 0), at(11, 2, 0)).build();
  done.set_run_time_s(60);
  done.set_nodes("node04");
  out.push_back(done);
  // A batch shell a signal ended: JobLaunchFailure, read from the signal.
  v1::JobInfo killed = JobBuilder(44, "killed").state(v1::JOB_FAILED).build();
  killed.set_exit_signal(9);
  out.push_back(killed);
  // requeuehold: the reason columns show the description, so the masks must carry it.
  v1::JobInfo requeued = JobBuilder(43, "requeued").pending("JobHeldUser").build();
  requeued.set_held_user(true);
  requeued.set_reason_description("job requeued in held state");
  requeued.mutable_spec()->set_begin_time(at(11, 30, 0));
  out.push_back(requeued);
  return out;
}

// What the controller would send for these options.
std::vector<v1::JobInfo> masked(const SqueueOptions& options, const std::vector<v1::JobInfo>& full) {
  const SqueueFields fields = squeueFields(options);
  v1::GetJobsRequest request;
  for (auto n : fields.info) request.add_fields(n);
  for (auto n : fields.spec) request.add_spec_fields(n);
  const auto mask = jobs::JobFieldMask::fromRequest(request);
  std::vector<v1::JobInfo> out;
  for (const auto& j : full) mask.copy(j, &out.emplace_back());
  return out;
}

class SqueueFieldsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
  void expectSame(const std::vector<std::string>& args) {
    auto cmd = parseSqueueArgs(args);
    ASSERT_TRUE(cmd.ok()) << cmd.error();
    const auto full = jobs();
    auto want = renderSqueue(cmd->options, full, kNow);
    auto got = renderSqueue(cmd->options, masked(cmd->options, full), kNow);
    ASSERT_TRUE(want.ok()) << want.error();
    ASSERT_TRUE(got.ok()) << got.error();
    EXPECT_EQ(*got, *want) << ::testing::PrintToString(args);
    EXPECT_GT(want->size(), 0u);
  }
};

constexpr const char* kCodes = "iAFKjuUgGaPTtrRSVeLMlNDcCZombQpqyEkvfBYnxh";

TEST_F(SqueueFieldsTest, EveryFormatCodeRendersTheSameFromItsFields) {
  for (const char* c = kCodes; *c; ++c) {
    expectSame({"-t", "all", "-o", std::string("%.12") + *c});
    expectSame({"-t", "all", "-r", "-o", std::string("%") + *c + "|%i"});
  }
}

TEST_F(SqueueFieldsTest, EveryLongFieldRendersTheSameFromItsFields) {
  const auto names = squeueLongFieldNames();
  EXPECT_GT(names.size(), 100u);
  for (std::string_view f : names) expectSame({"-t", "all", "-O", std::string(f) + ":30"});
}

TEST_F(SqueueFieldsTest, BuiltInViewsFiltersAndSortsRenderTheSame) {
  const std::vector<std::vector<std::string>> cases = {
      {},
      {"-l"},
      {"--start"},
      {"-r"},
      {"-h", "-t", "PD", "-o", "%i"},
      {"-u", "alice"},
      {"-u", "1002"},
      {"-A", "research"},
      {"-q", "high", "-o", "%i"},   // filters on fields the format does not show
      {"-R", "maint", "-o", "%i"},
      {"-n", "arr"},
      {"-p", "gpu"},
      {"-j", "29"},
      {"-j", "29_3", "-r"},
      {"-w", "node01"},
      {"-t", "all", "-S", "-V,j"},
      {"-t", "all", "-S", "M,-l,D,C,N,u,i,S,Q"},
  };
  for (const auto& args : cases) expectSame(args);
}

TEST_F(SqueueFieldsTest, DefaultViewAsksForAFewSmallFields) {
  const SqueueFields fields = squeueFields(SqueueOptions{});
  const auto full = jobs();
  const auto rows = masked(SqueueOptions{}, full);
  ASSERT_EQ(rows.size(), full.size());
  for (const auto& row : rows) {
    EXPECT_TRUE(row.spec().script().empty());
    EXPECT_TRUE(row.spec().submit_line().empty());
    EXPECT_TRUE(row.work_dir().empty());
    EXPECT_TRUE(row.std_out().empty());
    EXPECT_TRUE(row.req_tres().empty());
  }
  // The spec carries min_nodes only (NODES of a job not yet given nodes).
  EXPECT_EQ(fields.spec, std::vector<std::uint32_t>{v1::JobSpec::kMinNodesFieldNumber});
  const auto& full_row = full[full.size() - 3];
  const auto& small_row = rows[rows.size() - 3];
  EXPECT_LT(small_row.ByteSizeLong() * 3, full_row.ByteSizeLong());
}

TEST_F(SqueueFieldsTest, JsonAsksForEverything) {
  SqueueOptions o;
  o.json = true;
  EXPECT_TRUE(squeueFields(o).info.empty());
  const auto full = jobs();
  const auto rows = masked(o, full);
  for (std::size_t i = 0; i < full.size(); ++i)
    EXPECT_EQ(rows[i].SerializeAsString(), full[i].SerializeAsString());
}

TEST(JobFieldMaskTest, CopiesOnlyTheNamedFieldsAndSpecFields) {
  v1::JobInfo job = JobBuilder(7, "x").running("node01", "node01").build();
  job.mutable_spec()->set_comment("c");
  job.mutable_spec()->set_min_nodes(2);
  job.add_allocation()->set_node("node01");
  v1::GetJobsRequest request;
  request.add_fields(v1::JobInfo::kJobIdFieldNumber);
  request.add_fields(v1::JobInfo::kAllocationFieldNumber);
  request.add_fields(v1::JobInfo::kSpecFieldNumber);
  request.add_fields(9999);  // unknown: ignored
  request.add_spec_fields(v1::JobSpec::kMinNodesFieldNumber);
  v1::JobInfo row;
  jobs::JobFieldMask::fromRequest(request).copy(job, &row);
  EXPECT_EQ(row.job_id(), 7u);
  EXPECT_TRUE(row.name().empty());
  EXPECT_TRUE(row.nodes().empty());
  ASSERT_EQ(row.allocation_size(), 1);
  EXPECT_EQ(row.allocation(0).node(), "node01");
  EXPECT_EQ(row.spec().min_nodes(), 2u);
  EXPECT_TRUE(row.spec().comment().empty());

  request.clear_spec_fields();  // the whole spec
  v1::JobInfo with_spec;
  jobs::JobFieldMask::fromRequest(request).copy(job, &with_spec);
  EXPECT_EQ(with_spec.spec().SerializeAsString(), job.spec().SerializeAsString());

  v1::JobInfo all;
  jobs::JobFieldMask::fromRequest(v1::GetJobsRequest{}).copy(job, &all);
  EXPECT_EQ(all.SerializeAsString(), job.SerializeAsString());
}


// squeue -s asks for squeueStepFields() only: every step code and -O field prints the same from
// those rows (the batch step is made of the job's batch host and start), and each step comes
// without the per-task usage its nodes reported so far.
TEST(StepFieldsTest, StepViewsPrintTheSameFromTheStepFields) {
  setenv("TZ", "UTC", 1);
  tzset();
  std::vector<v1::JobInfo> full = {
      JobBuilder(40, "steps").running("node[01-02]", "node01").times(at(12, 0, 0), at(12, 1, 0), 0).build(),
      JobBuilder(41, "alloc").user("bob", 1002).running("node03", "node03").build(),
      JobBuilder(42, "task").array(29, 4).running("node04", "node04").build()};
  full[1].set_batch(false);  // an allocation of srun's own: no batch step
  for (auto& j : full) {
    v1::JobStep* s = j.add_steps();
    s->set_step_id(j.job_id() == 40 ? 3 : 0);
    s->set_name("sleep");
    s->add_nodes()->set_node(j.batch_host());
    s->mutable_nodes(0)->set_cpus(2);
    s->set_ntasks(2);
    s->set_start_time(at(12, 5, 0));
    s->set_time_limit_min(j.job_id() == 40 ? 7 : 0);
    s->set_tres_per_node("gres:gpu:1");
    s->add_task_usage()->set_rss_kb(1);
  }
  v1::GetJobsRequest request;
  for (auto n : squeueStepFields().info) request.add_fields(n);
  const auto mask = jobs::JobFieldMask::fromRequest(request);
  std::vector<v1::JobInfo> rows;
  for (const auto& j : full) mask.copy(j, &rows.emplace_back());
  for (const auto& j : rows) {
    ASSERT_EQ(j.steps_size(), 1);
    EXPECT_EQ(j.steps(0).task_usage_size(), 0);
    EXPECT_TRUE(j.name().empty());  // not asked for
  }
  auto render = [](const std::vector<std::string>& args, const std::vector<v1::JobInfo>& jobs) {
    auto cmd = parseSqueueArgs(args);
    EXPECT_TRUE(cmd.ok()) << cmd.error();
    std::vector<const v1::JobInfo*> ptrs;
    for (const auto& j : jobs) ptrs.push_back(&j);
    std::string out;
    std::vector<std::string> warnings;
    EXPECT_TRUE(renderSqueueStepsTo(cmd->options, ptrs, kNow, &out, &warnings).ok());
    return out;
  };
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"-s"},
           {"-s", "-o", "%all"},
           {"-s", "-u", "bob", "-w", "node03", "-S", "-M,j"},
           {"-s29_4.0", "-p", "gpu"},
           {"-s", "-O", "StepID,StepName,StepState,Nodes,NumTasks,NumCPUs,Partition,StartTime,TimeLimit,"
                        "TimeUsed,UserName,UserID,JobID,ArrayJobID,ArrayTaskID"}}) {
    const std::string want = render(args, full);
    EXPECT_EQ(render(args, rows), want) << ::testing::PrintToString(args);
    EXPECT_GT(std::count(want.begin(), want.end(), '\n'), 1) << want;
  }
}

}  // namespace
}  // namespace drover::cli
