#include "cli/shared_libs.h"

#include <elf.h>
#include <fcntl.h>
#include <glob.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <optional>
#include <set>

#include "common/errno_text.h"
#include "common/unique_fd.h"

namespace drover::cli {
namespace {

bool readAt(int fd, std::uint64_t offset, void* out, std::size_t size) {
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = ::pread(fd, static_cast<char*>(out) + got, size - got,
                              static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    got += static_cast<std::size_t>(n);
  }
  return true;
}

std::vector<std::string> splitPath(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const auto colon = text.find(':', start);
    std::string item = text.substr(start, colon == std::string::npos ? colon : colon - start);
    if (!item.empty()) out.push_back(std::move(item));
    if (colon == std::string::npos) return out;
    start = colon + 1;
  }
}

// Program and dynamic entries of either class, read into the 64-bit structs.
struct Segment {
  std::uint32_t type = 0;
  std::uint64_t offset = 0, vaddr = 0, filesz = 0;
};

template <typename Ehdr, typename Phdr, typename Dyn>
Result<ElfDynamicInfo> readClass(int fd, const std::string& path) {
  const std::string bad = path + ": not a readable ELF file";
  Ehdr eh{};
  if (!readAt(fd, 0, &eh, sizeof eh)) return makeError(bad);
  ElfDynamicInfo info;
  info.elf64 = sizeof(Ehdr) == sizeof(Elf64_Ehdr);
  info.machine = eh.e_machine;
  if (eh.e_phentsize != sizeof(Phdr) || eh.e_phnum == 0 || eh.e_phnum > 4096) return info;
  std::vector<Segment> segments;
  for (std::uint32_t i = 0; i < eh.e_phnum; ++i) {
    Phdr ph{};
    if (!readAt(fd, eh.e_phoff + std::uint64_t{i} * sizeof ph, &ph, sizeof ph)) {
      return makeError(bad);
    }
    segments.push_back({ph.p_type, ph.p_offset, ph.p_vaddr, ph.p_filesz});
  }
  // DT_STRTAB is an address: the PT_LOAD that maps it gives its place in the file.
  auto fileOffset = [&](std::uint64_t vaddr) -> std::optional<std::uint64_t> {
    for (const auto& s : segments) {
      if (s.type == PT_LOAD && vaddr >= s.vaddr && vaddr < s.vaddr + s.filesz) {
        return s.offset + (vaddr - s.vaddr);
      }
    }
    return std::nullopt;
  };
  for (const auto& s : segments) {
    if (s.type != PT_DYNAMIC) continue;
    info.dynamic = true;
    std::vector<std::uint64_t> needed;
    std::optional<std::uint64_t> rpath, runpath;
    std::uint64_t strtab = 0, strsz = 0;
    const std::uint64_t count = std::min<std::uint64_t>(s.filesz / sizeof(Dyn), 1u << 16);
    for (std::uint64_t k = 0; k < count; ++k) {
      Dyn d{};
      if (!readAt(fd, s.offset + k * sizeof d, &d, sizeof d)) return makeError(bad);
      if (d.d_tag == DT_NULL) break;
      const std::uint64_t value = d.d_un.d_val;
      if (d.d_tag == DT_NEEDED) needed.push_back(value);
      if (d.d_tag == DT_STRTAB) strtab = value;
      if (d.d_tag == DT_STRSZ) strsz = value;
      if (d.d_tag == DT_RPATH) rpath = value;
      if (d.d_tag == DT_RUNPATH) runpath = value;
    }
    const auto table = fileOffset(strtab);
    if (!table || strsz == 0 || strsz > (64u << 20)) return makeError(bad);
    std::string strings(strsz, '\0');
    if (!readAt(fd, *table, strings.data(), strings.size())) return makeError(bad);
    auto text = [&](std::uint64_t at) -> std::string {
      if (at >= strings.size()) return {};
      return std::string(strings.c_str() + at);   // NUL-ended within the table (resized above)
    };
    for (auto at : needed) {
      if (auto name = text(at); !name.empty()) info.needed.push_back(std::move(name));
    }
    if (rpath) info.rpath = splitPath(text(*rpath));
    if (runpath) info.runpath = splitPath(text(*runpath));
    break;
  }
  return info;
}

bool isElf(int fd, unsigned char* ident) {
  return readAt(fd, 0, ident, EI_NIDENT) && std::memcmp(ident, ELFMAG, SELFMAG) == 0;
}

std::string directoryOf(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string expandOrigin(std::string dir, const std::string& origin) {
  for (const char* token : {"${ORIGIN}", "$ORIGIN"}) {
    for (auto at = dir.find(token); at != std::string::npos; at = dir.find(token, at)) {
      dir.replace(at, std::strlen(token), origin);
      at += origin.size();
    }
  }
  return dir;
}

// /etc/ld.so.conf's directories, following "include" globs (relative to the file's own
// directory, as ldconfig reads them); "hwcap" lines are ldconfig's and name no directory.
void readLdSoConf(const std::string& file, std::vector<std::string>* dirs, int depth) {
  if (depth > 8) return;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    line = line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
    if (line.rfind("include", 0) == 0 && line.size() > 7 && (line[7] == ' ' || line[7] == '\t')) {
      std::string pattern = line.substr(line.find_first_not_of(" \t", 7));
      if (pattern.front() != '/') pattern = directoryOf(file) + "/" + pattern;
      glob_t g{};
      if (::glob(pattern.c_str(), 0, nullptr, &g) == 0) {
        for (std::size_t i = 0; i < g.gl_pathc; ++i) readLdSoConf(g.gl_pathv[i], dirs, depth + 1);
      }
      ::globfree(&g);
    } else if (line.rfind("hwcap", 0) != 0 && line.front() == '/') {
      dirs->push_back(line);
    }
  }
}

struct Candidate {
  bool found = false;
  ElfDynamicInfo info;
};

// The file at `path` when it is a loadable object of the executable's class and machine.
Candidate loadable(const std::string& path, const ElfDynamicInfo& exe) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  auto info = readElfDynamic(path);
  if (!info || info->elf64 != exe.elf64 || info->machine != exe.machine) return {};
  return {true, std::move(*info)};
}

}  // namespace

Result<ElfDynamicInfo> readElfDynamic(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return makeError("Can't open `" + path + "`: " + errnoText(errno));
  UniqueFd closer(fd);
  unsigned char ident[EI_NIDENT];
  if (!isElf(fd, ident)) return makeError(path + ": not an ELF file");
  if (ident[EI_DATA] != ELFDATA2LSB) return makeError(path + ": not a little-endian ELF file");
  if (ident[EI_CLASS] == ELFCLASS64) return readClass<Elf64_Ehdr, Elf64_Phdr, Elf64_Dyn>(fd, path);
  if (ident[EI_CLASS] == ELFCLASS32) return readClass<Elf32_Ehdr, Elf32_Phdr, Elf32_Dyn>(fd, path);
  return makeError(path + ": unknown ELF class");
}

Result<std::vector<SharedLib>> sharedLibraries(const std::string& executable,
                                               const std::string& ld_library_path,
                                               const std::string& ld_so_conf) {
  {
    const int fd = ::open(executable.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return makeError("Can't open `" + executable + "`: " + errnoText(errno));
    UniqueFd closer(fd);
    unsigned char ident[EI_NIDENT];
    if (!isElf(fd, ident)) return std::vector<SharedLib>{};   // a script: nothing to send
  }
  auto exe = readElfDynamic(executable);
  if (!exe) return makeError(exe.error());
  const std::vector<std::string> env_dirs = splitPath(ld_library_path);
  std::vector<std::string> system_dirs;
  readLdSoConf(ld_so_conf, &system_dirs, 0);
  if (exe->elf64) {
    system_dirs.insert(system_dirs.end(), {"/lib64", "/usr/lib64"});
  }
  system_dirs.insert(system_dirs.end(), {"/lib", "/usr/lib"});
  const std::string exe_origin = directoryOf(executable);
  // The executable's DT_RPATH applies to everything it loads, when it has no DT_RUNPATH.
  std::vector<std::string> exe_rpath;
  if (exe->runpath.empty()) {
    for (const auto& d : exe->rpath) exe_rpath.push_back(expandOrigin(d, exe_origin));
  }

  std::vector<SharedLib> out;
  std::set<std::string> seen;
  struct Pending {
    std::string object;   // the path of the object that needs `info`'s libraries
    ElfDynamicInfo info;
  };
  std::deque<Pending> queue{{executable, *exe}};
  while (!queue.empty()) {
    Pending p = std::move(queue.front());
    queue.pop_front();
    const std::string origin = directoryOf(p.object);
    std::vector<std::string> dirs;
    if (p.info.runpath.empty()) {
      for (const auto& d : p.info.rpath) dirs.push_back(expandOrigin(d, origin));
      if (p.object != executable) dirs.insert(dirs.end(), exe_rpath.begin(), exe_rpath.end());
    }
    dirs.insert(dirs.end(), env_dirs.begin(), env_dirs.end());
    for (const auto& d : p.info.runpath) dirs.push_back(expandOrigin(d, origin));
    dirs.insert(dirs.end(), system_dirs.begin(), system_dirs.end());
    for (const auto& name : p.info.needed) {
      if (!seen.insert(name).second) continue;
      SharedLib lib{name, "", p.object};
      Candidate hit;
      if (name.find('/') != std::string::npos) {
        hit = loadable(name, *exe);
        if (hit.found) lib.path = name;
      } else {
        for (const auto& dir : dirs) {
          const std::string path = dir + "/" + name;
          hit = loadable(path, *exe);
          if (hit.found) {
            lib.path = path;
            break;
          }
        }
      }
      if (hit.found) queue.push_back({lib.path, std::move(hit.info)});
      out.push_back(std::move(lib));
    }
  }
  return out;
}

Result<std::vector<std::string>> parseBcastExclude(const std::string& text) {
  std::vector<std::string> dirs;
  if (strcasecmp(text.c_str(), "none") == 0) return dirs;
  std::size_t start = 0;
  for (;;) {
    const auto comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? comma : comma - start);
    if (!item.empty()) {
      if (item.front() != '/') {
        return makeError("Invalid exclude path '" + item + "': not an absolute directory");
      }
      while (item.size() > 1 && item.back() == '/') item.pop_back();
      dirs.push_back(std::move(item));
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return dirs;
}

bool inExcludedDirectory(const std::string& path, const std::vector<std::string>& dirs) {
  for (const auto& dir : dirs) {
    if (dir == "/") return true;
    if (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
        path[dir.size()] == '/') {
      return true;
    }
  }
  return false;
}

}  // namespace drover::cli
