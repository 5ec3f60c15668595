#pragma once
// Pure translations used by the job manager: cluster.conf into the scheduler's terms, a job's
// resolved request into a sched::JobRequest, TRES strings and output path expansion.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "drover/config.h"
#include "drover/v1/jobs.pb.h"
#include "sched/types.h"

namespace drover::jobs {

std::vector<sched::Partition> schedPartitions(const config::ClusterConfig& config);
// Every configured node, usable, with its partitions (validation ignores node state).
std::vector<sched::Node> schedNodes(const config::ClusterConfig& config);

// The request of a job whose info (partition, account, time limit, ...) is resolved.
sched::JobRequest buildRequest(const v1::JobInfo& info);
// A `-p` value as a waiting job shows it: its non-empty items, each once, joined by commas.
std::string partitionList(std::string_view text);
// Whether a partition takes new jobs (submissions, scontrol update Partition=): not when DRAIN
// or INACTIVE (scontrol(1)).
bool takesNewJobs(const config::PartitionConfig& p);

// Memory the job asks for on each node, in MB (0 = none given).
std::int64_t requestedMemPerNodeMb(const sched::JobRequest& r, int cpusPerNode, int gpusPerNode);
// GPUs of the whole job as requested.
std::int64_t requestedGpus(const sched::JobRequest& r, int nodes);
// CPUs of the whole job as requested: its tasks' CPUs, or its GPUs times --cpus-per-gpu when
// that is more.
std::int64_t requestedCpus(const sched::JobRequest& r, int nodes);

// "billing=4,cpu=4,gres/gpu=4,mem=16000M,node=2" (sacct's order).
std::string tresString(std::int64_t cpus, std::int64_t mem_mb, std::int64_t nodes,
                       std::int64_t gpus);
// `nodeMemoryMb` is what each node gives a job that asked for all of its memory (--mem=0): the
// largest node of its partitions, as the reference's pending `--mem=0 -N2` asked mem=128G of
// 64G nodes.
std::string reqTres(const sched::JobRequest& r, std::int64_t nodeMemoryMb);
std::string allocTres(const v1::JobInfo& info);

// An output/error/input path with the job's values substituted, made absolute against the
// work dir. `node` is the batch host ("" before the job starts).
std::string expandJobPath(const std::string& pattern, const v1::JobInfo& info,
                          const std::string& node);
void expandJobPaths(v1::JobInfo& info, const std::string& node);

}  // namespace drover::jobs
