#pragma once
// sstat's output, pure: the running steps' usage records in, text out. Field names, order,
// default widths and values follow Slurm 22.05's sstat as run on the reference cluster
// (jobacct_gather/linux); the layout (padding, '+' truncation, -p/-P, -n) is sacct's.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "acct/report/sacct_format.h"
#include "drover/accounting.h"

namespace drover::acct::report {

// Every field, in `sstat --helpformat` order.
const std::vector<SacctField>& sstatFields();

// "-o JobID,MaxRSS%12": as sacct's -o over sstat's fields; an unknown name is
// `Invalid field requested: "X"`.
Result<std::vector<Column>> parseSstatFormat(std::string_view spec);
std::vector<Column> sstatDefaultColumns();  // JobID MaxVMSize ... TRESUsageOutTot
std::vector<Column> sstatPidColumns();      // -i: JobID Nodelist Pids

// One row: a running step with its usage so far, and its processes' pids over its nodes.
struct SstatRow {
  StepRecord step;
  std::vector<int> pids;
  // TRESUsageOutMin, -MinNode, -MinTask: sstat's own (sacct's records have no out minimum).
  std::string tres_usage_out_min, tres_usage_out_min_node, tres_usage_out_min_task;
};

struct SstatOptions {
  Parsable parsable = Parsable::kNone;
  bool header = true;      // false = -n
  bool noconvert = false;  // sizes in bytes, as Slurm's --noconvert
};

std::string renderSstat(const std::vector<SstatRow>& rows, const std::vector<Column>& columns,
                        const SstatOptions& options);
// `sstat --helpformat`: four names a line, each padded to 19 and a space.
std::string renderSstatHelpFormat();

}  // namespace drover::acct::report
