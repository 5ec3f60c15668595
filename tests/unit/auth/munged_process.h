#pragma once
// A real munged for tests: its own key, socket and files in a fresh temp dir, started in the
// foreground as this process's child and killed by pid when the object goes away.
#include <sys/types.h>

#include <memory>
#include <string>

#include "drover/result.h"

namespace drover::testing {

class MungedProcess {
 public:
  // Starts munged with a freshly generated key and waits until its socket accepts connections.
  static Result<std::unique_ptr<MungedProcess>> start();

  MungedProcess(const MungedProcess&) = delete;
  MungedProcess& operator=(const MungedProcess&) = delete;
  ~MungedProcess();

  const std::string& socket() const { return socket_; }
  pid_t pid() const { return pid_; }

 private:
  MungedProcess(std::string dir, pid_t pid);

  std::string dir_;
  std::string socket_;
  pid_t pid_;
};

}  // namespace drover::testing
