// srun --multi-prog on the submit side: the file read and checked before srun asks for
// anything (errors with file and line, the task count when -n gives it), and its text in the
// StepSpec.
#include "cli/srun_multi_prog.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli/srun_step.h"

namespace drover::cli {
namespace {

namespace fs = std::filesystem;

class SrunMultiProgTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("drover-multi-prog-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }

  static jobspec::StepRequest request(const std::vector<std::string>& args) {
    auto r = jobspec::buildStepRequest(args, {}, 1'700'000'000);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().text);
    return r.ok() ? *r : jobspec::StepRequest{};
  }

  fs::path dir_;
};

TEST_F(SrunMultiProgTest, TheFilesTextGoesIntoTheStepSpecWithTheExtraArguments) {
  const std::string text = "0 echo %t\n* hostname\n";
  const std::string path = write("ok.conf", text);
  auto req = request({"-n", "3", "--multi-prog", path, "extra"});
  EXPECT_TRUE(req.spec.multi_prog);
  auto loaded = loadMultiProg(req);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_EQ(loaded->file(), path);
  EXPECT_EQ(loaded->text(), text);

  StepContext context;
  context.multi_prog = *loaded;
  const v1::StepSpec spec = toStepSpec(req, context, 7, true);
  EXPECT_EQ(spec.multi_prog().text(), text);
  EXPECT_EQ(std::vector<std::string>(spec.argv().begin(), spec.argv().end()),
            (std::vector<std::string>{path, "extra"}));
  // Without --multi-prog there is none.
  EXPECT_FALSE(toStepSpec(request({"hostname"}), StepContext{}, 7, true).has_multi_prog());
}

TEST_F(SrunMultiProgTest, ErrorsNameTheFileAndLine) {
  const std::string dup = write("dup.conf", "0-1 a\n1 b\n");
  auto loaded = loadMultiProg(request({"--multi-prog", dup}));
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error(), dup + ":2: task rank 1 is already on line 1: each task rank may be on one line only");

  loaded = loadMultiProg(request({"--multi-prog", (dir_ / "nosuch.conf").string()}));
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error(), "Unable to open multi-prog configuration file " +
                                (dir_ / "nosuch.conf").string() + ": No such file or directory");
}

TEST_F(SrunMultiProgTest, TheTaskCountIsCheckedWhenSrunKnowsIt) {
  const std::string path = write("two.conf", "0-1 a\n");
  // No -n: the controller checks the count it lays out.
  EXPECT_TRUE(loadMultiProg(request({"-N2", "--multi-prog", path})).ok());
  EXPECT_TRUE(loadMultiProg(request({"-n2", "--multi-prog", path})).ok());
  auto loaded = loadMultiProg(request({"-n3", "--multi-prog", path}));
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().rfind(path + ": No executable program specified for task 2:", 0), 0u)
      << loaded.error();
  loaded = loadMultiProg(request({"-n1", "--multi-prog", path}));
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error(), path + ":1: task rank 1 is out of range: the step has 1 task (ranks 0-0)");
}

TEST_F(SrunMultiProgTest, AFileLargerThanSrunSendsIsRefused) {
  const std::string path = write("big.conf", "* true " + std::string(kMaxMultiProgBytes, 'x') + "\n");
  auto loaded = loadMultiProg(request({"--multi-prog", path}));
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().find("larger than 4 MiB"), std::string::npos) << loaded.error();
}

}  // namespace
}  // namespace drover::cli
