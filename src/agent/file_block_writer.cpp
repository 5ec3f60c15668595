#include "agent/file_block_writer.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace drover::agent {
namespace {

// Everything the child does: only system calls between fork and _exit (droverd has threads,
// so the child may hold no lock another thread had). Returns 0 or an errno.
int writeInChild(const FileBlock& b, bool change_user) {
  if (change_user) {
    if (::setgroups(b.groups.size(), b.groups.data()) != 0) return errno;
    if (::setgid(b.gid) != 0) return errno;
    if (::setuid(b.uid) != 0) return errno;
  }
  if (b.make_dir && b.offset == 0) {
    // The path is absolute (the agent checked), so it has a '/'; mkdir needs a NUL-ended copy,
    // made in a fixed buffer: no allocation after fork.
    const std::size_t slash = b.path.rfind('/');
    char dir[4096];
    if (slash > 0 && slash < sizeof dir) {
      std::memcpy(dir, b.path.data(), slash);
      dir[slash] = '\0';
      if (::mkdir(dir, 0700) != 0 && errno != EEXIST) return errno;
    }
  }
  int flags = O_WRONLY | O_CLOEXEC;
  if (b.offset == 0) flags |= O_CREAT | (b.force ? O_TRUNC : O_EXCL);
  // 0700 as Slurm's copies: the user's, and runnable (srun --bcast runs it); -p sets the
  // source's mode at the end.
  const int fd = ::open(b.path.c_str(), flags, 0700);
  if (fd < 0) return errno;
  std::size_t done = 0;
  while (done < b.data.size()) {
    const ssize_t n = ::pwrite(fd, b.data.data() + done, b.data.size() - done,
                               static_cast<off_t>(b.offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return err;
    }
    done += static_cast<std::size_t>(n);
  }
  if (b.last && b.preserve) {
    if (::fchmod(fd, static_cast<mode_t>(b.mode & 07777)) != 0) {
      const int err = errno;
      ::close(fd);
      return err;
    }
    const timespec times[2] = {{static_cast<time_t>(b.atime), 0},
                               {static_cast<time_t>(b.mtime), 0}};
    if (::futimens(fd, times) != 0) {
      const int err = errno;
      ::close(fd);
      return err;
    }
  }
  if (::close(fd) != 0) return errno;
  return 0;
}

}  // namespace

std::vector<gid_t> userGroups(const std::string& user, gid_t gid) {
  int count = 64;
  std::vector<gid_t> groups(static_cast<std::size_t>(count));
  if (::getgrouplist(user.c_str(), gid, groups.data(), &count) < 0) {
    groups.resize(static_cast<std::size_t>(count));
    if (::getgrouplist(user.c_str(), gid, groups.data(), &count) < 0) count = 0;
  }
  groups.resize(count > 0 ? static_cast<std::size_t>(count) : 0);
  if (groups.empty()) groups.push_back(gid);
  return groups;
}

int writeFileBlockAsUser(const FileBlock& block) {
  const bool change_user = ::geteuid() == 0;
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return errno;
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return err;
  }
  if (pid == 0) {
    ::close(pipe_fds[0]);
    const int err = writeInChild(block, change_user);
    ssize_t ignored = ::write(pipe_fds[1], &err, sizeof err);
    (void)ignored;
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  int err = -1;
  ssize_t got = 0;
  do {
    got = ::read(pipe_fds[0], &err, sizeof err);
  } while (got < 0 && errno == EINTR);
  ::close(pipe_fds[0]);
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  return got == static_cast<ssize_t>(sizeof err) ? err : EIO;
}

}  // namespace drover::agent
