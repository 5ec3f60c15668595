#include "cli/array_update_lines.h"

#include <algorithm>
#include <cstdint>

#include "jobspec/array_spec.h"

namespace drover::cli {

std::vector<std::string> arrayUpdateLines(const v1::UpdateJobReply& reply) {
  const bool any_error = std::any_of(reply.tasks().begin(), reply.tasks().end(),
                                     [](const v1::ArrayTaskUpdateResult& t) { return !t.error().empty(); });
  if (!any_error) return {};
  struct Group {
    std::string why;
    std::vector<std::uint32_t> tasks;
  };
  std::vector<const v1::ArrayTaskUpdateResult*> sorted;
  for (const auto& t : reply.tasks()) sorted.push_back(&t);
  std::sort(sorted.begin(), sorted.end(),
            [](const auto* a, const auto* b) { return a->task_id() < b->task_id(); });
  // Groups are made in the order of their first task, as they are printed.
  std::vector<Group> groups;
  for (const auto* t : sorted) {
    const std::string why = t->error().empty() ? "No error" : t->error();
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.why == why; });
    if (it == groups.end()) it = groups.insert(groups.end(), Group{why, {}});
    it->tasks.push_back(t->task_id());
  }
  std::vector<std::string> lines;
  for (const auto& g : groups) {
    lines.push_back(std::to_string(reply.array_job_id()) + "_" + jobspec::compressIds(g.tasks) +
                    ": " + g.why);
  }
  return lines;
}

}  // namespace drover::cli
