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

TEST(GpuBind, IgnoresWhatFollowsTheTypeAsSlurmsSrun) {
  // The reference srun ran these as the type alone, printing no verbose line: verbose counts
  // only in front.
  for (const char* text : {"closest,verbose", "CLOSEST,verbose", "closest,bogus", "closest,verbose,single:1"}) {
    EXPECT_EQ(parsed(text), parsed("closest")) << text;
  }
  EXPECT_EQ(parsed("none,verbose"), parsed("none"));
  EXPECT_EQ(parsed("single:1,verbose"), parsed("single:1"));
  EXPECT_EQ(parsed("single:1,verbose,closest"), parsed("single:1"));
  EXPECT_EQ(parsed("per_task:2,verbose"), parsed("per_task:2"));
  EXPECT_EQ(parsed("verbose,closest,verbose"), parsed("verbose,closest"));
  EXPECT_TRUE(parsed("verbose,closest,verbose").verbose);
  // A list type's items are all read: the reference refused these ("Failed to validate verbose").
  EXPECT_FALSE(parseGpuBind("map_gpu:0,1,verbose").ok());
  EXPECT_FALSE(parseGpuBind("mask_gpu:0x3,verbose").ok());
  // Nor is a type found after a leading comma, or nothing after verbose (both refused there).
  EXPECT_FALSE(parseGpuBind(",closest").ok());
  EXPECT_FALSE(parseGpuBind("verbose,").ok());
  EXPECT_FALSE(parseGpuBind("verbose,bogus").ok());
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

// What each task saw on the reference Slurm 22.05 (fake GPUs, no device cgroup, so indices
// are the node's): CUDA_VISIBLE_DEVICES = GPU_DEVICE_ORDINAL = ROCR_VISIBLE_DEVICES =
// SLURM_STEP_GPUS, and SLURMD_TRES_BIND.
TEST(TaskGpuView, AsTheReferencesTasksSawTheirGpus) {
  using Ids = std::vector<std::uint32_t>;
  const Ids four = {0, 1, 2, 3};
  auto own = [](Ids gpus, std::string tres) { return TaskGpuView{false, std::move(gpus), std::move(tres)}; };
  // srun -N1 -n4 --gpus-per-task=1: 0, 1, 2, 3, "gpu:per_task:1".
  for (std::uint32_t t = 0; t < 4; ++t) {
    EXPECT_EQ(taskGpuView("", 1, four, 4, t), own({t}, "gpu:per_task:1")) << t;
  }
  // --gpus=4 -n4 --gpu-bind=single:1: one each; single:2: 0,0,1,1; --gpus=2 single:1: 0,1,0,1.
  EXPECT_EQ(taskGpuView("single:1", 0, four, 4, 2), own({2}, "gpu:single:1"));
  EXPECT_EQ(taskGpuView("single:2", 0, four, 4, 1), own({0}, "gpu:single:2"));
  EXPECT_EQ(taskGpuView("single:2", 0, four, 4, 2), own({1}, "gpu:single:2"));
  EXPECT_EQ(taskGpuView("single:1", 0, {0, 1}, 4, 2), own({0}, "gpu:single:1"));
  // map_gpu:1,0 by local task, the list reused: 1,0,1,0.
  EXPECT_EQ(taskGpuView("map_gpu:1,0", 0, four, 4, 0), own({1}, "gpu:map_gpu:1,0"));
  EXPECT_EQ(taskGpuView("map_gpu:1,0", 0, four, 4, 3), own({0}, "gpu:map_gpu:1,0"));
  // mask_gpu:0x3,0xc: 0,1 then 2,3.
  EXPECT_EQ(taskGpuView("mask_gpu:0x3,0xc", 0, four, 4, 1), own({2, 3}, "gpu:mask_gpu:0x3,0xc"));
  // --gpu-bind wins over --gpus-per-task's binding (-n2 --gpus-per-task=2 --gpu-bind=single:1:
  // 0 and 1), and is echoed as given (MAP_GPU:1 stayed upper case).
  EXPECT_EQ(taskGpuView("single:1", 2, four, 2, 1), own({1}, "gpu:single:1"));
  EXPECT_EQ(taskGpuView("MAP_GPU:1", 0, {0, 1}, 2, 0), own({1}, "gpu:MAP_GPU:1"));
  // On GPUs 2-5 (a job before holds 0,1) the indices stay the node's; map/mask entries outside
  // the step fall back to its first GPU (the reference's "Binding to the first device in the
  // allocation instead"): map_gpu:1,0 gave 2 to every task, mask_gpu:0x3,0xc 2 and 2,3.
  const Ids high = {2, 3, 4, 5};
  EXPECT_EQ(taskGpuView("single:1", 0, high, 4, 3), own({5}, "gpu:single:1"));
  EXPECT_EQ(taskGpuView("", 1, {2, 3}, 2, 1), own({3}, "gpu:per_task:1"));
  auto fell_back = [&](std::string tres) {
    TaskGpuView v = own({2}, std::move(tres));
    v.fell_back = true;  // said on the task's stderr (gpuBindNotice)
    return v;
  };
  EXPECT_EQ(taskGpuView("map_gpu:1,0", 0, high, 4, 1), fell_back("gpu:map_gpu:1,0"));
  EXPECT_EQ(taskGpuView("mask_gpu:0x3,0xc", 0, high, 4, 0), fell_back("gpu:mask_gpu:0x3,0xc"));
  EXPECT_EQ(taskGpuView("mask_gpu:0x3,0xc", 0, high, 4, 1), own({2, 3}, "gpu:mask_gpu:0x3,0xc"));
  // none: no GPU list at all; closest binds nothing here.
  EXPECT_EQ(taskGpuView("none", 1, four, 4, 0), (TaskGpuView{true, {}, "gpu:none"}));
  EXPECT_EQ(taskGpuView("closest", 0, {0, 1}, 2, 1), own({}, "gpu:closest"));
  // A node running one task of the step is never bound, nor told SLURMD_TRES_BIND (-n1
  // --gpu-bind=none and single:1 saw 0,1; -N2 -n3 --gpus-per-node=2 map_gpu:1 and none: the
  // second node's one task saw 0,1); no binding asked: nothing.
  EXPECT_EQ(taskGpuView("none", 0, {0, 1}, 1, 0), TaskGpuView{});
  EXPECT_EQ(taskGpuView("map_gpu:1", 0, {0, 1}, 1, 0), TaskGpuView{});
  EXPECT_EQ(taskGpuView("", 2, {0, 1}, 1, 0), TaskGpuView{});
  EXPECT_EQ(taskGpuView("", 0, four, 4, 2), TaskGpuView{});
  EXPECT_EQ(taskGpuView("single:1", 0, {}, 4, 2), TaskGpuView{});
}

// The lines the reference's step daemon wrote on each task's stderr (srun -l ... 2>&1 on
// Slurm 22.05, nodes of 8 GPUs, no device cgroup).
TEST(GpuBindNotice, AsTheReferencesTasksPrintedIt) {
  auto notice = [](std::string_view text, const Ids& step, std::uint32_t tasks, std::uint32_t local,
                   std::uint32_t gpus_per_task = 0) {
    return gpuBindNotice(taskGpuView(text, gpus_per_task, step, tasks, local), step, local, "node01");
  };
  // -n2 --gpus=2 --gpu-bind=verbose,closest: both tasks.
  EXPECT_EQ(notice("verbose,closest", {0, 1}, 2, 1),
            "gpu-bind: usable_gres=0x3; bit_alloc=0x3; local_inx=0; global_list=0,1; local_list=0,1\n");
  // -n4 --gpus=4 verbose,map_gpu:1,0,3: task 2 and 3.
  EXPECT_EQ(notice("verbose,map_gpu:1,0,3", {0, 1, 2, 3}, 4, 2),
            "gpu-bind: usable_gres=0x8; bit_alloc=0xF; local_inx=0; global_list=3; local_list=3\n");
  EXPECT_EQ(notice("verbose,map_gpu:1,0,3", {0, 1, 2, 3}, 4, 3),
            "gpu-bind: usable_gres=0x2; bit_alloc=0xF; local_inx=0; global_list=1; local_list=1\n");
  // mask_gpu:0x3,0x1; "VERBOSE," in capitals; single:1 on GPUs 3,4 (a job held 0-2).
  EXPECT_EQ(notice("verbose,mask_gpu:0x3,0x1", {0, 1}, 2, 0),
            "gpu-bind: usable_gres=0x3; bit_alloc=0x3; local_inx=0; global_list=0,1; local_list=0,1\n");
  EXPECT_EQ(notice("VERBOSE,single:1", {3, 4}, 2, 1),
            "gpu-bind: usable_gres=0x10; bit_alloc=0x18; local_inx=0; global_list=4; local_list=4\n");
  // per_task:2 on GPUs 3-6; --gpus-per-task=1 with verbose,closest: every step GPU.
  EXPECT_EQ(notice("verbose,per_task:2", {3, 4, 5, 6}, 2, 1),
            "gpu-bind: usable_gres=0x60; bit_alloc=0x78; local_inx=0; global_list=5,6; local_list=5,6\n");
  EXPECT_EQ(notice("verbose,closest", {3, 4}, 2, 0, 1),
            "gpu-bind: usable_gres=0x18; bit_alloc=0x18; local_inx=0; global_list=3,4; local_list=3,4\n");
  // A map naming no GPU of the step (GPUs 3-5, map_gpu:2,0): the error line, then verbose's.
  EXPECT_EQ(notice("verbose,map_gpu:2,0", {3, 4, 5}, 3, 1),
            "drover-stepd-node01: error: Bind request gpu:verbose,map_gpu:2,0 does not specify any "
            "devices within the allocation for task 1. Binding to the first device in the allocation "
            "instead.\n"
            "gpu-bind: usable_gres=0x8; bit_alloc=0x38; local_inx=0; global_list=3; local_list=3\n");
  EXPECT_EQ(notice("mask_gpu:0x2,0x3", {3, 4}, 2, 0),
            "drover-stepd-node01: error: Bind request gpu:mask_gpu:0x2,0x3 does not specify any "
            "devices within the allocation for task 0. Binding to the first device in the allocation "
            "instead.\n");
  // Nothing: without verbose; verbose,none; one task on the node (-n1, and -N2 -n4's lone
  // task on the second node); a map within the step.
  EXPECT_EQ(notice("single:1", {0, 1}, 2, 0), "");
  EXPECT_EQ(notice("verbose,none", {0, 1}, 2, 0), "");
  EXPECT_EQ(notice("verbose,closest", {0, 1}, 1, 0), "");
  EXPECT_EQ(notice("verbose,single:1", {0, 1, 2}, 1, 0), "");
  EXPECT_EQ(notice("map_gpu:1", {0, 1}, 2, 0), "");
  // verbose after the type: the reference bound as the type and printed nothing.
  EXPECT_EQ(notice("closest,verbose", {0, 1}, 2, 0), "");
  EXPECT_EQ(notice("single:1,verbose", {0, 1}, 2, 1), "");
}

TEST(GpuBindNotice, HexMasksHaveNoLeadingZeros) {
  EXPECT_EQ(gpuHexMask({}), "0x0");
  EXPECT_EQ(gpuHexMask({0}), "0x1");
  EXPECT_EQ(gpuHexMask({1, 0}), "0x3");
  EXPECT_EQ(gpuHexMask({4}), "0x10");
  EXPECT_EQ(gpuHexMask({0, 1, 2, 3, 4, 5, 6, 7}), "0xFF");
  EXPECT_EQ(gpuHexMask({70}), "0x400000000000000000");
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
