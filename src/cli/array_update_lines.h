#pragma once
// scontrol update of an array: the lines Slurm 22.05's scontrol prints from its tasks' answers.
#include <string>
#include <vector>

#include "drover/v1/jobs.pb.h"

namespace drover::cli {

// One line per group of tasks with the same answer, "<array>_<task ids>: <why>", the ids sorted
// and compressed ("7098_0,2", "7098_1,3-6"), the groups in the order of their first task, a
// task that took the update as "No error". Nothing when every task took it (scontrol then
// exits 0 without a word), as the reference printed.
std::vector<std::string> arrayUpdateLines(const v1::UpdateJobReply& reply);

}  // namespace drover::cli
