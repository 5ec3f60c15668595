#pragma once
// --send-libs (sbcast, srun --bcast): the shared objects an executable needs, found as the
// dynamic linker would find them for it, so the nodes can get copies beside the executable's.
//
// A small ELF reader rather than ldd: ldd (glibc's) runs the binary under the dynamic linker
// with LD_TRACE_LOADED_OBJECTS, which for a crafted binary (or a libc other than the one the
// binary names) can run the binary's code, and its output is a format for people. Reading
// DT_NEEDED, DT_RPATH and DT_RUNPATH runs nothing and reads the same facts.
//
// The search follows ld.so(8) for each object: its DT_RPATH (only when it has no DT_RUNPATH; the
// executable's DT_RPATH applies to every object it loads, as ld.so does), LD_LIBRARY_PATH, its
// DT_RUNPATH, then the directories of /etc/ld.so.conf (with its includes), which is what
// ld.so.cache indexes, then the default /lib and /usr/lib (/lib64 and /usr/lib64 for 64-bit
// objects). $ORIGIN is the object's directory. A candidate of another ELF class or machine is
// skipped, as ld.so skips it. Dependencies of dependencies are followed; each name once.
#include <cstdint>
#include <string>
#include <vector>

#include "drover/result.h"

namespace drover::cli {

struct ElfDynamicInfo {
  bool elf64 = false;
  std::uint16_t machine = 0;
  bool dynamic = false;                  // has a PT_DYNAMIC (a static binary has none)
  std::vector<std::string> needed;       // DT_NEEDED, in order
  std::vector<std::string> rpath;        // DT_RPATH, split at ':'
  std::vector<std::string> runpath;      // DT_RUNPATH, split at ':'
};

// A little-endian ELF file's dynamic section; an error for a file that is not one.
Result<ElfDynamicInfo> readElfDynamic(const std::string& path);

struct SharedLib {
  std::string name;                      // as DT_NEEDED names it ("libfoo.so.1")
  std::string path;                      // where it was found; "" when it was not
  std::string needed_by;                 // the object that first named it
};

// Every shared object `executable` needs, directly or through another, in the order found.
// `ld_library_path` is LD_LIBRARY_PATH's value; `ld_so_conf` the configuration file to read
// (tests name their own). An executable that is not ELF (a script) needs none.
Result<std::vector<SharedLib>> sharedLibraries(const std::string& executable,
                                               const std::string& ld_library_path,
                                               const std::string& ld_so_conf = "/etc/ld.so.conf");

// --exclude / BcastExclude: "NONE" (any case) for no directories, else a comma-separated list of
// absolute directories; an error names the first entry that is not absolute.
Result<std::vector<std::string>> parseBcastExclude(const std::string& text);

// Whether `path` lies in one of `dirs` or a directory below one ("/usr/lib" excludes
// "/usr/lib/x86_64-linux-gnu/libc.so.6", not "/usr/lib64/x.so" nor "/usr/libexec/x.so").
bool inExcludedDirectory(const std::string& path, const std::vector<std::string>& dirs);

}  // namespace drover::cli
