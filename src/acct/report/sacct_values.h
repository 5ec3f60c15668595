#pragma once
// Internal to the sacct and sstat formatters: one row (a job, or one of its steps), the field
// table, and the layout both print with.
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

// One line of cells: padded to each column's width (a longer value cut to width-1 and '+'),
// or separated by `delimiter` ('|', sacct's --delimiter) when parsable.
void appendLine(std::string& out, const std::vector<std::string>& cells,
                const std::vector<Column>& columns, Parsable parsable,
                std::string_view delimiter = "|");
// The header line (names cut to the width) and, unless parsable, its line of dashes.
void appendHeader(std::string& out, const std::vector<Column>& columns, Parsable parsable,
                  std::string_view delimiter = "|");
// parseFormat over another command's fields; `unknown_note` follows the unknown-field error.
Result<std::vector<Column>> parseFormatOver(std::string_view spec,
                                            const std::vector<SacctField>& fields,
                                            std::string_view unknown_note);
// --helpformat's layout over `fields`.
std::string renderHelpFormatOf(const std::vector<SacctField>& fields);

}  // namespace drover::acct::report
