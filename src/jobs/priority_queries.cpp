// Priorities and fair share on the job manager's side: computing every pending job's priority
// (full rebuilds), the durable usage ledger, and the answers sprio and sshare get.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "common/comma_list.h"
#include "common/log.h"
#include "jobs/job_manager.h"
#include "jobs/scheduling_state.h"

namespace drover::jobs {

namespace {

std::int64_t clusterCpus(const std::vector<sched::Node>& nodes) {
  std::int64_t cpus = 0;
  for (const auto& n : nodes) cpus += n.cpus;
  return cpus;
}

// sprio lists the pending jobs the scheduler may start now, as Slurm's does (golden 084: of
// the pending jobs only those waiting for Priority or Resources, none held, waiting on a
// dependency or over their array's %N throttle); the others have a priority but no place in the
// queue yet. Jobs whose --begin lies ahead are not eligible either.
bool listedBySprio(const Job& job, std::int64_t now) {
  const sched::JobRequest& r = job.request;
  if (r.hold != sched::Hold::None) return false;
  if (r.dependency != sched::DependencyState::Satisfied) return false;
  if (r.beginTime > now) return false;
  return job.info.reason() != "JobArrayTaskLimit";
}

}  // namespace

void JobManager::assignPriorities(sched::Snapshot& snap, std::int64_t now,
                                  const std::vector<JobId>& kept_out) {
  SchedulingState& st = schedState();
  if (st.keep_priorities || st.scheduler) {
    for (sched::Job& j : snap.pending) j.priority = static_cast<double>(jobs_.at(j.id).info.priority());
    return;
  }
  ShareTable shares(config_, usageForFactors(now, /*recalculate=*/true));
  PriorityCalculator calc(config_, snap.partitions, clusterCpus(snap.nodes), shares);
  for (sched::Job& j : snap.pending) {
    PriorityFactors f = calc.compute(j.request, now);
    st.factors[j.id] = f;
    jobs_.at(j.id).info.set_priority(f.priority);
    j.priority = static_cast<double>(f.priority);
  }
  for (JobId id : kept_out) {
    Job& job = jobs_.at(id);
    job.info.set_priority(calc.compute(job.request, now).priority);
  }
}

const std::map<Association, double>& JobManager::usageForFactors(std::int64_t now,
                                                                bool recalculate) {
  SchedulingState& st = schedState();
  if (recalculate || !st.usage_calc_time ||
      now - *st.usage_calc_time >= config_.scheduler.priority.calc_period_s) {
    st.usage_at_calc = st.ledger.decayedAt(now);
    for (const auto& [id, h] : st.held) {
      if (h.running) st.usage_at_calc[h.who] += heldRunUsage(h, find(id), now);
    }
    st.usage_calc_time = now;
  }
  return st.usage_at_calc;
}

Status JobManager::commit() {
  Status s = store_.commit();
  if (!s || !scheduling_ || !scheduling_->usage_store) return s;
  auto rows = scheduling_->ledger.takeChanged();
  if (auto saved = scheduling_->usage_store->save(rows); !saved) {
    drover::log::get("ctld")->error("fair-share usage not saved: {}", saved.error());
  }
  return s;
}

Status JobManager::attachUsageStore(std::unique_ptr<UsageStore> store) {
  SchedulingState& st = schedState();
  auto rows = store->load();
  if (!rows) return makeError(rows.error());
  for (const auto& [who, entry] : *rows) st.ledger.restore(who, entry);
  st.usage_calc_time.reset();  // what was restored counts from now on
  st.usage_store = std::move(store);
  return okStatus();
}

v1::GetPrioritiesReply JobManager::priorities(const v1::GetPrioritiesRequest& request) {
  const std::int64_t now = clock_.now();
  SchedulingState& st = schedState();
  const auto& w = config_.scheduler.priority;
  v1::GetPrioritiesReply reply;
  auto* weights = reply.mutable_weights();
  weights->set_age(w.age);
  weights->set_fairshare(w.fairshare);
  weights->set_job_size(w.job_size);
  weights->set_partition(w.partition);
  weights->set_qos(w.qos);
  weights->set_site(1);
  weights->set_assoc(w.assoc);
  for (const auto& [name, weight] : w.tres) {
    auto* t = weights->add_tres();
    t->set_name(name);
    t->set_weight(weight);
  }
  std::set<JobId> ids(request.job_ids().begin(), request.job_ids().end());
  std::set<std::string> users(request.users().begin(), request.users().end());
  std::set<std::string> parts(request.partitions().begin(), request.partitions().end());
  std::optional<ShareTable> shares;
  std::optional<PriorityCalculator> calc;
  const std::vector<sched::Node>& nodes = last_nodes_.empty() ? config_nodes_ : last_nodes_;
  // An array's waiting tasks are one record with the array's id, one row as the reference's.
  std::set<std::pair<JobId, std::string>> shown;
  for (const auto& [id, job] : jobs_) {
    if (job.state() != v1::JOB_PENDING || !listedBySprio(job, now)) continue;
    if (!ids.empty() && !ids.count(job.info.job_id()) && !ids.count(job.info.array_job_id())) {
      continue;
    }
    if (!users.empty() && !users.count(job.info.user()) &&
        !users.count(std::to_string(job.info.uid()))) {
      continue;
    }
    // A job of several partitions has a row for each, in the order listed, its priority
    // there (the reference's sprio: `-p debug,gpu` rows debug 11132 and gpu 10232).
    const std::vector<std::string> listed = job.request.partitions.empty()
                                                ? std::vector<std::string>{job.info.partition()}
                                                : splitCommas(job.info.partition());
    for (const std::string& partition : listed) {
      if (!parts.empty() && !parts.count(partition)) continue;
      if (!shown.emplace(job.info.job_id(), partition).second) continue;
      PriorityFactors f;
      std::int64_t priority = job.info.priority();
      auto it = st.factors.find(id);
      if (it != st.factors.end() && partition == job.request.partition) {
        f = it->second;
      } else {
        // Not through a pass yet (submitted a moment ago), kept out of the scheduler (array
        // tasks over their %N), or another of its partitions: the priority a pass gives it
        // there, as Slurm shows one from submission.
        if (!shares) {
          shares.emplace(config_, usageForFactors(now));
          calc.emplace(config_, partitions_, clusterCpus(nodes), *shares);
        }
        sched::JobRequest there = job.request;
        there.partition = partition;
        f = calc->compute(there, now);
        priority = f.priority;
      }
      v1::JobPriority* p = reply.add_jobs();
      p->set_job_id(job.info.job_id());  // an array's pending tasks show as the array's id
      p->set_partition(partition);
      p->set_user(job.info.user());
      p->set_account(job.info.account());
      p->set_priority(priority);
      p->set_age(f.age);
      p->set_fairshare(f.fairshare);
      p->set_job_size(f.job_size);
      p->set_partition_factor(f.partition);
      p->set_qos(f.qos);
      p->set_nice(f.nice);
      p->set_assoc(f.assoc);
      for (const auto& [name, factor] : f.tres) {
        auto* t = p->add_tres();
        t->set_name(name);
        t->set_factor(factor);
      }
    }
  }
  return reply;
}

v1::GetSharesReply JobManager::shares(const Caller& caller, const v1::GetSharesRequest& request) {
  const std::int64_t now = clock_.now();
  SchedulingState& st = schedState();
  st.ledger.setHalfLife(config_.scheduler.priority.decay_half_life_s);
  ShareTable table(config_, usageForFactors(now));
  // CPU-minutes still to run of each association's running jobs (sshare -l TRESRunMins).
  std::map<Association, std::uint64_t> run_mins;
  for (const auto& [id, h] : st.held) {
    const Job* job = find(id);
    if (!h.running || !job) continue;
    std::int64_t left = std::max<std::int64_t>(0, job->info.end_time() - now);
    run_mins[h.who] += static_cast<std::uint64_t>(h.cpus) * static_cast<std::uint64_t>(left / 60);
  }
  std::set<std::string> accounts(request.accounts().begin(), request.accounts().end());
  std::set<std::string> users(request.users().begin(), request.users().end());
  v1::GetSharesReply reply;
  std::map<std::string, std::uint64_t> account_run;
  for (const auto& [who, mins] : run_mins) {
    account_run[who.first] += mins;
  }
  for (const ShareRow& r : table.rows()) {
    const bool is_user = !r.user.empty();
    if (is_user) {
      if (!accounts.empty() && !accounts.count(r.account)) continue;
      bool wanted = request.all_users() || users.count(r.user) ||
                    (users.empty() && r.user == caller.user);
      if (!wanted) continue;
    } else if (!accounts.empty() && !accounts.count(r.account)) {
      continue;
    }
    v1::ShareInfo* s = reply.add_shares();
    s->set_account(r.account);
    s->set_user(r.user);
    s->set_depth(static_cast<std::uint32_t>(r.depth));
    s->set_association_id(r.id);
    s->set_raw_shares(r.raw_shares);
    s->set_norm_shares(r.norm_shares);
    s->set_raw_usage(r.raw_usage);
    s->set_norm_usage(r.norm_usage);
    s->set_effective_usage(r.effective_usage);
    s->set_fair_share(r.fair_share);
    s->set_level_fs(r.level_fs);
    s->set_is_root(r.depth == 0);
    if (is_user) {
      auto it = run_mins.find({r.account, r.user});
      s->set_tres_run_cpu_mins(it == run_mins.end() ? 0 : it->second);
    } else if (r.depth == 0) {
      std::uint64_t all = 0;
      for (const auto& [a, m] : account_run) all += m;
      s->set_tres_run_cpu_mins(all);
    } else {
      s->set_tres_run_cpu_mins(account_run[r.account]);
    }
  }
  return reply;
}

}  // namespace drover::jobs
