#pragma once
// The jobs the reference Slurm ran when golden/109-120 were captured, rebuilt as records, and a
// reader for the golden files' stdout sections.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "drover/accounting.h"

namespace drover::acct::testing {

inline constexpr std::int64_t kT0 = 1796041000;  // 2026-11-30, around the capture

inline std::string goldenStdout(const std::string& file) {
  std::ifstream in(std::string(DROVER_ACCT_GOLDEN_DIR) + "/" + file);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  auto begin = text.find("# [stdout]\n");
  auto end = text.find("# [stderr]");
  if (begin == std::string::npos || end == std::string::npos) return "<missing " + file + ">";
  begin += std::string("# [stdout]\n").size();
  return text.substr(begin, end - begin);
}

class JobBuilder {
 public:
  explicit JobBuilder(std::uint64_t id) {
    j_.job_id = id;
    j_.name = "wrap";
    j_.uid = 1001;
    j_.user = "alice";
    j_.gid = 1001;
    j_.group = "alice";
    j_.account = "research";
    j_.partition = "gpu";
    j_.qos = "normal";
    j_.cluster = "oracle";
    j_.submit = j_.eligible = kT0 + static_cast<std::int64_t>(id) * 10;
    j_.time_limit_min = 60;
    j_.state = JobState::kCompleted;
    j_.ncpus = j_.req_cpus = 1;
    j_.nnodes = j_.req_nodes = 1;
    j_.req_mem_mb = 4000;
    j_.work_dir = "/home/alice/golden-run";
  }
  JobBuilder& name(std::string n) { j_.name = std::move(n); return *this; }
  JobBuilder& user(std::string u, std::uint32_t uid) {
    j_.user = j_.group = std::move(u);
    j_.uid = j_.gid = uid;
    return *this;
  }
  JobBuilder& account(std::string a) { j_.account = std::move(a); return *this; }
  JobBuilder& partition(std::string p) { j_.partition = std::move(p); return *this; }
  JobBuilder& cpus(std::uint32_t n) { j_.ncpus = j_.req_cpus = n; return *this; }
  JobBuilder& state(JobState s) { j_.state = s; return *this; }
  JobBuilder& cancelledBy(std::uint32_t uid) {
    j_.state = JobState::kCancelled;
    j_.cancelled_by = uid;
    return *this;
  }
  JobBuilder& exit(int code, int sig) { j_.exit = {code, sig}; return *this; }
  JobBuilder& derived(int code, int sig) { j_.derived_exit = {code, sig}; return *this; }
  JobBuilder& submit(std::int64_t t) { j_.submit = j_.eligible = t; return *this; }
  JobBuilder& eligible(std::int64_t t) { j_.eligible = t; return *this; }
  // Ran on nodes for `seconds`; empty nodes = never started.
  JobBuilder& ran(std::string nodes, std::uint32_t nnodes, std::int64_t seconds) {
    j_.node_list = std::move(nodes);
    j_.nnodes = nnodes;
    j_.start = j_.submit + 1;
    j_.end = j_.start + seconds;
    return *this;
  }
  JobBuilder& running(std::string nodes, std::int64_t start) {
    j_.node_list = std::move(nodes);
    j_.state = JobState::kRunning;
    j_.start = start;
    j_.end = 0;
    return *this;
  }
  JobBuilder& pending() {
    j_.state = JobState::kPending;
    j_.start = j_.end = 0;
    j_.node_list.clear();
    return *this;
  }
  JobBuilder& endedUnstarted(std::uint32_t req_nodes) {
    j_.nnodes = 0;
    j_.req_nodes = req_nodes;
    j_.start = 0;
    j_.end = j_.submit + 1;
    return *this;
  }
  JobBuilder& endAt(std::int64_t t) { j_.end = t; return *this; }
  JobBuilder& arrayTask(std::uint64_t array_id, std::uint32_t task) {
    j_.array_job_id = array_id;
    j_.array_task_id = task;
    return *this;
  }
  JobBuilder& arrayRest(std::string tasks, std::uint32_t max_running) {
    j_.array_job_id = j_.job_id;
    j_.array_task_str = std::move(tasks);
    j_.array_max_running = max_running;
    return *this;
  }
  JobBuilder& timeLimit(std::int64_t minutes) { j_.time_limit_min = minutes; return *this; }
  JobBuilder& tres(std::string req, std::string alloc) {
    j_.req_tres = std::move(req);
    j_.alloc_tres = std::move(alloc);
    return *this;
  }
  JobRecord build() const { return j_; }
  operator JobRecord() const { return j_; }

 private:
  JobRecord j_;
};

inline StepRecord step(const JobRecord& job, std::int64_t id, std::string name, std::uint32_t cpus,
                       JobState state = JobState::kCompleted, ExitStatus exit = {}) {
  StepRecord s;
  s.job_id = job.job_id;
  s.run = job.restart_count;
  s.step_id = id;
  s.name = std::move(name);
  s.ncpus = cpus;
  s.ntasks = 1;
  s.nnodes = 1;
  s.state = state;
  s.exit = exit;
  s.start = job.start;
  s.end = job.end;
  s.node_list = job.node_list;
  return s;
}

// Every job alice ran in the capture, in the order sacct printed them (golden 109).
inline std::vector<JobWithSteps> goldenJobs() {
  using S = JobState;
  std::vector<JobWithSteps> out;
  auto add = [&](JobRecord j, std::vector<StepRecord> steps = {}) {
    out.push_back(JobWithSteps{std::move(j), std::move(steps), true});
  };
  auto withBatch = [&](JobRecord j, std::uint32_t cpus = 1, S st = S::kCompleted,
                       ExitStatus e = {}) {
    auto b = step(j, kBatchStep, "batch", cpus, st, e);
    add(j, {b});
  };
  for (int id = 1; id <= 3; ++id) {
    add(JobBuilder(id).state(S::kFailed).exit(1, 0).endedUnstarted(1));
  }
  {
    JobRecord j = JobBuilder(4).name("tlimit").state(S::kTimeout).timeLimit(1).ran("node01", 1, 84);
    withBatch(j, 1, S::kCancelled, {0, 15});
  }
  withBatch(JobBuilder(5).ran("node02", 1, 1));
  withBatch(JobBuilder(6).ran("node02", 1, 1));
  withBatch(JobBuilder(7).ran("node02", 1, 0));
  withBatch(JobBuilder(8).name("plain.sh").ran("node02", 1, 0));
  withBatch(JobBuilder(9).name("exit3").state(S::kFailed).exit(3, 0).ran("node02", 1, 1), 1,
            S::kFailed, {3, 0});
  withBatch(JobBuilder(10).name("sig9").state(S::kFailed).exit(0, 9).ran("node03", 1, 1), 1,
            S::kCancelled, {0, 9});
  {
    JobRecord j = JobBuilder(11).name("direct").cpus(8).ran("node[01-02]", 2, 1);
    add(j, {step(j, kBatchStep, "batch", 6), step(j, 0, "env", 8)});
  }
  withBatch(JobBuilder(13).name("envjob").ran("node03", 1, 1));
  withBatch(JobBuilder(14).name("envfull").ran("node03", 1, 1));
  withBatch(JobBuilder(15).name("envjob").ran("node03", 1, 1));
  {
    JobRecord j = JobBuilder(16).name("steps").cpus(4).derived(1, 0).ran("node[02-03]", 2, 2)
                      .tres("billing=4,cpu=4,gres/gpu=4,mem=16000M,node=2",
                            "billing=4,cpu=4,gres/gpu=4,mem=16000M,node=2");
    auto batch = step(j, kBatchStep, "batch", 3);
    batch.node_list = "node02";
    batch.alloc_tres = "cpu=3,gres/gpu=2,mem=12000M,node=1";
    auto s0 = step(j, 0, "hostname", 4);
    s0.ntasks = 4;
    s0.nnodes = 2;
    s0.alloc_tres = "cpu=4,gres/gpu=4,mem=16000M,node=2";
    s0.end = s0.start + 1;
    auto s1 = step(j, 1, "false", 3, S::kFailed, {1, 0});
    s1.node_list = "node02";
    s1.alloc_tres = "cpu=3,gres/gpu=2,mem=12000M,node=1";
    s1.start = s1.end = j.start + 1;
    auto s2 = step(j, 2, "sleep", 4);
    s2.ntasks = 2;
    s2.nnodes = 2;
    s2.alloc_tres = "cpu=4,gres/gpu=2,mem=16000M,node=2";
    s2.start = j.start + 1;
    s2.end = j.end;
    add(j, {batch, s0, s1, s2});
  }
  // Array 12: task 0 kept id 12, task 1 became job 17; both recorded after job 16.
  const std::int64_t t12 = kT0 + 165;
  {
    JobRecord j = JobBuilder(12).name("direct").cpus(8).submit(t12).arrayTask(12, 0)
                      .ran("node[01-02]", 2, 1);
    add(j, {step(j, kBatchStep, "batch", 6), step(j, 0, "env", 8)});
  }
  {
    JobRecord j = JobBuilder(17).name("direct").cpus(8).submit(t12).arrayTask(12, 1)
                      .ran("node[01-02]", 2, 1);
    add(j, {step(j, kBatchStep, "batch", 4), step(j, 0, "env", 8)});
  }
  struct Simple {
    int id;
    const char* name;
    std::uint32_t cpus;
    const char* nodes;
    std::uint32_t nnodes;
    std::int64_t secs;
    S state;
    ExitStatus exit;
    S step_state;
    ExitStatus step_exit;
  };
  const Simple simple[] = {
      {18, "hostname", 1, "node01", 1, 0, S::kCompleted, {}, S::kCompleted, {}},
      {19, "hostname", 4, "node[01-04]", 4, 0, S::kCompleted, {}, S::kCompleted, {}},
      {20, "env", 1, "node01", 1, 0, S::kCompleted, {}, S::kCompleted, {}},
      {21, "env", 4, "node01", 1, 1, S::kCompleted, {}, S::kCompleted, {}},
      {22, "env", 4, "node01", 1, 0, S::kCompleted, {}, S::kCompleted, {}},
      {23, "env", 4, "node[01-02]", 2, 0, S::kCompleted, {}, S::kCompleted, {}},
      {24, "false", 1, "node01", 1, 0, S::kFailed, {1, 0}, S::kFailed, {1, 0}},
      {25, "bash", 1, "node01", 1, 0, S::kFailed, {3, 0}, S::kFailed, {3, 0}},
      {26, "bash", 2, "node01", 1, 0, S::kFailed, {1, 0}, S::kFailed, {1, 0}},
      {27, "bash", 1, "node01", 1, 0, S::kFailed, {0, 9}, S::kCancelled, {0, 9}},
  };
  for (const auto& s : simple) {
    JobRecord j = JobBuilder(s.id).name(s.name).cpus(s.cpus).state(s.state)
                      .exit(s.exit.code, s.exit.signal).ran(s.nodes, s.nnodes, s.secs)
                      .derived(s.step_exit.code, s.step_exit.signal);  // its one step's
    add(j, {step(j, 0, s.name, s.cpus, s.step_state, s.step_exit)});
  }
  {
    JobRecord j = JobBuilder(28).name("blocker").cpus(48).cancelledBy(1001)
                      .ran("node[02-04]", 3, 22);
    auto b = step(j, kBatchStep, "batch", 16, S::kCancelled, {0, 15});
    b.node_list = "node02";
    add(j, {b});
  }
  // Array 29 (--array=0-9%2): tasks 0 and 1 ran as jobs 36 and 37, the rest never started.
  const std::int64_t t29 = kT0 + 290;
  {
    JobRecord j = JobBuilder(36).name("arr").submit(t29).arrayTask(29, 0).cancelledBy(0)
                      .ran("node01", 1, 3);
    add(j, {step(j, kBatchStep, "batch", 1, S::kFailed, {15, 0})});
  }
  {
    JobRecord j = JobBuilder(37).name("arr").submit(t29).arrayTask(29, 1).cancelledBy(0)
                      .ran("node01", 1, 3);
    add(j, {step(j, kBatchStep, "batch", 1, S::kCancelled, {0, 15})});
  }
  add(JobBuilder(29).name("arr").submit(t29).arrayRest("0-9%2", 2).cancelledBy(0)
          .endedUnstarted(1));
  add(JobBuilder(33).name("big").cpus(4).cancelledBy(1001).endedUnstarted(4));
  withBatch(JobBuilder(34).name("behind").cpus(4).ran("node[01-04]", 4, 0));
  return out;
}

inline JobRecord bobJob() {
  return JobBuilder(35).name("bobjob").user("bob", 1002).ran("node01", 1, 1);
}

}  // namespace drover::acct::testing
