#pragma once
// A fresh directory under the system's temporary directory (TMPDIR), removed with everything in
// it when the test is done: for tests that need real files, such as SQLite databases.
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace drover {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "drover-test-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + tmpl);
    path_ = tmpl;
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace drover
