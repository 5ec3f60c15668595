#include "pmi/wire.h"

#include <gtest/gtest.h>

#include "frames.h"

namespace drover::pmi {
namespace {

using testing::frame;

std::vector<Command> readAll(CommandReader& reader) {
  std::vector<Command> out;
  Command c;
  std::string error;
  while (reader.next(c, error) == CommandReader::Next::kCommand) out.push_back(c);
  return out;
}

TEST(PmiWire, ReadsPmi1LinesAsTheyArrive) {
  CommandReader reader;
  reader.append("cmd=init pmi_version=1 pmi_subversion=1\ncmd=put kvsname=5.0 key=P0 val");
  auto commands = readAll(reader);
  ASSERT_EQ(commands.size(), 1u);
  EXPECT_EQ(commands[0].name, "init");
  ASSERT_NE(commands[0].find("pmi_version"), nullptr);
  EXPECT_EQ(*commands[0].find("pmi_version"), "1");
  EXPECT_EQ(reader.wire(), Wire::kLines);
  reader.append("ue=a=b\n\ncmd=barrier_in\n");
  commands = readAll(reader);
  ASSERT_EQ(commands.size(), 2u);
  EXPECT_EQ(commands[0].name, "put");
  EXPECT_EQ(*commands[0].find("value"), "a=b");  // the first '=' splits
  EXPECT_EQ(commands[1].name, "barrier_in");
  EXPECT_TRUE(commands[1].args.empty());
}

TEST(PmiWire, ReadsASpawnBlockAsOneCommand) {
  CommandReader reader;
  reader.append("mcmd=spawn\nnprocs=2\nexecname=/bin/true\nendcmd\ncmd=finalize\n");
  auto commands = readAll(reader);
  ASSERT_EQ(commands.size(), 2u);
  EXPECT_EQ(commands[0].name, "spawn");
  EXPECT_EQ(*commands[0].find("nprocs"), "2");
  EXPECT_EQ(commands[1].name, "finalize");
}

TEST(PmiWire, SwitchesToFramesAfterAVersionTwoInit) {
  CommandReader reader;
  reader.append("cmd=init pmi_version=2 pmi_subversion=0\n");
  ASSERT_EQ(readAll(reader).size(), 1u);
  reader.useFramedWire();
  reader.append(frame("cmd=fullinit;pmijobid=5.0;pmirank=1;threaded=FALSE;"));
  auto commands = readAll(reader);
  ASSERT_EQ(commands.size(), 1u);
  EXPECT_EQ(commands[0].name, "fullinit");
  EXPECT_EQ(*commands[0].find("pmirank"), "1");
  EXPECT_EQ(*commands[0].find("threaded"), "FALSE");
}

TEST(PmiWire, FramedFromTheFirstByteAndDoubledSemicolons) {
  CommandReader reader;
  const std::string whole = frame("cmd=kvs-put;key=a;;b;value=x;;;;y;");
  reader.append(whole.substr(0, 16));
  EXPECT_TRUE(readAll(reader).empty());
  reader.append(whole.substr(16));
  auto commands = readAll(reader);
  ASSERT_EQ(commands.size(), 1u);
  EXPECT_EQ(reader.wire(), Wire::kFramed);
  EXPECT_EQ(*commands[0].find("key"), "a;b");
  EXPECT_EQ(*commands[0].find("value"), "x;;y");
}

TEST(PmiWire, EncodesBothWiresSoTheReaderReadsThemBack) {
  EXPECT_EQ(encode(Wire::kLines, "barrier_out", {{"rc", "0"}}), "cmd=barrier_out rc=0\n");
  const std::string framed = encode(Wire::kFramed, "kvs-get-response", {{"rc", "0"}, {"value", "a;b"}});
  EXPECT_EQ(framed, frame("cmd=kvs-get-response;rc=0;value=a;;b;"));
  EXPECT_EQ(framed.substr(0, 6), "37    ");
  CommandReader reader;
  reader.append(framed);
  auto commands = readAll(reader);
  ASSERT_EQ(commands.size(), 1u);
  EXPECT_EQ(*commands[0].find("value"), "a;b");
}

TEST(PmiWire, RefusesWhatNoClientWrites) {
  for (const std::string input :
       {std::string("put key=a\n"), std::string("cmd=put novalue\n"), std::string("12x   cmd=a;"),
        std::string("9     =x;cmd=a;"), std::string("7     cmd;=a;"),
        std::string(CommandReader::kMaxCommandBytes + 2, 'c')}) {
    CommandReader reader;
    reader.append(input);
    Command c;
    std::string error;
    EXPECT_EQ(reader.next(c, error), CommandReader::Next::kError) << input.substr(0, 40);
    EXPECT_FALSE(error.empty());
  }
  CommandReader reader;
  reader.append("999999");
  Command c;
  std::string error;
  EXPECT_EQ(reader.next(c, error), CommandReader::Next::kError);
  EXPECT_NE(error.find("more than"), std::string::npos) << error;
}

}  // namespace
}  // namespace drover::pmi
