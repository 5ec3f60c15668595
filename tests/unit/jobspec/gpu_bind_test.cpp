// --gpu-bind as srun(1) documents it: the types, "verbose,", "X*N" repetitions, hexadecimal
// masks with or without 0x, and which GPUs each local task then sees.
#include "jobspec/gpu_bind.h"

#include <gtest/gtest.h>

#include "jobspec/command_line.h"

namespace drover::jobspec {
namespace {

using Kind = GpuBind::Kind;
using Ids = std::vector<std::uint32_t>;

GpuBind parsed(std::string_view text) {
  auto b = parseGpuBind(text);
  EXPECT_TRUE(b.ok()) << text << ": " << b.error();
  return b.ok() ? *b : GpuBind{};
}

TEST(GpuBind, ParsesEveryType) {
  EXPECT_EQ(parsed("none").kind, Kind::None);
  EXPECT_EQ(parsed("closest").kind, Kind::Closest);
  EXPECT_EQ(parsed("CLOSEST").kind, Kind::Closest);
  const GpuBind single = parsed("single:2");
  EXPECT_EQ(single.kind, Kind::Single);
  EXPECT_EQ(single.count, 2u);
  EXPECT_EQ(parsed("per_task:3").count, 3u);
  const GpuBind map = parsed("verbose,map_gpu:0*2,3,1*2");
  EXPECT_TRUE(map.verbose);
  EXPECT_EQ(map.kind, Kind::Map);
  EXPECT_EQ(map.entries, (std::vector<std::uint64_t>{0, 0, 3, 1, 1}));
  EXPECT_EQ(parsed("mask_gpu:0x3,c*2").entries, (std::vector<std::uint64_t>{3, 12, 12}));
}

TEST(GpuBind, RefusesWhatItCannotRead) {
  for (const char* bad : {"", "verbose", "fastest", "single", "single:0", "single:x", "per_task:",
                          "none:1", "map_gpu", "map_gpu:", "map_gpu:a", "map_gpu:1,,2",
                          "map_gpu:1,", "map_gpu:1*0", "map_gpu:1*", "mask_gpu:0xg",
                          "map_gpu:99999999999", "map_gpu:0*70000"}) {
    EXPECT_FALSE(parseGpuBind(bad).ok()) << bad;
  }
  EXPECT_EQ(parseGpuBind("fastest").error(),
            "unknown type 'fastest' (closest, map_gpu:LIST, mask_gpu:LIST, none, per_task:N, single:N)");
}

TEST(GpuBind, TasksSeeTheirGpus) {
  const Ids step = {4, 5, 6, 7};  // the step's GPUs on the node (global indices)
  auto seen = [&](std::string_view text, std::uint32_t task) { return gpusOfTask(parsed(text), step, task); };
  EXPECT_EQ(seen("none", 1), Ids{});
  EXPECT_EQ(seen("closest", 1), Ids{});
  // single:2 -- tasks 0,1 on the first GPU, 2,3 on the second, ...; wraps past the last.
  EXPECT_EQ(seen("single:2", 0), Ids{4});
  EXPECT_EQ(seen("single:2", 1), Ids{4});
  EXPECT_EQ(seen("single:2", 2), Ids{5});
  EXPECT_EQ(seen("single:1", 5), Ids{5});
  EXPECT_EQ(seen("per_task:2", 1), (Ids{6, 7}));
  EXPECT_EQ(seen("per_task:3", 1), (Ids{7, 4, 5}));
  // map_gpu / mask_gpu name global indices, by local task, the list reused from its start.
  EXPECT_EQ(seen("map_gpu:7,6", 0), Ids{7});
  EXPECT_EQ(seen("map_gpu:7,6", 3), Ids{6});
  EXPECT_EQ(seen("mask_gpu:0x30,0xc0", 1), (Ids{6, 7}));
  EXPECT_EQ(gpusOfTask(parsed("single:1"), {}, 0), Ids{});
}

TEST(GpuBind, SrunRefusesABadValueWithSlurmsExitCode) {
  auto r = parseCommandLine(Tool::Srun, {"--gpu-bind=fastest", "true"}, 0);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().exit_code, 255);
  EXPECT_NE(r.error().text.find("error: Invalid --gpu-bind argument: gpu:fastest ("), std::string::npos)
      << r.error().text;
  auto ok = parseCommandLine(Tool::Srun, {"--gpu-bind=single:1", "true"}, 0);
  ASSERT_TRUE(ok.ok()) << ok.error().text;
  EXPECT_EQ(ok->spec.gpu_bind, "single:1");
}

}  // namespace
}  // namespace drover::jobspec
