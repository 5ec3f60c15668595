#pragma once
// Internal to the sacct formatter: one row (a job, or one of its steps) and the field table.
#include <string>
#include <vector>

#include "acct/report/sacct_format.h"

namespace drover::acct::report {

struct Row {
  const JobRecord* job;
  const StepRecord* step;                // null for the job's own row
  const std::vector<StepRecord>* steps;  // the job's steps (job rows sum their CPU time)
  std::int64_t now;
};

using ValueFn = std::string (*)(const Row&);

struct FieldDef {
  SacctField field;
  ValueFn value;
};

const std::vector<FieldDef>& fieldTable();

}  // namespace drover::acct::report
