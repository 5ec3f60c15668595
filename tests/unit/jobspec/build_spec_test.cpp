// Whole requests: script checks (golden 018/019), directives (golden 031/037), precedence
// command line > input environment > #SBATCH, --wrap, srun/salloc input variables.
#include <gtest/gtest.h>

#include "jobspec/build_spec.h"
#include "jobspec/script_directives.h"

namespace drover::jobspec {
namespace {

constexpr std::int64_t kNow = 1796040000;

// golden 031-directives-script.txt
const char* kDirectivesScript =
    "#!/bin/bash\n"
    "#SBATCH -J direct\n"
    "#SBATCH -o out-%j-%x-%A-%a.txt\n"
    "#SBATCH -e err-%j-%x-%A-%a.txt\n"
    "#SBATCH -t 00:05:00\n"
    "#SBATCH -N 2\n"
    "#SBATCH -n 4\n"
    "#SBATCH -c 2\n"
    "#SBATCH --gres=gpu:2\n"
    "#SBATCH --mem=1G\n"
    "echo \"batch host: $(hostname) job=$SLURM_JOB_ID\"\n"
    "#SBATCH -p ignored-after-first-command\n";

TEST(BatchRequest, ReadsDirectivesOfTheGoldenScript) {
  auto r = buildBatchRequest(std::vector<std::string>{"directives.sh"}, {}, kDirectivesScript, kNow);
  ASSERT_TRUE(r.ok()) << r.error().text;
  const JobSpec& s = r->spec;
  EXPECT_EQ(s.job_name, "direct");
  EXPECT_EQ(s.output, "out-%j-%x-%A-%a.txt");
  EXPECT_EQ(s.error, "err-%j-%x-%A-%a.txt");
  EXPECT_EQ(s.time_limit_minutes, 5);
  EXPECT_EQ(s.nodes, (NodeRange{2, 0}));
  EXPECT_EQ(s.ntasks, 4u);
  EXPECT_EQ(s.cpus_per_task, 2u);
  ASSERT_EQ(s.gres.size(), 1u);
  EXPECT_EQ(s.gres[0].count, 2u);
  EXPECT_EQ(s.mem_mb, 1024u);
  EXPECT_FALSE(s.partition.has_value());
  EXPECT_EQ(s.sources.at("job-name"), OptionSource::Directive);
  EXPECT_EQ(r->script, kDirectivesScript);
  EXPECT_EQ(r->script_path, "directives.sh");
}

TEST(BatchRequest, CommandLineBeatsEnvironmentBeatsDirectives) {
  EnvMap env = {{"SBATCH_TIMELIMIT", "10"}, {"SBATCH_JOB_NAME", "from-env"},
                {"SBATCH_PARTITION", "envpart"}, {"SBATCH_EXCLUSIVE", ""},
                {"SBATCH_ARRAY_INX", "0-3"}, {"SBATCH_GPUS", "h100:4"}, {"SBATCH_REQUEUE", "0"}};
  auto r = buildBatchRequest(std::vector<std::string>{"--array=0-1", "-J", "cli", "directives.sh", "a1"},
                             env, kDirectivesScript, kNow);
  ASSERT_TRUE(r.ok()) << r.error().text;
  const JobSpec& s = r->spec;
  EXPECT_EQ(s.job_name, "cli");                 // command line > env > directive
  EXPECT_EQ(s.time_limit_minutes, 10);          // env > directive
  EXPECT_EQ(s.partition, "envpart");
  EXPECT_EQ(s.ntasks, 4u);                      // directive only
  EXPECT_EQ(s.exclusive, ExclusiveMode::Exclusive);  // flag set by an empty value
  EXPECT_EQ(s.array->taskCount(), 2u);          // golden 033: --array=0-1 on the command line
  EXPECT_EQ(s.gpus, (GpuCount{"h100", 4}));  // 2 per node (--gres) on -N 2
  EXPECT_FALSE(s.requeue.has_value());          // "0" leaves a flag off
  EXPECT_EQ(s.sources.at("job-name"), OptionSource::CommandLine);
  EXPECT_EQ(s.sources.at("time"), OptionSource::Environment);
  EXPECT_EQ(r->script_args, (std::vector<std::string>{"a1"}));
}

TEST(BatchRequest, HigherSourceReplacesTheMemoryTrio) {
  auto r = buildBatchRequest(std::vector<std::string>{"--mem-per-cpu=2G", "x.sh"}, {},
                             std::string_view("#!/bin/sh\n#SBATCH --mem=1G\ntrue\n"), kNow);
  ASSERT_TRUE(r.ok()) << r.error().text;
  EXPECT_FALSE(r->spec.mem_mb.has_value());
  EXPECT_EQ(r->spec.mem_per_cpu_mb, 2048u);
}

TEST(BatchRequest, WrapBuildsAScript) {
  auto r = buildBatchRequest(std::vector<std::string>{"--wrap=hostname"}, {}, std::nullopt, kNow);
  ASSERT_TRUE(r.ok()) << r.error().text;
  EXPECT_EQ(r->script, "#!/bin/sh\n# This script was created by sbatch --wrap.\n\nhostname\n");
  EXPECT_FALSE(r->script_path.has_value());

  auto bad = buildBatchRequest(std::vector<std::string>{"--wrap", "true", "script.sh"}, {}, std::nullopt, kNow);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().text, "sbatch: error: Script arguments not permitted with --wrap option");
  EXPECT_EQ(bad.error().exit_code, 1);
}

TEST(BatchRequest, RejectsBadScriptsLikeSlurm) {
  struct Case {
    std::string script;
    std::string text;
  };
  const std::vector<Case> cases = {
      {"", "sbatch: error: Batch script is empty!"},  // golden 018
      {"hostname\n",                                   // golden 019
       "sbatch: error: This does not look like a batch script.  The first\n"
       "sbatch: error: line must start with #! followed by the path to an interpreter.\n"
       "sbatch: error: For instance: #!/bin/sh"},
      {"  \n\t\n", "sbatch: error: Batch script contains only whitespace!"},
      {"#!/bin/sh\r\ntrue\r\n",
       "sbatch: error: Batch script contains DOS line breaks (\\r\\n)\n"
       "sbatch: error: instead of expected UNIX line breaks (\\n)."},
  };
  for (const auto& c : cases) {
    auto r = buildBatchRequest(std::vector<std::string>{}, {}, c.script, kNow);
    ASSERT_FALSE(r.ok()) << c.script;
    EXPECT_EQ(r.error().text, c.text);
    EXPECT_EQ(r.error().exit_code, 1);
  }
}

// The reference's refusals, each checked there (sbatch 22.05 as a user, exit 1).
TEST(BatchRequest, RefusesGpuRequestsWithNothingToScaleBy) {
  struct Case {
    std::vector<std::string> args;
    std::string text;  // empty: accepted
  };
  const std::string gres = "\nsbatch: error: Invalid generic resource (gres) specification";
  const std::vector<Case> cases = {
      {{"--wrap=true", "--gpus-per-task=1"},
       "sbatch: error: Failed to validate job spec. --gpus-per-task used without either --gpus or "
       "-n/--ntasks is not allowed." + gres},
      {{"--wrap=true", "--gpus-per-task=1", "-n", "2"}, ""},
      {{"--wrap=true", "--gpus-per-task=1", "--gpus=2"}, ""},
      {{"--wrap=true", "--mem-per-gpu=100M"},
       "sbatch: error: Requested mem_per_tres=gres:gpu:100 but did not request any GPU." + gres},
      {{"--wrap=true", "--mem-per-gpu=1G", "--gres=gpu:1"}, ""},
      {{"--wrap=true", "--mem-per-gpu=1G", "--gpus-per-node=1"}, ""},
      {{"--wrap=true", "--gpus=3", "--gpus-per-node=2"},
       "sbatch: error: Failed to validate job spec, --gpus is not multiple of --gres=gpu/--gpus-per-node" + gres},
      {{"--wrap=true", "--gpus=3", "--gres=gpu:2"},
       "sbatch: error: Failed to validate job spec, --gpus is not multiple of --gres=gpu/--gpus-per-node" + gres},
      {{"--wrap=true", "--gpus=4", "--gpus-per-node=2"}, ""},
      {{"--wrap=true", "--gpus=4", "--gpus-per-node=2", "-N", "1"},
       "sbatch: error: Failed to validate job spec. Based on --gpu and --gres=gpu/--gpus-per-node required "
       "nodes (2) doesn't fall between min_nodes (1) and max_nodes (1) boundaries." + gres},
      {{"--wrap=true", "--gpus=4", "--gpus-per-node=2", "-N", "1-3"}, ""},
  };
  for (const auto& c : cases) {
    auto r = buildBatchRequest(c.args, {}, std::nullopt, kNow);
    if (c.text.empty()) {
      EXPECT_TRUE(r.ok()) << c.args[1] << ": " << r.error().text;
      continue;
    }
    ASSERT_FALSE(r.ok()) << c.args[1];
    EXPECT_EQ(r.error().text, c.text);
    EXPECT_EQ(r.error().exit_code, 1);
  }
  auto salloc = buildAllocRequest({"--gpus-per-task=1"}, {}, kNow);
  ASSERT_FALSE(salloc.ok());
  EXPECT_EQ(salloc.error().text.rfind("salloc: error: Failed to validate job spec.", 0), 0u);
}

TEST(BatchRequest, DirectiveErrorsUseTheOptionMessages) {
  auto r = buildBatchRequest(std::vector<std::string>{}, {},
                             std::string_view("#!/bin/sh\n#SBATCH -t garbage\ntrue\n"), kNow);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().text, "sbatch: error: Invalid --time specification");
  EXPECT_EQ(r.error().exit_code, 255);

  auto env = buildBatchRequest(std::vector<std::string>{}, {{"SBATCH_TIMELIMIT", "bad"}},
                               std::string_view("#!/bin/sh\ntrue\n"), kNow);
  ASSERT_FALSE(env.ok());
  EXPECT_EQ(env.error().text, "sbatch: error: Invalid --time specification");
}

TEST(Directives, StopAtTheFirstCommandAndSplitWords) {
  const std::string script =
      "#!/bin/bash\n"
      "\n"
      "# a comment\n"
      "#SBATCH --job-name=\"two words\" -p 'gpu'   # trailing comment\n"
      "   # indented comment\n"
      "#SBATCH\n"
      "# SBATCH -N 9 (not a directive: space after #)\n"
      "#SBATCHX -N 9\n"
      "#SBATCH\t-n 3\n"
      "echo hi\n"
      "#SBATCH -N 5\n";
  auto d = extractDirectives(script);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].line, 4u);
  EXPECT_EQ(d[0].tokens, (std::vector<std::string>{"--job-name=two words", "-p", "gpu"}));
  EXPECT_EQ(d[1].line, 9u);
  EXPECT_EQ(d[1].tokens, (std::vector<std::string>{"-n", "3"}));
}

TEST(Directives, GoldenStepsScript) {
  // golden 037-steps-script.txt
  const std::string script =
      "#!/bin/bash\n#SBATCH -J steps\n#SBATCH -N 2\n#SBATCH -n 4\n#SBATCH --gres=gpu:2\n"
      "#SBATCH -o steps-%j.out\nsrun -n 4 hostname\nsrun -n 1 false\n";
  auto r = buildBatchRequest(std::vector<std::string>{"steps.sh"}, {}, script, kNow);
  ASSERT_TRUE(r.ok()) << r.error().text;
  EXPECT_EQ(r->spec.job_name, "steps");
  EXPECT_EQ(r->spec.output, "steps-%j.out");
  EXPECT_EQ(r->spec.nodes->min, 2u);
}

TEST(StepRequest, InheritsTheAllocationFromSlurmVariables) {
  EnvMap env = {{"SLURM_JOB_ID", "42"}, {"SLURM_NTASKS", "4"}, {"SLURM_NNODES", "2"},
                {"SLURM_LABELIO", "1"}, {"SLURM_KILL_BAD_EXIT", "0"}, {"SRUN_CPUS_PER_TASK", "2"},
                {"SLURM_EXPORT_ENV", "ALL"}, {"SRUN_EXPORT_ENV", "NONE"}, {"SLURM_MPI_TYPE", "pmi2"}};
  auto r = buildStepRequest({"-n", "2", "hostname"}, env, kNow);
  ASSERT_TRUE(r.ok()) << r.error().text;
  const JobSpec& s = r->spec;
  EXPECT_EQ(s.jobid, 42u);
  EXPECT_EQ(s.ntasks, 2u);  // command line wins
  EXPECT_EQ(s.nodes->min, 2u);
  EXPECT_TRUE(s.label);
  EXPECT_FALSE(s.kill_on_bad_exit);
  EXPECT_EQ(s.cpus_per_task, 2u);
  EXPECT_FALSE(s.export_env->propagate_all);  // SRUN_EXPORT_ENV overrides SLURM_EXPORT_ENV
  EXPECT_EQ(s.mpi, "pmi2");
  EXPECT_EQ(r->command, (std::vector<std::string>{"hostname"}));

  auto named = buildStepRequest({"-m", "plane", "true"},
                               {{"SLURM_JOB_NAME", "batchjob"}, {"SLURM_JOB_ID", "42"},
                                {"SLURM_DIST_PLANESIZE", "4"}}, kNow);
  ASSERT_TRUE(named.ok()) << named.error().text;
  EXPECT_FALSE(named->spec.job_name.has_value());  // not the batch job's name inside it
  EXPECT_EQ(named->spec.distribution->plane_size, 4u);
  auto new_job = buildStepRequest({"true"}, {{"SLURM_JOB_NAME", "mine"}}, kNow);
  ASSERT_TRUE(new_job.ok());
  EXPECT_EQ(new_job->spec.job_name, "mine");

  auto none = buildStepRequest({"-n", "2"}, {}, kNow);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().text, "srun: fatal: No command given to execute.");

  auto bad_env = buildStepRequest({"true"}, {{"SLURM_TIMELIMIT", "garbage"}}, kNow);
  ASSERT_FALSE(bad_env.ok());
  EXPECT_EQ(bad_env.error().text, "srun: error: Invalid --time specification");
}

TEST(AllocRequest, ReadsSallocVariablesAndAllowsNoCommand) {
  auto r = buildAllocRequest({"-N", "2"}, {{"SALLOC_PARTITION", "debug"}, {"SALLOC_IMMEDIATE", "30"},
                                           {"SBATCH_PARTITION", "not-for-salloc"}}, kNow);
  ASSERT_TRUE(r.ok()) << r.error().text;
  EXPECT_EQ(r->spec.partition, "debug");
  EXPECT_EQ(r->spec.immediate_seconds, 30u);
  EXPECT_TRUE(r->command.empty());
}

TEST(AllocRequest, BellOptionsAndVariables) {
  EXPECT_EQ(buildAllocRequest({}, {}, kNow)->spec.bell, std::nullopt);
  EXPECT_EQ(buildAllocRequest({"--bell"}, {}, kNow)->spec.bell, true);
  EXPECT_EQ(buildAllocRequest({"--no-bell"}, {}, kNow)->spec.bell, false);
  EXPECT_EQ(buildAllocRequest({"--bell", "--no-bell"}, {}, kNow)->spec.bell, false);
  EXPECT_EQ(buildAllocRequest({}, {{"SALLOC_BELL", "1"}}, kNow)->spec.bell, true);
  EXPECT_EQ(buildAllocRequest({}, {{"SALLOC_NO_BELL", "1"}}, kNow)->spec.bell, false);
  // The command line wins over the variable.
  EXPECT_EQ(buildAllocRequest({"--bell"}, {{"SALLOC_NO_BELL", "1"}}, kNow)->spec.bell, true);
}

TEST(StepRequest, NtasksPerGpuDerivesTasksOrGpusAndBindsEachTaskToOne) {
  // -n: n/K GPUs.
  auto by_tasks = buildStepRequest({"--ntasks-per-gpu=2", "-n", "4", "true"}, {}, kNow);
  ASSERT_TRUE(by_tasks.ok()) << by_tasks.error().text;
  ASSERT_TRUE(by_tasks->spec.gpus);
  EXPECT_EQ(by_tasks->spec.gpus->count, 2u);
  EXPECT_FALSE(by_tasks->spec.gpu_bind);  // not the job's, as the reference's
  EXPECT_EQ(stepGpuBind(by_tasks->spec), "single:2");
  // GPUs asked for: K tasks each (a -n is replaced, as the reference Slurm did).
  auto by_gpus = buildStepRequest({"--ntasks-per-gpu=2", "--gpus=3", "-n", "4", "true"}, {}, kNow);
  ASSERT_TRUE(by_gpus.ok()) << by_gpus.error().text;
  EXPECT_EQ(by_gpus->spec.ntasks, 6u);
  auto per_node = buildStepRequest({"--ntasks-per-gpu=1", "-N", "2", "--gpus-per-node=4",
                                    "--gpu-bind=none", "true"}, {}, kNow);
  ASSERT_TRUE(per_node.ok()) << per_node.error().text;
  EXPECT_EQ(per_node->spec.ntasks, 8u);
  EXPECT_EQ(stepGpuBind(per_node->spec), "none");  // an explicit --gpu-bind wins
  // The reference's refusals.
  auto odd = buildStepRequest({"--ntasks-per-gpu=2", "-n", "3", "true"}, {}, kNow);
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.error().text,
            "srun: error: Failed to validate job spec, -n/--ntasks has to be a multiple of "
            "--ntasks-per-gpu.\nsrun: error: Invalid generic resource (gres) specification");
  auto neither = buildStepRequest({"--ntasks-per-gpu=2", "true"}, {}, kNow);
  ASSERT_FALSE(neither.ok());
  EXPECT_NE(neither.error().text.find("--ntasks-per-tres needs either"), std::string::npos);
  auto both = buildBatchRequest({"--ntasks-per-gpu=2", "--ntasks-per-node=2", "--wrap=true"}, {},
                                std::nullopt, kNow);
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.error().text,
            "sbatch: fatal: --ntasks-per-node is mutually exclusive with --ntasks-per-gpu and "
            "SLURM_NTASKS_PER_GPU");
  EXPECT_EQ(both.error().exit_code, 1);
}

TEST(InputEnv, EveryRowNamesAnOptionOfItsTools) {
  for (const auto& row : inputEnvTable()) {
    for (Tool t : {Tool::Sbatch, Tool::Srun, Tool::Salloc}) {
      if ((row.tools & static_cast<unsigned>(t)) == 0) continue;
      EXPECT_NE(findOption(t, row.long_name), nullptr) << row.variable << " -> " << row.long_name;
    }
  }
}

}  // namespace
}  // namespace drover::jobspec
