#pragma once
// sbcast on a node: one block of a broadcast file (Agent.WriteFileBlock), written as the job's
// user. droverd runs as root, so it never opens the file itself: a forked child takes the
// user's supplementary groups, gid and uid first, then opens, writes and (last block, -p) sets
// the mode and times, so the kernel applies the user's permissions and every file it creates
// is the user's, as Slurm's slurmd does for sbcast. The child reports its errno through a pipe.
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace drover::agent {

struct FileBlock {
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;      // supplementary groups (userGroups)
  std::string path;               // absolute
  std::uint64_t offset = 0;       // 0: the first block, which creates the file
  std::string_view data;
  bool last = false;
  bool force = false;             // the first block replaces an existing file (else EEXIST)
  bool preserve = false;          // last block: mode and times below
  std::uint32_t mode = 0;
  std::int64_t atime = 0;
  std::int64_t mtime = 0;
  // The first block makes the file's directory (0700) when it is missing: --send-libs's
  // <dest>_libs, made by the user like the file.
  bool make_dir = false;
};

// The user's groups as initgroups would set them (NSS; never empty: at least `gid`).
std::vector<gid_t> userGroups(const std::string& user, gid_t gid);

// 0 when written, else the errno of what failed (EEXIST, EACCES, ...: sbcast exits with it, as
// Slurm's did); EIO when the writing child died without a word. Takes the user's credentials
// only when this process runs as root; otherwise writes as itself (an agent run by one
// unprivileged user, as its jobs are).
int writeFileBlockAsUser(const FileBlock& block);

}  // namespace drover::agent
