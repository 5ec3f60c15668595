// readKernelFile: whole files however long, generated kernel files (a seq_file of many records
// gives a page or so a read, whatever the buffer), and "" for a file that cannot be opened.
#include "common/kernel_file.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace drover {
namespace {

namespace fs = std::filesystem;

TEST(KernelFile, ReadsWholeFilesOfAnySize) {
  const fs::path dir = fs::temp_directory_path() / ("kernel-file-" + std::to_string(getpid()));
  fs::create_directories(dir);
  // Empty, shorter than one read, exactly one read, and several reads long.
  for (std::size_t size : {std::size_t{0}, std::size_t{100}, std::size_t{4096},
                           std::size_t{4096 + 8192 + 1}, std::size_t{100000}}) {
    std::string text;
    for (std::size_t i = 0; i < size; ++i) text += static_cast<char>('a' + i % 26);
    const fs::path file = dir / std::to_string(size);
    std::ofstream(file, std::ios::binary) << text;
    EXPECT_EQ(readKernelFile(file.string()), text) << size << " bytes";
  }
  fs::remove_all(dir);
}

TEST(KernelFile, GeneratedFilesAndMissingOnes) {
  const std::string status = readKernelFile("/proc/self/status");
  EXPECT_EQ(status.rfind("Name:", 0), 0u) << status.substr(0, 40);
  EXPECT_NE(status.find("\nPid:"), std::string::npos);
  EXPECT_EQ(readKernelFile("/nonexistent/kernel/file"), "");
}

// /proc/PID/maps and /proc/cpuinfo (a block per CPU: 100 KiB on a large node) come a page or
// so a read: a short read is not their end.
TEST(KernelFile, ManyRecordFilesWhole) {
  // 400 mappings that cannot merge (alternate protections): some 30 KiB of maps.
  constexpr int kMappings = 400;
  const long page = sysconf(_SC_PAGESIZE);
  char* room = static_cast<char*>(mmap(nullptr, kMappings * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(room, MAP_FAILED);
  for (int i = 0; i < kMappings; i += 2) mprotect(room + i * page, page, PROT_READ);
  const std::string maps = readKernelFile("/proc/self/maps");
  for (int i = 0; i < kMappings; ++i) {
    char start[32];
    std::snprintf(start, sizeof start, "%lx-", reinterpret_cast<unsigned long>(room + i * page));
    ASSERT_NE(maps.find(start), std::string::npos) << "mapping " << i << " missing from " << maps.size() << " bytes";
  }
  EXPECT_NE(maps.find("[stack]"), std::string::npos);
  munmap(room, kMappings * page);
}

}  // namespace
}  // namespace drover
