// sbatch's replies and refusals against Slurm's captured outputs (golden 007-017, 025-027, 065),
// and the parsed request on the wire (toWireSpec).
#include "cli/sbatch.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "cli/job_spec_wire.h"
#include "jobspec/build_spec.h"
#include "reference_cluster.h"

namespace drover::cli {
namespace {

using testing::goldenStdout;

std::string goldenStderr(const std::string& file) {
  std::ifstream in(std::string(DROVER_CLI_GOLDEN_DIR) + "/" + file);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const auto e = text.find("# [stderr]\n");
  return e == std::string::npos ? "" : text.substr(e + 11);
}

v1::SubmitJobReply reply(std::uint64_t id, std::string cluster = "") {
  v1::SubmitJobReply r;
  r.set_job_id(id);
  r.set_cluster_name(std::move(cluster));
  return r;
}

TEST(SbatchTest, SubmittedLinesMatchGoldens) {
  EXPECT_EQ(formatSubmitted(reply(5, "oracle"), true, false), goldenStdout("025-sbatch-parsable.txt"));
  EXPECT_EQ(formatSubmitted(reply(6, "oracle"), true, true), goldenStdout("026-sbatch-parsable-cluster-name.txt"));
  EXPECT_EQ(formatSubmitted(reply(7), false, false), goldenStdout("027-sbatch-plain-wrap.txt"));
}

TEST(SbatchTest, RefusalsMatchGoldens) {
  struct Case {
    std::string controller_message;
    std::string golden;
  };
  const std::vector<Case> cases = {
      {"invalid partition specified: nosuch\nInvalid partition name specified", "007-err-unknown-partition.txt"},
      {"Invalid generic resource (gres) specification", "009-err-gres-unknown-name.txt"},
      {"Requested node configuration is not available", "010-err-gres-too-many.txt"},
      {"Node count specification invalid", "013-err-too-many-nodes.txt"},
      {"Memory specification can not be satisfied\nRequested node configuration is not available",
       "016-err-mem-too-large.txt"},
      {"Batch job submission failed: Invalid account or account/partition combination specified",
       "017-err-unknown-account.txt"},
      {"Requested time limit is invalid (missing or exceeds some limit)", "065-sbatch-debug-overlimit.txt"},
  };
  for (const auto& c : cases) EXPECT_EQ(formatSubmitFailure(c.controller_message), goldenStderr(c.golden)) << c.golden;
  // --test-only: the reference's `allocation failure: <why>`, hints as usual before it.
  EXPECT_EQ(formatSubmitFailure("Node count specification invalid", true),
            "allocation failure: Node count specification invalid\n");
  EXPECT_EQ(formatSubmitFailure("Memory specification can not be satisfied\nRequested node configuration is not available", true),
            "sbatch: error: Memory specification can not be satisfied\n"
            "allocation failure: Requested node configuration is not available\n");
}

TEST(SbatchTest, TestOnlyLine) {
  setenv("TZ", "UTC", 1);
  tzset();
  auto r = reply(3);
  r.set_expected_start(1796042323);  // 2026-11-30T12:38:43Z
  r.set_test_only_cpus(4);
  r.set_test_only_nodes("node[01-04]");
  r.set_test_only_partition("gpu");
  EXPECT_EQ(formatTestOnly(r),
            "sbatch: Job 3 to start at 2026-11-30T12:38:43 using 4 processors on nodes node[01-04] in partition gpu\n");
}

TEST(SbatchTest, WaitExitStatus) {
  v1::JobInfo j;
  j.set_state(v1::JOB_COMPLETED);
  EXPECT_EQ(waitExitStatus(j), 0);
  j.set_state(v1::JOB_FAILED);
  j.set_exit_code(3);
  EXPECT_EQ(waitExitStatus(j), 3);
  // A signal: 1, as the reference's `--wait` of `kill -9 $$` and of a cancelled running job.
  j.set_exit_code(0);
  j.set_exit_signal(9);
  EXPECT_EQ(waitExitStatus(j), 1);
  // Cancelled before it ran: 0, as there.
  j.set_state(v1::JOB_CANCELLED);
  j.set_exit_signal(0);
  EXPECT_EQ(waitExitStatus(j), 0);
}

TEST(SbatchTest, RequestOnTheWire) {
  const jobspec::EnvMap env = {{"HOME", "/home/alice"}, {"FOO", "1"}, {"SLURM_CONF", "/x"}};
  auto req = jobspec::buildBatchRequest(
      {"-J", "train", "-p", "gpu", "-t", "10", "-N", "2-3", "-n", "4", "-c", "2", "--mem=1G",
       "--gres=gpu:h100:2", "-D", "sub", "-o", "out-%j.txt", "--export=NONE,FOO", "--array=0-9%2",
       "-d", "afterok:12", "-H", "--signal=B:USR1@30", "--requeue", "--exclusive", "--wrap=hostname"},
      env, std::nullopt, 1796041745);
  ASSERT_TRUE(req) << req.error().text;
  SubmitContext ctx{env, "/home/alice/run", "login1", "sbatch -J train ..."};
  const v1::JobSpec w = toWireSpec(*req, ctx);
  EXPECT_EQ(w.name(), "train");
  EXPECT_EQ(w.partition(), "gpu");
  EXPECT_EQ(w.time_limit_min(), 10);
  EXPECT_EQ(w.min_nodes(), 2u);
  EXPECT_EQ(w.max_nodes(), 3u);
  EXPECT_EQ(w.ntasks(), 4u);
  EXPECT_EQ(w.cpus_per_task(), 2u);
  EXPECT_EQ(w.mem_per_node_mb(), 1024u);
  EXPECT_TRUE(w.mem_set());
  ASSERT_EQ(w.gres_size(), 1);
  EXPECT_EQ(w.gres(0).type(), "h100");
  EXPECT_EQ(w.gres(0).count(), 2u);
  EXPECT_EQ(w.work_dir(), "/home/alice/run/sub");
  EXPECT_EQ(w.std_out(), "out-%j.txt");
  EXPECT_EQ(w.array(), "0-9%2");
  EXPECT_EQ(w.dependency(), "afterok:12");
  EXPECT_TRUE(w.hold());
  EXPECT_EQ(w.signal_number(), 10);
  EXPECT_EQ(w.signal_seconds(), 30);
  EXPECT_TRUE(w.signal_batch_only());
  EXPECT_TRUE(w.requeue_set() && w.requeue());
  EXPECT_TRUE(w.exclusive());
  EXPECT_TRUE(w.batch());
  EXPECT_NE(w.script().find("hostname"), std::string::npos);
  // --export=NONE,FOO: FOO and Slurm's own variables only, with the two the reference's sbatch
  // added for a given --export (the node then lays them over the user's login environment).
  EXPECT_EQ(w.environment().size(), 4u);
  EXPECT_EQ(w.environment().at("FOO"), "1");
  EXPECT_EQ(w.environment().count("HOME"), 0u);
  EXPECT_EQ(w.environment().at("SLURM_EXPORT_ENV"), "NONE,FOO");  // as written, as the reference
  EXPECT_EQ(w.environment().at("SLURM_GET_USER_ENV"), "1");
  EXPECT_EQ(w.submit_host(), "login1");

  auto plain = jobspec::buildBatchRequest({"--wrap=true"}, env, std::nullopt, 1796041745);
  ASSERT_TRUE(plain);
  const v1::JobSpec p = toWireSpec(*plain, ctx);
  EXPECT_EQ(p.name(), "wrap");
  EXPECT_EQ(p.environment().size(), env.size());  // --export=ALL by default
  EXPECT_EQ(p.work_dir(), "/home/alice/run");
}

TEST(SbatchWire, TasksPerGpuBindNoGpuBindOfTheJob) {
  // --ntasks-per-gpu=1 binds srun's steps single:1, but the job records no --gpu-bind (no
  // SLURM_GPU_BIND, no TresBind), as the reference's; one given is the job's.
  SubmitContext ctx;
  auto implied = jobspec::buildBatchRequest({"--ntasks-per-gpu=1", "--gpus=2", "--wrap=true"}, {}, std::nullopt,
                                            1796041745);
  ASSERT_TRUE(implied);
  EXPECT_EQ(jobspec::stepGpuBind(implied->spec), "single:1");
  const v1::JobSpec w = toWireSpec(*implied, ctx);
  EXPECT_EQ(w.gpu_bind(), "");
  EXPECT_EQ(w.ntasks_per_gpu(), 1u);
  EXPECT_FALSE(w.gpus_implied());  // --gpus=2 was given
  // -n 4 --ntasks-per-gpu=2: two GPUs derived, not asked for.
  auto derived = jobspec::buildBatchRequest({"-n", "4", "--ntasks-per-gpu=2", "--wrap=true"}, {}, std::nullopt,
                                            1796041745);
  ASSERT_TRUE(derived);
  const v1::JobSpec d = toWireSpec(*derived, ctx);
  EXPECT_EQ(d.gpus().count(), 2u);
  EXPECT_TRUE(d.gpus_implied());
  EXPECT_EQ(d.gpu_bind(), "");
  auto given = jobspec::buildBatchRequest({"--ntasks-per-gpu=1", "--gpus=2", "--gpu-bind=closest", "--wrap=true"},
                                          {}, std::nullopt, 1796041745);
  ASSERT_TRUE(given);
  EXPECT_EQ(toWireSpec(*given, ctx).gpu_bind(), "closest");
}

}  // namespace
}  // namespace drover::cli
