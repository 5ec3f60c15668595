// The CLIs' and drover-stepd's code, mapped by 2 MiB page table entries when they start: one
// read-only executable segment from file offset 0 at a 2 MiB boundary (the link), and a page
// cache of 2 MiB folios (cmake/write-for-huge-pages, run after each link).
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "../smaps_field.h"
#include "../temp_dir.h"

namespace drover {
namespace {

constexpr std::size_t kTwoMiB = std::size_t{2} << 20;

// The program headers of an ELF file; empty when it is not one.
std::vector<Elf64_Phdr> programHeaders(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr header{};
  if (!in.read(reinterpret_cast<char*>(&header), sizeof header) ||
      std::string(reinterpret_cast<const char*>(header.e_ident), 4) != "\x7f" "ELF") {
    return {};
  }
  std::vector<Elf64_Phdr> out(header.e_phnum);
  in.seekg(static_cast<std::streamoff>(header.e_phoff));
  in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.size() * sizeof(Elf64_Phdr)));
  return in ? out : std::vector<Elf64_Phdr>{};
}

TEST(LinkLayout, StaticExecutablesStartWithTwoMiBOfCodeOnA2MiBBoundary) {
  // The fully static ones (CMakeLists.txt's cli_static_link list).
  int checked = 0;
  for (const char* name : {"sbatch", "sbcast", "squeue", "scancel", "scontrol", "sinfo", "sprio",
                           "sshare", "sacctmgr", "sdiag", "srun", "salloc", "sacct", "sstat",
                           "drover-stepd"}) {
    const std::string path = std::string(DROVER_BIN_DIR) + "/" + name;
    const auto headers = programHeaders(path);
    ASSERT_FALSE(headers.empty()) << path;
    bool dynamic = false;
    const Elf64_Phdr* first_load = nullptr;
    for (const auto& h : headers) {
      dynamic = dynamic || h.p_type == PT_INTERP;
      if (h.p_type == PT_LOAD && first_load == nullptr) first_load = &h;
    }
    if (dynamic) continue;  // not static in this build (sanitizers, or shared dependencies)
    ++checked;
    ASSERT_NE(first_load, nullptr) << path;
    EXPECT_EQ(first_load->p_offset, 0u) << path;
    EXPECT_EQ(first_load->p_vaddr % kTwoMiB, 0u) << path;
    EXPECT_EQ(first_load->p_flags, static_cast<Elf64_Word>(PF_R | PF_X)) << path;
    EXPECT_GE(first_load->p_filesz, kTwoMiB) << path;
  }
  if (checked == 0) GTEST_SKIP() << "no static executable in this build";
}

// kB of FilePmdMapped for `path`'s first 4 MiB mapped at a 2 MiB boundary, as exec maps the
// code at 0x400000; -1 where the file cannot be mapped.
long filePmdMappedKb(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  const std::size_t length = 2 * kTwoMiB;
  void* room = mmap(nullptr, length + kTwoMiB, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  const auto aligned = (reinterpret_cast<std::uintptr_t>(room) + kTwoMiB - 1) & ~(kTwoMiB - 1);
  void* at = mmap(reinterpret_cast<void*>(aligned), length, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
  close(fd);
  if (at == MAP_FAILED) return -1;
  for (std::size_t o = 0; o < length; o += 4096) (void)static_cast<volatile const char*>(at)[o];
  const long kb = smapsFieldKb(aligned, "FilePmdMapped");
  munmap(room, length + kTwoMiB);
  return kb;
}

// 4 MiB of a pattern, in writes of `write_size` bytes, to a new file.
void writeFile(const std::string& path, std::size_t write_size) {
  std::string bytes(2 * kTwoMiB, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7 + i / 4096);
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
  for (std::size_t o = 0; o < bytes.size(); o += write_size) {
    ASSERT_EQ(write(fd, bytes.data() + o, write_size), static_cast<ssize_t>(write_size));
  }
  close(fd);
}

TEST(WriteForHugePages, AFileTheLinkerWroteInSmallPiecesIsMappedBy2MiBEntriesAfter) {
  TempDir dir;
  // Whether this filesystem and kernel give a file written in one piece 2 MiB folios at all.
  writeFile(dir.file("probe"), 2 * kTwoMiB);
  if (filePmdMappedKb(dir.file("probe")) != 4096) GTEST_SKIP() << "no 2 MiB page cache folios here";
  const std::string exe = dir.file("exe");
  writeFile(exe, 4096);
  const long before = filePmdMappedKb(exe);
  if (before != 0) GTEST_SKIP() << "small writes already make 2 MiB folios here";
  const std::string command = std::string(DROVER_WRITE_FOR_HUGE_PAGES) + " " + exe;
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  EXPECT_EQ(filePmdMappedKb(exe), 4096);
  // Still the same bytes and mode.
  std::ifstream in(exe, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(bytes.size(), 2 * kTwoMiB);
  for (std::size_t i = 0; i < bytes.size(); i += 4093) ASSERT_EQ(bytes[i], static_cast<char>(i * 7 + i / 4096)) << i;
  EXPECT_EQ(access(exe.c_str(), X_OK), 0);
}

}  // namespace
}  // namespace drover
