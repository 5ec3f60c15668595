#include "launch/request_env.h"

#include <gtest/gtest.h>

namespace drover::launch {
namespace {

TEST(AddRequestedOptions, OnlyWhatTheUserGave) {
  v1::JobSpec spec;
  JobEnvContext ctx;
  addRequestedOptions(spec, ctx);
  EXPECT_FALSE(ctx.ntasks || ctx.cpus_per_task || ctx.ntasks_per_node || ctx.mem_per_node_mb ||
               ctx.mem_per_cpu_mb || ctx.mem_per_gpu_mb || ctx.cpus_per_gpu);
  EXPECT_EQ(ctx.gpus + ctx.gpus_per_node + ctx.gpus_per_task, "");
}

TEST(AddRequestedOptions, GpuRequestsKeepTheirType) {
  v1::JobSpec spec;
  spec.mutable_gpus()->set_type("h100");
  spec.mutable_gpus()->set_count(4);
  spec.mutable_gpus_per_node()->set_count(2);
  spec.set_cpus_per_gpu(6);
  spec.set_mem_per_gpu_mb(1500);
  spec.set_ntasks(3);
  JobEnvContext ctx;
  addRequestedOptions(spec, ctx);
  EXPECT_EQ(ctx.gpus, "h100:4");
  EXPECT_EQ(ctx.gpus_per_node, "2");
  EXPECT_EQ(ctx.gpus_per_task, "");
  EXPECT_EQ(ctx.cpus_per_gpu, 6u);
  EXPECT_EQ(ctx.mem_per_gpu_mb, 1500u);
  EXPECT_EQ(ctx.ntasks, 3u);
}

TEST(AddRequestedOptions, MemoryPerNodeWinsOverTheDefaultPerCpu) {
  // The controller fills DefMemPerCPU into mem_per_cpu_mb; --mem (mem_set) is what was asked.
  v1::JobSpec spec;
  spec.set_mem_set(true);
  spec.set_mem_per_node_mb(500);
  spec.set_mem_per_cpu_mb(4000);
  JobEnvContext ctx;
  addRequestedOptions(spec, ctx);
  EXPECT_EQ(ctx.mem_per_node_mb, 500u);
  EXPECT_FALSE(ctx.mem_per_cpu_mb);
  // --mem=0 (all of each node's memory) sets neither: the reference's job had no
  // SLURM_MEM_PER_NODE (2026-12-03).
  spec.set_mem_per_node_mb(0);
  JobEnvContext all;
  addRequestedOptions(spec, all);
  EXPECT_FALSE(all.mem_per_node_mb);
  EXPECT_FALSE(all.mem_per_cpu_mb);
}

}  // namespace
}  // namespace drover::launch
