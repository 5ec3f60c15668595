#include "jobs/task_usage_wire.h"

namespace drover::jobs {

std::vector<acct::TaskUsage> taskUsageFromWire(
    const google::protobuf::RepeatedPtrField<drover::v1::TaskUsage>& tasks) {
  std::vector<acct::TaskUsage> out;
  out.reserve(static_cast<std::size_t>(tasks.size()));
  auto i64 = [](std::uint64_t v) { return static_cast<std::int64_t>(v); };
  for (const auto& t : tasks) {
    acct::TaskUsage u;
    u.node = t.node();
    u.task = t.task();
    u.vmsize_kb = i64(t.vmsize_kb());
    u.rss_kb = i64(t.rss_kb());
    u.pages = i64(t.pages());
    u.cpu_ms = i64(t.cpu_ms());
    u.cpu_freq_khz = i64(t.cpu_freq_khz());
    u.read_bytes = i64(t.read_bytes());
    u.write_bytes = i64(t.write_bytes());
    out.push_back(std::move(u));
  }
  return out;
}

}  // namespace drover::jobs
