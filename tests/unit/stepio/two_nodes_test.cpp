// Two nodes of one step: two real drover-stepd processes (as the agent starts them, the launch
// request on stdin) connect to one StepIoServer. Ranks 0-1 run on node01, 2-3 on node02.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "drover/v1/jobs.pb.h"
#include "stepio/step_io_server.h"

extern char** environ;

namespace drover::stepio {
namespace {

namespace fs = std::filesystem;

class TwoNodesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("drover-stepio-nodes-" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  drover::v1::LaunchStepRequest node(std::uint32_t node_id, const StepIoServer& server) {
    drover::v1::LaunchStepRequest req;
    req.mutable_step()->set_job_id(9);
    req.mutable_step()->set_step_id(0);
    req.set_uid(getuid());
    req.set_gid(getgid());
    req.set_user("root");
    req.add_argv("/bin/sh");
    req.add_argv("-c");
    req.add_argv("if [ $SLURM_PROCID = 0 ]; then cat; fi; echo \"rank $SLURM_PROCID node "
                 "$SLURM_NODEID\"; exit $SLURM_PROCID");
    req.set_work_dir(dir_.string());
    req.set_kill_wait_s(1);
    req.set_node_id(node_id);
    req.set_first_task(2 * node_id);
    req.set_num_tasks(2);
    (*req.mutable_environment())["PATH"] = "/usr/bin:/bin";
    req.set_io_address(server.address());
    req.set_io_key(server.key());
    return req;
  }

  pid_t startStepd(const drover::v1::LaunchStepRequest& req, const std::string& name) {
    const fs::path input = dir_ / (name + ".req");
    std::ofstream(input, std::ios::binary) << req.SerializeAsString();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, input.c_str(), O_RDONLY, 0);
    const std::string spool = (dir_ / "spool").string();
    std::vector<std::string> args = {DROVER_STEPD_PATH, "--spool", spool, "--node", name};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    EXPECT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    return pid;
  }

  fs::path dir_;
};

TEST_F(TwoNodesTest, OutputStdinAndExitCodesAcrossNodes) {
  std::ofstream(dir_ / "input") << "typed\n";
  int in = open((dir_ / "input").c_str(), O_RDONLY | O_CLOEXEC);
  const fs::path out_path = dir_ / "srun.out";
  int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  StepIoOptions options;
  options.listen_host = "127.0.0.1";
  options.num_tasks = 4;
  options.label = true;
  options.stdin_fd = in;
  options.stdout_fd = out;
  auto server = StepIoServer::listen(options);
  ASSERT_TRUE(server.ok());
  pid_t a = startStepd(node(0, **server), "node01");
  pid_t b = startStepd(node(1, **server), "node02");
  for (int rounds = 0; !(*server)->done() && rounds < 300; ++rounds) (*server)->runOnce(100);
  const auto connected = (*server)->connectedNodes();
  auto ends = (*server)->taskEnds();
  // Closed as srun closes it when it exits: each supervisor waits for that after its last frame.
  server->reset();
  int status_a = 0, status_b = 0;
  waitpid(a, &status_a, 0);
  waitpid(b, &status_b, 0);
  close(in);
  close(out);

  EXPECT_EQ(connected, 2u);
  ASSERT_EQ(ends.size(), 4u);
  for (std::uint32_t rank = 0; rank < 4; ++rank) {
    EXPECT_EQ(ends[rank].exit_code, static_cast<int>(rank));
    EXPECT_EQ(ends[rank].node_name, rank < 2 ? "node01" : "node02");
  }
  EXPECT_EQ(srunExitCode(ends), 3);
  std::ifstream in_file(out_path);
  std::map<std::string, int> lines;
  for (std::string line; std::getline(in_file, line);) ++lines[line];
  EXPECT_EQ(lines["0: typed"], 1);
  EXPECT_EQ(lines["0: rank 0 node 0"], 1);
  EXPECT_EQ(lines["1: rank 1 node 0"], 1);
  EXPECT_EQ(lines["2: rank 2 node 1"], 1);
  EXPECT_EQ(lines["3: rank 3 node 1"], 1);
  EXPECT_EQ(lines.size(), 5u);
}

}  // namespace
}  // namespace drover::stepio
