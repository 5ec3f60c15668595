#pragma once
// Partial JobInfo rows for listings (GetJobsRequest.fields): only the fields a caller will read
// are copied, so squeue over thousands of jobs does not build, send and parse each job's whole
// record (docs/performance.md "squeue at 5,000 jobs").
#include <vector>

#include <google/protobuf/descriptor.h>

#include "drover/v1/jobs.pb.h"

namespace drover::jobs {

class JobFieldMask {
 public:
  // Every field (the request named none).
  JobFieldMask() = default;
  // From GetJobsRequest.fields / spec_fields; numbers JobInfo/JobSpec do not have are ignored.
  static JobFieldMask fromRequest(const v1::GetJobsRequest& request);

  bool all() const { return all_; }
  // Whether the caller asked for JobInfo field `number`.
  bool wants(int number) const;
  // Copies the masked fields of `from` into `to` (which should be empty).
  void copy(const v1::JobInfo& from, v1::JobInfo* to) const;

 private:
  bool all_ = true;
  std::vector<const google::protobuf::FieldDescriptor*> info_;
  std::vector<const google::protobuf::FieldDescriptor*> spec_;  // empty = the whole spec
};

}  // namespace drover::jobs
