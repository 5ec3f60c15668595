#include "agent/resources.h"

#include <gtest/gtest.h>

namespace drover::agent {
namespace {

TEST(ParseMeminfo, TotalAndAvailable) {
  const char* text =
      "MemTotal:       24589316 kB\n"
      "MemFree:         1234567 kB\n"
      "MemAvailable:   20480000 kB\n";
  auto total = parseMeminfoMb(text);
  ASSERT_TRUE(total);
  EXPECT_EQ(*total, 24013u);  // 24589316 kB / 1024, rounded down
  auto avail = parseMeminfoMb(text, "MemAvailable");
  ASSERT_TRUE(avail);
  EXPECT_EQ(*avail, 20000u);
  EXPECT_FALSE(parseMeminfoMb("Garbage: x\n"));
  EXPECT_FALSE(parseMeminfoMb("MemTotal: kB\n"));
}

std::string cpuinfo(int sockets, int cores, int threads) {
  std::string out;
  int proc = 0;
  for (int t = 0; t < threads; ++t) {
    for (int s = 0; s < sockets; ++s) {
      for (int c = 0; c < cores; ++c) {
        out += "processor\t: " + std::to_string(proc++) + "\n";
        out += "model name\t: Test CPU\n";
        out += "physical id\t: " + std::to_string(s) + "\n";
        out += "core id\t\t: " + std::to_string(c) + "\n\n";
      }
    }
  }
  return out;
}

TEST(ParseCpuinfo, Table) {
  struct Case {
    int sockets, cores, threads;
  };
  for (const Case& c : std::vector<Case>{{1, 1, 1}, {1, 2, 1}, {2, 8, 1}, {2, 16, 2}, {1, 4, 2}}) {
    Topology t = parseCpuinfo(cpuinfo(c.sockets, c.cores, c.threads),
                              static_cast<std::uint32_t>(c.sockets * c.cores * c.threads));
    EXPECT_EQ(t.sockets, static_cast<std::uint32_t>(c.sockets));
    EXPECT_EQ(t.cores_per_socket, static_cast<std::uint32_t>(c.cores));
    EXPECT_EQ(t.threads_per_core, static_cast<std::uint32_t>(c.threads));
  }
}

TEST(ParseCpuinfo, NoTopologyFallsBackToFlat) {
  Topology t = parseCpuinfo("processor : 0\nprocessor : 1\n", 2);
  EXPECT_EQ(t.sockets, 1u);
  EXPECT_EQ(t.cores_per_socket, 2u);
  EXPECT_EQ(t.threads_per_core, 1u);
}

TEST(ParseNvidiaSmi, IndicesAndTypes) {
  auto gpus = parseNvidiaSmi(
      "0, NVIDIA H100 80GB HBM3\n"
      "1, NVIDIA H100 80GB HBM3\n"
      "2, Tesla V100-SXM2-16GB\n"
      "garbage line\n"
      "x, NVIDIA A100\n");
  ASSERT_EQ(gpus.size(), 3u);
  EXPECT_EQ(gpus[0].index, 0u);
  EXPECT_EQ(gpus[0].type, "h100");
  EXPECT_EQ(gpus[1].file, "/dev/nvidia1");
  EXPECT_EQ(gpus[2].type, "v100");
}

TEST(GpuTypeFromName, Table) {
  EXPECT_EQ(gpuTypeFromName("NVIDIA A100-SXM4-80GB"), "a100");
  EXPECT_EQ(gpuTypeFromName("NVIDIA GeForce RTX 4090"), "rtx");
  EXPECT_EQ(gpuTypeFromName(""), "");
}

TEST(ParseLoadavg, FirstField) {
  EXPECT_DOUBLE_EQ(parseLoadavg("6.65 5.01 3.00 2/345 12345\n"), 6.65);
  EXPECT_DOUBLE_EQ(parseLoadavg("junk"), 0.0);
}

TEST(ConfiguredResources, ReportsTheDeclaredSize) {
  config::NodeConfig n;
  n.name = "node1";
  n.cpus = 16;
  n.sockets = 2;
  n.cores_per_socket = 8;
  n.real_memory_mb = 65536;
  n.gpus.count = 2;
  n.gpus.type = "h100";
  HostResources r = configuredResources(n);
  EXPECT_EQ(r.cpus, 16u);
  EXPECT_EQ(r.sockets, 2u);
  EXPECT_EQ(r.real_memory_mb, 65536u);
  ASSERT_EQ(r.gpus.size(), 2u);
  EXPECT_EQ(r.gpus[1].file, "/dev/nvidia1");
  EXPECT_EQ(r.gpus[1].type, "h100");
}

TEST(DetectResources, ReadsThisHost) {
  config::NodeConfig n;
  n.name = "here";
  n.gpus.count = 3;   // no autodetect: configured GPUs are reported
  HostResources r = detectResources(n);
  EXPECT_GE(r.cpus, 1u);
  EXPECT_GT(r.real_memory_mb, 0u);
  EXPECT_EQ(r.sockets * r.cores_per_socket * r.threads_per_core >= 1, true);
  EXPECT_EQ(r.gpus.size(), 3u);
}

}  // namespace
}  // namespace drover::agent
