// srun's messages while its terminal is raw: each "\n" goes out as "\r\n", however it is
// written (one character, a string, several lines at once), and only while the guard lives.
#include "cli/raw_terminal_lines.h"

#include <sstream>

#include <gtest/gtest.h>

namespace drover::cli {
namespace {

TEST(RawTerminalLinesTest, NewlinesGetACarriageReturnOnlyWhileRaw) {
  std::ostringstream out;
  out << "before\n";
  {
    RawTerminalLines raw(out);
    out << "srun: interrupt (one more within 1 sec to abort)\n"
        << "srun: StepId=7.0 task 0: running" << '\n';
    out << "two\nlines\n\nand no end";
    out.put('\n');
  }
  out << "after\n";
  EXPECT_EQ(out.str(),
            "before\n"
            "srun: interrupt (one more within 1 sec to abort)\r\n"
            "srun: StepId=7.0 task 0: running\r\n"
            "two\r\nlines\r\n\r\nand no end\r\n"
            "after\n");
}

}  // namespace
}  // namespace drover::cli
