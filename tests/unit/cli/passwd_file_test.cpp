// salloc's login shell from /etc/passwd read by hand (cli/passwd_file.h): the uid field decides,
// comments, short and malformed lines are skipped, an empty shell is none.
#include "cli/passwd_file.h"

#include <gtest/gtest.h>

namespace drover::cli {
namespace {

TEST(PasswdFile, LoginShellByUid) {
  const std::string passwd =
      "root:x:0:0:root:/root:/bin/bash\n"
      "# a comment:x:1001:1001:::/bin/false\n"
      "short:x:1001:1001\n"
      "bad:x:10a1:1001::/home/bad:/bin/false\n"
      "alice:x:1001:1001:Alice,,,:/home/alice:/usr/bin/zsh\n"
      "noshell:x:1003:1003::/home/noshell:\n"
      "last:x:1004:1004::/home/last:/bin/dash";  // no final newline
  EXPECT_EQ(loginShellOf(0, passwd), "/bin/bash");
  EXPECT_EQ(loginShellOf(1001, passwd), "/usr/bin/zsh");
  EXPECT_EQ(loginShellOf(1003, passwd), std::nullopt);
  EXPECT_EQ(loginShellOf(1004, passwd), "/bin/dash");
  EXPECT_EQ(loginShellOf(4242, passwd), std::nullopt);
  EXPECT_EQ(loginShellOf(0, ""), std::nullopt);
}

}  // namespace
}  // namespace drover::cli
