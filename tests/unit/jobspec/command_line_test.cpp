// Option scanning: forms, tools, and the exact texts/exit codes real Slurm 22.05 prints
// (captured in golden 012/057 and by running sbatch/srun/salloc against a config only).
#include <gtest/gtest.h>

#include "drover/time_spec.h"
#include "jobspec/command_line.h"

namespace drover::jobspec {
namespace {

constexpr std::int64_t kNow = 1796040000;

CliResult<ParsedCommand> parse(Tool tool, std::vector<std::string> args) {
  return parseCommandLine(tool, args, kNow);
}

TEST(CommandLine, AcceptsEveryArgumentForm) {
  struct Case {
    std::vector<std::string> args;
    std::string want_name;
  };
  const std::vector<Case> cases = {
      {{"-J", "a"}, "a"},
      {{"-Jb"}, "b"},
      {{"--job-name=c"}, "c"},
      {{"--job-name", "d"}, "d"},
      {{"--job=e"}, "e"},         // unique prefix, as getopt_long
      {{"-HvJf"}, "f"},           // clustered flags then an attached argument
      {{"-J", "-g"}, "-g"},       // a required argument may start with '-'
      {{"--job-name="}, ""},
  };
  for (const auto& c : cases) {
    auto r = parse(Tool::Sbatch, c.args);
    ASSERT_TRUE(r.ok()) << c.args[0] << ": " << r.error().text;
    ASSERT_TRUE(r->spec.job_name.has_value());
    EXPECT_EQ(*r->spec.job_name, c.want_name);
    EXPECT_EQ(r->spec.sources.at("job-name"), OptionSource::CommandLine);
  }
}

TEST(CommandLine, StopsAtTheScriptOrCommand) {
  auto r = parse(Tool::Sbatch, {"-p", "gpu", "job.sh", "-J", "x", "--", "y"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->positional, (std::vector<std::string>{"job.sh", "-J", "x", "--", "y"}));
  EXPECT_FALSE(r->spec.job_name.has_value());

  auto dashdash = parse(Tool::Srun, {"-n2", "--", "-weird-name", "arg"});
  ASSERT_TRUE(dashdash.ok());
  EXPECT_EQ(dashdash->positional, (std::vector<std::string>{"-weird-name", "arg"}));
  EXPECT_EQ(dashdash->spec.ntasks, 2u);
}

TEST(CommandLine, ParsesSbatchOptions) {
  auto r = parse(Tool::Sbatch,
                 {"-p", "gpu", "-t", "1-00:00:00", "--time-min=30", "-N", "2-4", "-n", "8", "-c", "4",
                  "--ntasks-per-node=4", "--mem=4G", "--gres=gpu:h100:2", "--gpus-per-task=h100:1",
                  "--cpus-per-gpu=8", "-o", "out-%j.txt", "-e", "err-%j.txt", "-i", "/dev/null",
                  "-D", "/tmp", "--export=NONE,A=b", "--array=0-99:2%8", "-d", "afterok:5",
                  "-H", "--begin=now+60", "--requeue", "--exclusive", "-w", "n[1-2]", "-x", "n3",
                  "-C", "a100", "-A", "proj", "-q", "high", "--nice=10", "--comment=hi",
                  "--signal=B:USR1@90", "--parsable", "--test-only", "-W", "--open-mode=append",
                  "--mail-type=END,FAIL", "--mail-user=a@b", "--reservation=r1", "script.sh"});
  ASSERT_TRUE(r.ok()) << r.error().text;
  const JobSpec& s = r->spec;
  EXPECT_EQ(s.partition, "gpu");
  EXPECT_EQ(s.time_limit_minutes, 1440);
  EXPECT_EQ(s.time_min_minutes, 30);
  EXPECT_EQ(s.nodes, (NodeRange{2, 4}));
  EXPECT_EQ(s.ntasks, 8u);
  EXPECT_EQ(s.cpus_per_task, 4u);
  EXPECT_EQ(s.ntasks_per_node, 4u);
  EXPECT_EQ(s.mem_mb, 4096u);
  ASSERT_EQ(s.gres.size(), 1u);
  EXPECT_EQ(s.gres[0], (GresRequest{"gpu", "h100", 2}));
  EXPECT_EQ(s.gpus_per_task, (GpuCount{"h100", 1}));
  EXPECT_EQ(s.cpus_per_gpu, 8u);
  EXPECT_EQ(s.output, "out-%j.txt");
  EXPECT_EQ(s.error, "err-%j.txt");
  EXPECT_EQ(s.input, "/dev/null");
  EXPECT_EQ(s.chdir, "/tmp");
  ASSERT_TRUE(s.export_env.has_value());
  EXPECT_FALSE(s.export_env->propagate_all);
  ASSERT_TRUE(s.array.has_value());
  EXPECT_EQ(s.array->max_running, 8u);
  ASSERT_TRUE(s.dependency.has_value());
  EXPECT_EQ(s.dependency->items.size(), 1u);
  EXPECT_TRUE(s.hold);
  EXPECT_EQ(s.begin_time, kNow + 60);
  EXPECT_EQ(s.requeue, true);
  EXPECT_EQ(s.exclusive, ExclusiveMode::Exclusive);
  EXPECT_EQ(s.nodelist, "n[1-2]");
  EXPECT_EQ(s.exclude, "n3");
  EXPECT_EQ(s.constraint, "a100");
  EXPECT_EQ(s.account, "proj");
  EXPECT_EQ(s.qos, "high");
  EXPECT_EQ(s.nice, 10);
  EXPECT_EQ(s.comment, "hi");
  EXPECT_EQ(s.signal, (SignalSpec{10, 90, true, false}));
  EXPECT_TRUE(s.parsable);
  EXPECT_TRUE(s.test_only);
  EXPECT_TRUE(s.wait);
  EXPECT_EQ(s.open_mode, OpenMode::Append);
  EXPECT_EQ(s.mail_type, mail::kEnd | mail::kFail);
  EXPECT_EQ(s.mail_user, "a@b");
  EXPECT_EQ(s.reservation, "r1");
  EXPECT_EQ(r->positional, (std::vector<std::string>{"script.sh"}));
  EXPECT_TRUE(s.isSet("gres"));
  EXPECT_FALSE(s.isSet("qos-x"));
}

// sbatch(1): "A time limit of zero requests that no time limit be imposed"; --time-min=0 is none.
TEST(CommandLine, TimeZeroIsNoLimit) {
  for (Tool tool : {Tool::Sbatch, Tool::Srun, Tool::Salloc}) {
    auto r = parse(tool, {"-t", "0", "--time-min=0", "x"});
    ASSERT_TRUE(r.ok()) << r.error().text;
    EXPECT_EQ(r->spec.time_limit_minutes, drover::kUnlimitedMinutes);
    EXPECT_EQ(r->spec.time_min_minutes, 0);
  }
  EXPECT_EQ(parse(Tool::Sbatch, {"-t", "0:30", "x"})->spec.time_limit_minutes, 1);
}

TEST(CommandLine, ParsesSrunOptions) {
  auto r = parse(Tool::Srun, {"-m", "cyclic", "-l", "-u", "-K", "-W", "30", "--cpu-bind=cores",
                              "--mpi=pmi2", "--overlap", "-I5", "-i", "all", "--gpus=4", "python", "x.py"});
  ASSERT_TRUE(r.ok()) << r.error().text;
  const JobSpec& s = r->spec;
  EXPECT_EQ(s.distribution->nodes, DistMode::Cyclic);
  EXPECT_TRUE(s.label);
  EXPECT_TRUE(s.unbuffered);
  EXPECT_TRUE(s.kill_on_bad_exit);
  EXPECT_EQ(s.wait_seconds, 30u);
  EXPECT_EQ(s.cpu_bind, "cores");
  EXPECT_EQ(s.mpi, "pmi2");
  EXPECT_TRUE(s.overlap);
  EXPECT_EQ(s.immediate_seconds, 5u);
  EXPECT_TRUE(s.inputToAllTasks());
  EXPECT_EQ(s.gpus, (GpuCount{std::nullopt, 4}));
  EXPECT_EQ(r->positional, (std::vector<std::string>{"python", "x.py"}));

  auto bare_i = parse(Tool::Salloc, {"-I", "bash"});
  ASSERT_TRUE(bare_i.ok());
  EXPECT_EQ(bare_i->spec.immediate_seconds, 0u);  // optional argument only when attached
  EXPECT_EQ(bare_i->positional, (std::vector<std::string>{"bash"}));
}

TEST(CommandLine, HelpUsageVersionAndAcceptedOnly) {
  auto r = parse(Tool::Sbatch, {"--help", "-V", "--usage", "--cpu-freq=high", "--bb=x"});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->help);
  EXPECT_TRUE(r->version);
  EXPECT_TRUE(r->usage);
  EXPECT_EQ(r->spec.accepted_only.at("cpu-freq"), "high");
}

TEST(CommandLine, ReportsErrorsLikeSlurm) {
  struct Case {
    Tool tool;
    std::vector<std::string> args;
    std::string text;
    int exit_code;
  };
  const std::string try_sbatch = "\nTry \"sbatch --help\" for more information";
  const std::vector<Case> cases = {
      {Tool::Sbatch, {"--foo"}, "sbatch: unrecognized option '--foo'" + try_sbatch, 255},
      {Tool::Sbatch, {"--foo=bar"}, "sbatch: unrecognized option '--foo=bar'" + try_sbatch, 255},
      {Tool::Srun, {"--foo"}, "srun: unrecognized option '--foo'\nTry \"srun --help\" for more information", 255},
      {Tool::Salloc, {"--foo"}, "salloc: unrecognized option '--foo'\nTry \"salloc --help\" for more information", 255},
      {Tool::Sbatch, {"-J"}, "sbatch: option requires an argument -- 'J'" + try_sbatch, 255},
      {Tool::Sbatch, {"--qos"}, "sbatch: option '--qos' requires an argument" + try_sbatch, 255},
      {Tool::Sbatch, {"--requeue=x"}, "sbatch: option '--requeue' doesn't allow an argument" + try_sbatch, 255},
      {Tool::Sbatch, {"-W=3"}, "sbatch: invalid option -- '='" + try_sbatch, 255},
      {Tool::Sbatch, {"--mem-per", "1"},
       "sbatch: option '--mem-per' is ambiguous; possibilities: '--mem-per-cpu' '--mem-per-gpu'" + try_sbatch, 255},
      {Tool::Sbatch, {"-l"}, "sbatch: invalid option -- 'l'" + try_sbatch, 255},  // srun-only
      {Tool::Sbatch, {"-t", "garbage"}, "sbatch: error: Invalid --time specification", 255},
      {Tool::Srun, {"-t", "garbage"}, "srun: error: Invalid --time specification", 255},
      {Tool::Salloc, {"-t", "garbage"}, "salloc: error: Invalid --time specification", 255},
      {Tool::Sbatch, {"--time-min=x"}, "sbatch: error: Invalid --time-min specification", 255},
      {Tool::Sbatch, {"--signal=FOO"}, "sbatch: error: Invalid --signal specification", 255},
      {Tool::Sbatch, {"--begin=garbage"},
       "Invalid time specification (pos=0): garbage\nsbatch: error: Invalid --begin specification", 255},
      {Tool::Sbatch, {"-N", "3-2"}, "sbatch: error: Maximum node count 2 is less than minimum node count 3", 255},
      {Tool::Sbatch, {"-N", "abc"}, "sbatch: error: \"abc\" is not a valid node count", 255},
      {Tool::Sbatch, {"-n", "abc"}, "sbatch: error: Invalid numeric value \"abc\" for --ntasks.", 1},
      {Tool::Sbatch, {"-n", "0"}, "sbatch: error: Invalid numeric value \"0\" for --ntasks.", 1},
      {Tool::Sbatch, {"-c", "0"}, "sbatch: error: Invalid numeric value \"0\" for --cpus-per-task.", 1},
      {Tool::Sbatch, {"--ntasks-per-node=0"}, "sbatch: error: Invalid numeric value \"0\" for --ntasks-per-node.", 1},
      {Tool::Sbatch, {"--cpus-per-gpu=x"}, "sbatch: error: Invalid numeric value \"x\" for --cpus-per-gpu.", 1},
      {Tool::Sbatch, {"--open-mode=x"}, "sbatch: error: Invalid --open-mode specification", 255},
      {Tool::Sbatch, {"--mail-type=xx"}, "sbatch: error: Invalid --mail-type specification", 255},
      {Tool::Sbatch, {"--distribution=foo"}, "sbatch: error: Invalid --distribution specification", 255},
      {Tool::Srun, {"--distribution=foo"}, "srun: error: Invalid --distribution specification", 255},
      {Tool::Sbatch, {"--mem=abc"}, "sbatch: error: Invalid --mem specification", 255},
      {Tool::Sbatch, {"--mem-per-cpu=x"}, "sbatch: error: Invalid --mem-per-cpu specification", 255},
      {Tool::Sbatch, {"--exclusive=foo"}, "sbatch: error: Invalid --exclusive specification", 255},
      {Tool::Sbatch, {"--gres=x:y:z"}, "sbatch: error: Invalid generic resource (gres) specification", 1},
      {Tool::Sbatch, {"--gpus-per-node=x:y:z"}, "sbatch: error: Invalid generic resource (gres) specification", 1},
      {Tool::Sbatch, {"--mem=1G", "--mem-per-cpu=1G"},
       "sbatch: fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.", 1},
      {Tool::Srun, {"-W", "x"}, "srun: error: Invalid numeric value \"x\" for --wait.", 1},
      {Tool::Srun, {"--cpu-bind=foo"},
       "srun: error: unrecognized --cpu-bind argument \"foo\"\nsrun: fatal: Failed to parse --cpu-bind= values.", 1},
      {Tool::Srun, {"--mpi=foo"}, "srun: error: Invalid MPI type 'foo', --mpi=list for acceptable types", 1},
      {Tool::Sbatch, {"--array=5-2"}, "sbatch: error: Batch job submission failed: Invalid job array specification", 1},
      {Tool::Sbatch, {"--dependency=foo:1"}, "sbatch: error: Batch job submission failed: Job dependency problem", 1},
      {Tool::Srun, {"-d", "foo:1"}, "srun: error: Unable to allocate resources: Job dependency problem", 1},
      {Tool::Salloc, {"-d", "foo:1"}, "salloc: error: Job submit/allocate failed: Job dependency problem", 1},
      {Tool::Sbatch, {"-w", "n[1-"}, "sbatch: error: Invalid node name specified: n[1-", 1},
      {Tool::Sbatch, {"--nice=99999999999"}, "sbatch: error: Invalid --nice value, out of range (+/- 2147483645)", 255},
      {Tool::Sbatch, {"--nice=-2147483646"}, "sbatch: error: Invalid --nice value, out of range (+/- 2147483645)", 255},
      // The reference's words and exit code for --gpu-freq.
      {Tool::Sbatch, {"--gpu-freq=bogus"}, "sbatch: error: Invalid --gpu-freq argument: gpu:bogus", 255},
      {Tool::Sbatch, {"--gpu-freq="}, "sbatch: error: Invalid --gpu-freq argument: gpu:", 255},
      {Tool::Srun, {"--gpu-freq=memory=fast"}, "srun: error: Invalid --gpu-freq argument: gpu:memory=fast", 255},
      {Tool::Salloc, {"--gpu-freq=HIGH"}, "salloc: error: Invalid --gpu-freq argument: gpu:HIGH", 255},
  };
  for (const auto& c : cases) {
    auto r = parse(c.tool, c.args);
    ASSERT_FALSE(r.ok()) << c.args[0];
    EXPECT_EQ(r.error().text, c.text) << c.args[0];
    EXPECT_EQ(r.error().exit_code, c.exit_code) << c.args[0];
  }
}

// --nice is read as strtol reads it: the reference took --nice=abc as 0, 5abc as 5, +3 as 3.
// sbatch(1) --gpu-freq: [<type>=]<value>[,...][,verbose], value low, medium, high, highm1 or MHz.
TEST(CommandLine, GpuFreqTakesSlurmsValues) {
  for (const char* text : {"high", "low", "medium", "highm1", "450", "medium,memory=high",
                           "memory=high,1200,verbose", "verbose,low", "verbose", "high,"}) {
    auto r = parse(Tool::Sbatch, {std::string("--gpu-freq=") + text});
    ASSERT_TRUE(r.ok()) << text << ": " << r.error().text;
    EXPECT_EQ(r->spec.gpu_freq, text);
  }
}

TEST(CommandLine, NiceTakesTheLeadingNumber) {
  const std::vector<std::pair<std::string, std::int64_t>> cases = {
      {"--nice=abc", 0}, {"--nice=5abc", 5}, {"--nice=+3", 3}, {"--nice=-7", -7},
      {"--nice=2147483645", 2147483645}, {"--nice", 100}};
  for (const auto& [arg, nice] : cases) {
    auto r = parse(Tool::Sbatch, {arg});
    ASSERT_TRUE(r.ok()) << arg;
    EXPECT_EQ(r->spec.nice, nice) << arg;
  }
}

TEST(CommandLine, ToolSpecificMeaningsOfTheSameLetter) {
  auto sb = parse(Tool::Sbatch, {"-W", "job.sh"});
  ASSERT_TRUE(sb.ok());
  EXPECT_TRUE(sb->spec.wait);
  EXPECT_EQ(sb->positional, (std::vector<std::string>{"job.sh"}));
  auto sr = parse(Tool::Srun, {"-W", "10", "true"});
  ASSERT_TRUE(sr.ok());
  EXPECT_EQ(sr->spec.wait_seconds, 10u);
  EXPECT_FALSE(sr->spec.wait);
  auto sa = parse(Tool::Salloc, {"-K", "true"});
  ASSERT_TRUE(sa.ok());
  EXPECT_FALSE(sa->spec.kill_on_bad_exit);
  EXPECT_TRUE(sa->spec.accepted_only.count("kill-command"));
  EXPECT_FALSE(parse(Tool::Salloc, {"--wrap=x"}).ok());
  EXPECT_TRUE(parse(Tool::Sbatch, {"--export"}).ok());  // sbatch's --export[=names]
}

TEST(CommandLine, EveryTableRowIsReachable) {
  // Each row's long name resolves to itself for every tool that accepts it.
  for (const auto& def : optionTable()) {
    for (Tool t : {Tool::Sbatch, Tool::Srun, Tool::Salloc}) {
      if (!acceptedBy(def, t)) continue;
      EXPECT_EQ(findOption(t, def.long_name), &def) << def.long_name;
    }
  }
}

}  // namespace
}  // namespace drover::jobspec
