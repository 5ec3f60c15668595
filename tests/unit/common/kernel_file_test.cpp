// readKernelFile: whole files however long (a read that fills its buffer asks again, with a
// bigger one), generated kernel files, and "" for a file that cannot be opened.
#include "common/kernel_file.h"

#include <unistd.h>

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
  // Longer than a page on any machine: one line per mapping.
  const std::string maps = readKernelFile("/proc/self/maps");
  EXPECT_EQ(maps.back(), '\n');
  EXPECT_EQ(readKernelFile("/nonexistent/kernel/file"), "");
}

}  // namespace
}  // namespace drover
