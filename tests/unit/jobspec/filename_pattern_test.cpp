// Output file name patterns (man sbatch "filename pattern"; golden 039 for %a of non-arrays).
#include <gtest/gtest.h>

#include "jobspec/filename_pattern.h"

namespace drover::jobspec {
namespace {

PatternContext arrayTask() {
  PatternContext c;
  c.job_id = 17;
  c.array_job_id = 12;
  c.array_task_id = 0;
  c.user = "alice";
  c.job_name = "direct";
  c.node = "node01";
  c.node_index = 1;
  c.step_id = 3;
  c.task_id = 5;
  return c;
}

PatternContext plainJob() {
  PatternContext c;
  c.job_id = 11;
  c.job_name = "direct";
  c.user = "alice";
  return c;
}

TEST(FilenamePattern, ExpandsEveryCode) {
  struct Case {
    std::string pattern;
    PatternContext ctx;
    std::string want;
  };
  const std::vector<Case> cases = {
      // golden 039: out-%j-%x-%A-%a.txt
      {"out-%j-%x-%A-%a.txt", plainJob(), "out-11-direct-11-4294967294.txt"},
      {"out-%j-%x-%A-%a.txt", arrayTask(), "out-17-direct-12-0.txt"},
      {"slurm-%j.out", plainJob(), "slurm-11.out"},
      {"%J", arrayTask(), "17.3"},
      {"%J", plainJob(), "11"},
      {"%u-%N-%n-%t-%s", arrayTask(), "alice-node01-1-5-3"},
      {"%s", plainJob(), "batch"},
      {"100%%", plainJob(), "100%"},
      {"%4a", arrayTask(), "0000"},
      {"%.4j", plainJob(), "0011"},
      {"%08t", arrayTask(), "00000005"},
      {"%99j", plainJob(), "0000000011"},  // padding capped at 10
      {"%4N", arrayTask(), "node01"},      // padding ignored for text
      {"x%qy", plainJob(), "x%qy"},        // unknown codes kept
      {"end%", plainJob(), "end%"},
      {"end%4", plainJob(), "end%4"},
      {"lit\\%j", plainJob(), "lit%j"},    // a backslash turns expansion off
  };
  for (const auto& c : cases) {
    EXPECT_EQ(expandFilenamePattern(c.pattern, c.ctx), c.want) << c.pattern;
  }
}

}  // namespace
}  // namespace drover::jobspec
