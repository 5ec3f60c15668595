#include "stepd/memory_cgroup.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "common/kernel_file.h"

namespace drover::stepd {
namespace {

bool writeFile(const std::string& path, const std::string& value, std::string* error) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    if (error) *error = path + ": " + std::strerror(errno);
    return false;
  }
  bool ok = write(fd, value.data(), value.size()) == static_cast<ssize_t>(value.size());
  if (!ok && error) *error = path + ": " + std::strerror(errno);
  close(fd);
  return ok;
}

bool makeDir(const std::string& path, std::string* error) {
  if (mkdir(path.c_str(), 0755) == 0 || errno == EEXIST) return true;
  if (error) *error = "mkdir " + path + ": " + std::strerror(errno);
  return false;
}

bool exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

}  // namespace

std::optional<std::uint64_t> parseOomKills(const std::string& text) {
  std::istringstream in(text);
  std::string key;
  std::uint64_t value = 0;
  while (in >> key >> value) {
    if (key == "oom_kill") return value;
  }
  return std::nullopt;
}

CgroupRoot findMemoryCgroupRoot(const std::string& mount) {
  CgroupRoot root;
  std::string why_v2 = "no cgroup v2 hierarchy with the memory controller";
  // v2: the unified hierarchy at the mount point itself, or at <mount>/unified (hybrid).
  for (const std::string& dir : {mount, mount + "/unified"}) {
    if (readKernelFile(dir + "/cgroup.controllers").find("memory") == std::string::npos) continue;
    std::string error;
    const std::string base = dir + "/drover";
    // Children of `base` get the memory controller only if it is enabled on the way down.
    if (!makeDir(base, &error) ||
        !writeFile(dir + "/cgroup.subtree_control", "+memory", &error) ||
        !writeFile(base + "/cgroup.subtree_control", "+memory", &error)) {
      why_v2 = "cgroup v2 at " + dir + " is not writable (" + error + ")";
      continue;
    }
    root.kind = CgroupRoot::Kind::kV2;
    root.path = base;
    root.limits_swap = exists(base + "/memory.swap.max");
    return root;
  }
  const std::string v1 = mount + "/memory";
  if (!exists(v1 + "/memory.limit_in_bytes")) {
    root.why = why_v2 + "; no cgroup v1 memory hierarchy at " + v1;
    return root;
  }
  std::string error;
  if (!makeDir(v1 + "/drover", &error)) {
    root.why = why_v2 + "; cgroup v1 memory hierarchy not writable (" + error + ")";
    return root;
  }
  root.kind = CgroupRoot::Kind::kV1;
  root.path = v1 + "/drover";
  root.limits_swap = exists(root.path + "/memory.memsw.limit_in_bytes");
  return root;
}

Result<MemoryCgroup> MemoryCgroup::create(const CgroupRoot& root, std::uint64_t job_id,
                                          std::int64_t step_id, std::uint64_t limit_bytes) {
  if (root.kind == CgroupRoot::Kind::kNone) return makeError("no memory cgroup: " + root.why);
  // The supervisor's pid makes the name unique on this host: the supervisors of one step's
  // nodes (several agents per host) and of other clusters' jobs with the same id must not share
  // a cgroup, or the first to finish removes it under the others' tasks.
  const std::string path = root.path + "/step_" + std::to_string(job_id) + "." +
                           std::to_string(step_id) + "_" + std::to_string(getpid());
  std::string error;
  if (!makeDir(path, &error)) return makeError(error);
  const std::string limit = std::to_string(limit_bytes);
  bool ok = root.kind == CgroupRoot::Kind::kV2
                ? writeFile(path + "/memory.max", limit, &error)
                : writeFile(path + "/memory.limit_in_bytes", limit, &error);
  if (ok && root.kind == CgroupRoot::Kind::kV2 && root.limits_swap) {
    ok = writeFile(path + "/memory.swap.max", "0", &error);
  } else if (ok && root.kind == CgroupRoot::Kind::kV1 && root.limits_swap) {
    // Optional: without swap accounting the RAM limit alone applies.
    writeFile(path + "/memory.memsw.limit_in_bytes", limit, nullptr);
  }
  if (!ok) {
    rmdir(path.c_str());
    return makeError(error);
  }
  int fd = open((path + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    error = path + "/cgroup.procs: " + std::strerror(errno);
    rmdir(path.c_str());
    return makeError(error);
  }
  return MemoryCgroup(root.kind, path, fd);
}

MemoryCgroup::MemoryCgroup(MemoryCgroup&& other) noexcept
    : kind_(other.kind_), path_(std::move(other.path_)), procs_fd_(other.procs_fd_) {
  other.procs_fd_ = -1;
  other.path_.clear();
}

MemoryCgroup::~MemoryCgroup() {
  if (procs_fd_ >= 0) close(procs_fd_);
  if (!path_.empty()) rmdir(path_.c_str());
}

std::uint64_t MemoryCgroup::oomKills() const {
  const std::string file = kind_ == CgroupRoot::Kind::kV2 ? "/memory.events" : "/memory.oom_control";
  return parseOomKills(readKernelFile(path_ + file)).value_or(0);
}

}  // namespace drover::stepd
