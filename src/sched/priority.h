#pragma once
// Multifactor priority as Slurm defines it: a weighted sum of factors in [0, 1] (age, fair-share,
// job size, partition, QOS) minus nice. Each factor is a small class, so sites and tests can
// see, replace or drop one; sprio shows the same numbers.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sched/fairshare.h"
#include "sched/types.h"

namespace drover::sched {

struct PriorityContext {
  int64_t now = 0;
  int64_t maxAgeS = 7 * 24 * 3600;  // PriorityMaxAge
  int64_t clusterCpus = 1;
  bool favorSmall = false;                // PriorityFavorSmall
  int maxPartitionJobFactor = 1;
  std::map<std::string, int> qosPriority;  // QOS name -> priority
  const FairShareTree* fairShare = nullptr;
};

class PriorityFactor {
 public:
  virtual ~PriorityFactor() = default;
  virtual const char* name() const = 0;
  // In [0, 1].
  virtual double value(const Job& job, const Partition& partition,
                       const PriorityContext& ctx) const = 0;
};

// Time eligible (since submit or begin time), saturating at maxAgeS.
class AgeFactor : public PriorityFactor {
 public:
  const char* name() const override { return "AGE"; }
  double value(const Job&, const Partition&, const PriorityContext&) const override;
};

class FairShareFactor : public PriorityFactor {
 public:
  const char* name() const override { return "FAIRSHARE"; }
  double value(const Job&, const Partition&, const PriorityContext&) const override;
};

// CPUs asked for over the cluster's CPUs (or its complement with favorSmall).
class JobSizeFactor : public PriorityFactor {
 public:
  const char* name() const override { return "JOBSIZE"; }
  double value(const Job&, const Partition&, const PriorityContext&) const override;
};

// The partition's PriorityJobFactor over the largest one.
class PartitionFactor : public PriorityFactor {
 public:
  const char* name() const override { return "PARTITION"; }
  double value(const Job&, const Partition&, const PriorityContext&) const override;
};

// The QOS priority over the largest QOS priority.
class QosFactor : public PriorityFactor {
 public:
  const char* name() const override { return "QOS"; }
  double value(const Job&, const Partition&, const PriorityContext&) const override;
};

struct WeightedFactor {
  std::unique_ptr<PriorityFactor> factor;
  double weight = 0;
};

struct PriorityBreakdown {
  std::vector<std::pair<std::string, double>> weighted;  // factor name -> weight x value
  int nice = 0;
  double total = 0;
};

class MultifactorPriority {
 public:
  struct Weights {
    double age = 0, fairShare = 0, jobSize = 0, partition = 0, qos = 0;
  };
  explicit MultifactorPriority(const Weights& weights);
  PriorityBreakdown explain(const Job& job, const Partition& partition,
                            const PriorityContext& ctx) const;
  double priority(const Job& job, const Partition& partition, const PriorityContext& ctx) const {
    return explain(job, partition, ctx).total;
  }
  // Sets Job::priority of every pending job in the snapshot.
  void apply(Snapshot& snapshot, PriorityContext ctx) const;

 private:
  std::vector<WeightedFactor> factors_;
};

}  // namespace drover::sched
