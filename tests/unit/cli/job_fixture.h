#pragma once
// The jobs of Slurm's reference cluster when the squeue/scontrol goldens were captured
// (slurm-reference/golden 068-092): a 3-node blocker (28), an array 29 (0-9%2) with two tasks
// running, dependent (30, 31), held (32), pending big jobs (33-35) and a short job (4). Built
// field by field from what the goldens print, so formatters can be compared byte for byte.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "drover/v1/jobs.pb.h"

namespace drover::cli::testing {

// 2026-11-30T00:00:00Z.
inline constexpr std::int64_t kMidnight = 1795996800;
inline constexpr std::int64_t at(int h, int m, int s) { return kMidnight + h * 3600 + m * 60 + s; }

// The capture time written in a golden's header ("date=2026-11-30T12:29:04Z").
inline std::int64_t goldenNow(const std::string& file) {
  std::ifstream in(std::string(DROVER_CLI_GOLDEN_DIR) + "/" + file);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const auto p = text.find("date=2026-11-30T");
  if (p == std::string::npos) return 0;
  const std::string hms = text.substr(p + 16, 8);
  return at(std::stoi(hms.substr(0, 2)), std::stoi(hms.substr(3, 2)), std::stoi(hms.substr(6, 2)));
}

class JobBuilder {
 public:
  JobBuilder(std::uint64_t id, std::string name) {
    j_.set_job_id(id);
    j_.set_name(std::move(name));
    j_.set_array_task_id(-1);
    user("alice", 1001);
    j_.set_account("research");
    j_.set_partition("gpu");
    j_.set_qos("normal");
    j_.set_work_dir("/home/alice/golden-run");
    j_.set_batch(true);
    j_.set_requeue(true);
    j_.set_num_nodes(1);
    j_.set_num_cpus(1);
    j_.set_num_tasks(1);
    j_.set_time_limit_min(60);
    j_.mutable_spec()->set_mem_per_cpu_mb(4000);
    j_.set_std_in("/dev/null");
    j_.set_std_out("/home/alice/golden-run/slurm-" + std::to_string(id) + ".out");
    j_.set_std_err(j_.std_out());
    j_.mutable_spec()->set_submit_host("localhost");
  }
  JobBuilder& user(const std::string& name, std::uint32_t uid) {
    j_.set_user(name);
    j_.set_uid(uid);
    j_.set_group(name);
    j_.set_gid(uid);
    return *this;
  }
  JobBuilder& pending(std::string reason) {
    j_.set_state(v1::JOB_PENDING);
    j_.set_reason(std::move(reason));
    return *this;
  }
  JobBuilder& running(std::string nodes, std::string batch_host) {
    j_.set_state(v1::JOB_RUNNING);
    j_.set_nodes(std::move(nodes));
    j_.set_batch_host(std::move(batch_host));
    return *this;
  }
  JobBuilder& state(v1::JobState s, std::string reason = "") {
    j_.set_state(s);
    j_.set_reason(std::move(reason));
    return *this;
  }
  JobBuilder& times(std::int64_t submit, std::int64_t start, std::int64_t end) {
    j_.set_submit_time(submit);
    j_.set_eligible_time(start != 0 || end != 0 ? submit : 0);
    j_.set_start_time(start);
    j_.set_end_time(end);
    return *this;
  }
  JobBuilder& eligible(std::int64_t t) { j_.set_eligible_time(t); return *this; }
  JobBuilder& priority(std::int64_t p) { j_.set_priority(p); return *this; }
  JobBuilder& limit(std::int64_t minutes) { j_.set_time_limit_min(minutes); return *this; }
  JobBuilder& size(std::uint32_t nodes, std::uint32_t cpus, std::uint32_t tasks) {
    j_.set_num_nodes(nodes);
    j_.set_num_cpus(cpus);
    j_.set_num_tasks(tasks);
    return *this;
  }
  JobBuilder& array(std::uint64_t array_id, std::int64_t task, std::string pending = "",
                    std::uint32_t throttle = 2) {
    j_.set_array_job_id(array_id);
    j_.set_array_task_id(task);
    j_.set_array_task_pending(std::move(pending));
    j_.set_array_max_running(throttle);
    return *this;
  }
  JobBuilder& gpusPerNode(std::uint32_t n) {
    auto* g = j_.mutable_spec()->add_gres();
    g->set_name("gpu");
    g->set_count(n);
    return *this;
  }
  JobBuilder& schedNodes(std::string n) { j_.set_sched_nodes(std::move(n)); return *this; }
  JobBuilder& workDir(std::string d) { j_.set_work_dir(std::move(d)); return *this; }
  JobBuilder& dependency(std::string d) { j_.set_dependency(std::move(d)); return *this; }
  JobBuilder& dependencyStatus(std::string d) { j_.set_dependency_status(std::move(d)); return *this; }
  JobBuilder& reqNodes(std::string n) { j_.set_req_nodes(std::move(n)); return *this; }
  JobBuilder& exclusive() { j_.mutable_spec()->set_exclusive(true); return *this; }
  JobBuilder& nodeRange(std::uint32_t min, std::uint32_t max) {
    j_.mutable_spec()->set_min_nodes(min);
    j_.mutable_spec()->set_max_nodes(max);
    return *this;
  }
  JobBuilder& tres(std::string req, std::string alloc) {
    j_.set_req_tres(std::move(req));
    j_.set_alloc_tres(std::move(alloc));
    return *this;
  }
  JobBuilder& stdio(std::string out) {
    j_.set_std_out(out);
    j_.set_std_err(std::move(out));
    return *this;
  }
  v1::JobInfo build() const { return j_; }

 private:
  v1::JobInfo j_;
};

// In the order Slurm's controller listed them (squeue's sort is stable over it).
inline std::vector<v1::JobInfo> referenceJobs() {
  std::vector<v1::JobInfo> jobs;
  jobs.push_back(JobBuilder(35, "bobjob").user("bob", 1002).workDir("/tmp").pending("Priority")
                     .times(at(12, 28, 44), at(14, 38, 0), at(15, 38, 0)).priority(10631)
                     .size(4, 4, 4).schedNodes("node[01-04]").build());
  jobs.push_back(JobBuilder(34, "behind").pending("Priority")
                     .times(at(12, 28, 44), at(13, 38, 0), at(14, 38, 0)).priority(10631)
                     .size(4, 4, 4).gpusPerNode(8).schedNodes("node[01-04]").build());
  jobs.push_back(JobBuilder(33, "big").pending("Resources")
                     .times(at(12, 28, 44), at(12, 38, 43), at(13, 38, 43)).priority(10631)
                     .size(4, 4, 4).nodeRange(4, 4).schedNodes("node[01-04]")
                     .tres("billing=4,cpu=4,mem=16000M,node=4", "").build());
  jobs.push_back(JobBuilder(29, "arr").pending("JobArrayTaskLimit").array(29, -1, "2-9%2")
                     .times(at(12, 28, 43), 0, 0).priority(10232).limit(5).build());
  jobs.push_back(JobBuilder(31, "depfail").pending("DependencyNeverSatisfied")
                     .times(at(12, 28, 43), 0, 0).priority(10232).build());
  jobs.push_back(JobBuilder(30, "dep").pending("Dependency").dependency("afterok:28(unfulfilled)")
                     .dependencyStatus("afterok:28(unfulfilled)")
                     .times(at(12, 28, 43), 0, 0).priority(10232)
                     .tres("billing=1,cpu=1,mem=4000M,node=1", "").build());
  jobs.push_back(JobBuilder(32, "held").pending("JobHeldUser").times(at(12, 28, 43), 0, 0)
                     .priority(0).tres("billing=1,cpu=1,mem=4000M,node=1", "").build());
  jobs.push_back(JobBuilder(28, "blocker").running("node[02-04]", "node02")
                     .times(at(12, 28, 41), at(12, 28, 43), at(12, 38, 43)).priority(10498)
                     .limit(10).size(3, 48, 3).exclusive().reqNodes("node[02-04]")
                     .tres("billing=48,cpu=48,gres/gpu=24,mem=192000M,node=3",
                           "billing=48,cpu=48,gres/gpu=24,mem=192000M,node=3").build());
  jobs.push_back(JobBuilder(36, "arr").array(29, 0).running("node01", "node01")
                     .times(at(12, 28, 43), at(12, 29, 4), at(12, 34, 4)).eligible(at(12, 28, 44))
                     .priority(10232).limit(5).stdio("/home/alice/golden-run/slurm-29_0.out")
                     .tres("billing=1,cpu=1,mem=4000M,node=1", "billing=1,cpu=1,mem=4000M,node=1").build());
  jobs.push_back(JobBuilder(37, "arr").array(29, 1).running("node01", "node01")
                     .times(at(12, 28, 43), at(12, 29, 4), at(12, 34, 4)).priority(10232).limit(5)
                     .build());
  jobs.push_back(JobBuilder(4, "tlimit").running("node01", "node01")
                     .times(at(12, 28, 35), at(12, 28, 40), at(12, 29, 40)).priority(10232).limit(1)
                     .reqNodes("node01").build());
  return jobs;
}

}  // namespace drover::cli::testing
