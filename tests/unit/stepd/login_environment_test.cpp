// The user's login environment (--export other than the default): env -0's output read back,
// and, where this runs as root with a user to become, `su - USER` itself.
#include "stepd/login_environment.h"

#include <unistd.h>

#include <gtest/gtest.h>

namespace drover::stepd {
namespace {

TEST(LoginEnvironmentTest, EnvZeroIsReadWithoutTheShellsBookkeeping) {
  const std::string text = std::string("HOME=/home/a\0PATH=/usr/bin:/bin\0MULTI=line1\nline2\0", 50) +
                           std::string("PWD=/x\0SHLVL=1\0_=/usr/bin/env\0EMPTY=\0=bad\0noequals\0", 51);
  const auto env = parseEnvZero(text);
  EXPECT_EQ(env, (std::map<std::string, std::string>{
                     {"HOME", "/home/a"}, {"PATH", "/usr/bin:/bin"}, {"MULTI", "line1\nline2"}, {"EMPTY", ""}}));
}

TEST(LoginEnvironmentTest, SuGivesTheUsersLoginVariables) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (su)";
  if (access("/bin/su", X_OK) != 0) GTEST_SKIP() << "no /bin/su";
  auto env = loginEnvironment("root", std::chrono::seconds(8));
  ASSERT_TRUE(env.ok()) << env.error();
  EXPECT_EQ(env->at("USER"), "root");
  EXPECT_EQ(env->at("HOME"), "/root");
  EXPECT_NE(env->at("PATH").find("/bin"), std::string::npos);
  EXPECT_EQ(env->count("SHLVL"), 0u);
  EXPECT_FALSE(loginEnvironment("no-such-user-drover", std::chrono::seconds(8)).ok());
  EXPECT_FALSE(loginEnvironment("-c", std::chrono::seconds(8)).ok());
}

}  // namespace
}  // namespace drover::stepd
