// /proc/PID/stat as proc(5) lays it out: a command name with blanks and parentheses, the
// fields Drover reads, short or broken lines refused, and this very process read back.
#include "common/proc_stat.h"

#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

namespace drover {
namespace {

// Fields 3.. of a stat line with field N holding N (state "S" for 3), so each parsed value
// shows which field it came from.
std::string statLine(const std::string& comm, int last_field) {
  std::string line = "4242 (" + comm + ") S";
  for (int i = 4; i <= last_field; ++i) line += " " + std::to_string(i);
  return line + "\n";
}

TEST(ProcStat, ReadsTheFieldsDroverUses) {
  auto st = parseProcStat(statLine("my (odd) prog", 52));
  ASSERT_TRUE(st);
  EXPECT_EQ(st->pid, 4242);
  EXPECT_EQ(st->comm, "my (odd) prog");
  EXPECT_EQ(st->state, 'S');
  EXPECT_EQ(st->ppid, 4);
  EXPECT_EQ(st->process_group, 5);
  EXPECT_EQ(st->session, 6);
  EXPECT_EQ(st->cpu_ticks, 14u + 15u + 16u + 17u);
  EXPECT_EQ(st->start_ticks, 22u);
  EXPECT_EQ(st->rss_pages, 24);
  EXPECT_EQ(st->processor, 39);
}

TEST(ProcStat, OlderKernelsWithoutAProcessorAndBrokenLines) {
  auto st = parseProcStat(statLine("sh", 30));
  ASSERT_TRUE(st);
  EXPECT_EQ(st->rss_pages, 24);
  EXPECT_EQ(st->processor, -1);
  EXPECT_FALSE(parseProcStat(statLine("sh", 23)));  // no rss
  EXPECT_FALSE(parseProcStat(""));
  EXPECT_FALSE(parseProcStat("4242 sh S 1 2 3"));
  EXPECT_FALSE(parseProcStat("4242 ) S ( 1"));
}

TEST(ProcStat, ThisProcessIsFoundByItsPidAndInTheWalk) {
  auto self = readProcStat(getpid());
  ASSERT_TRUE(self);
  EXPECT_EQ(self->pid, getpid());
  EXPECT_EQ(self->ppid, getppid());
  EXPECT_EQ(self->process_group, getpgrp());
  EXPECT_EQ(self->session, getsid(0));
  EXPECT_GT(self->rss_pages, 0);
  bool found = false;
  for (const ProcStat& p : readAllProcStats()) found = found || p.pid == getpid();
  EXPECT_TRUE(found);
  EXPECT_FALSE(readProcStat(getpid(), "/nonexistent"));
}

}  // namespace
}  // namespace drover
