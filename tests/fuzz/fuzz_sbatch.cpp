// sbatch/srun/salloc parsing invariants. Input: the first line holds the command-line words
// (split on spaces), the rest is a batch script. Every input must either give a request whose
// values keep the parsers' promises, or an error whose every line starts with "<tool>: " and
// whose exit code is one Slurm uses (1 or 255).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "jobspec/build_spec.h"
#include "jobspec/filename_pattern.h"
#include "jobspec/script_directives.h"

namespace {

using namespace drover::jobspec;

constexpr std::int64_t kNow = 1796040000;

std::vector<std::string> words(std::string_view line) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    std::size_t start = i;
    while (i < line.size() && line[i] != ' ') ++i;
    if (i > start) out.emplace_back(line.substr(start, i - start));
  }
  return out;
}

void checkError(Tool tool, const CliError& e) {
  FUZZ_CHECK(e.exit_code == 1 || e.exit_code == 255, "exit code %d", e.exit_code);
  std::string prefix = std::string(toolName(tool)) + ": ";
  std::size_t start = 0;
  while (start <= e.text.size()) {
    std::size_t nl = e.text.find('\n', start);
    if (nl == std::string::npos) nl = e.text.size();
    std::string_view line = std::string_view(e.text).substr(start, nl - start);
    // getopt's failures end with Slurm's unprefixed hint line.
    bool hint = line.starts_with("Try \"");
    FUZZ_CHECK(hint || line.starts_with(prefix), "unprefixed error line: %s", e.text.c_str());
    start = nl + 1;
  }
}

void checkSpec(const JobSpec& s) {
  if (s.array) {
    FUZZ_CHECK(!s.array->ranges.empty(), "array without ranges");
    for (auto id : s.array->taskIds()) FUZZ_CHECK(id < kDefaultMaxArraySize, "task id %u", id);
  }
  if (s.nodes) FUZZ_CHECK(s.nodes->max == 0 || s.nodes->max >= s.nodes->min, "node range");
  if (s.dependency) {
    auto again = parseDependencySpec(formatDependency(*s.dependency));
    FUZZ_CHECK(again.ok() && again->items == s.dependency->items, "dependency round trip: %s",
               s.dependency->text.c_str());
  }
  int memory = (s.mem_mb ? 1 : 0) + (s.mem_per_cpu_mb ? 1 : 0) + (s.mem_per_gpu_mb ? 1 : 0);
  FUZZ_CHECK(memory <= 1, "more than one memory option");
  if (s.signal) FUZZ_CHECK(s.signal->signal > 0 && s.signal->seconds <= kMaxSignalSeconds, "signal");
  for (const auto& [name, source] : s.sources) {
    FUZZ_CHECK(!name.empty(), "empty source name");
    (void)source;
  }
  PatternContext ctx;
  ctx.job_id = 7;
  ctx.job_name = s.job_name.value_or("");
  if (s.output) (void)expandFilenamePattern(*s.output, ctx);
  if (s.error) (void)expandFilenamePattern(*s.error, ctx);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::size_t nl = input.find('\n');
  std::vector<std::string> args = words(input.substr(0, nl));
  std::optional<std::string_view> script;
  if (nl != std::string_view::npos) script = input.substr(nl + 1);

  for (const auto& d : extractDirectives(script.value_or(""))) {
    FUZZ_CHECK(!d.tokens.empty() && d.line >= 1, "empty directive");
  }

  auto batch = buildBatchRequest(args, {{"SBATCH_PARTITION", "p"}}, script, kNow);
  if (batch.ok()) {
    checkSpec(batch->spec);
    FUZZ_CHECK(!batch->script.empty() && batch->script.starts_with("#!"), "script kept without #!");
  } else {
    checkError(Tool::Sbatch, batch.error());
  }

  auto step = buildStepRequest(args, {{"SLURM_NTASKS", "2"}}, kNow);
  if (step.ok()) {
    checkSpec(step->spec);
  } else {
    checkError(Tool::Srun, step.error());
  }

  auto alloc = buildAllocRequest(args, {}, kNow);
  if (alloc.ok()) {
    checkSpec(alloc->spec);
  } else {
    checkError(Tool::Salloc, alloc.error());
  }
  return 0;
}
