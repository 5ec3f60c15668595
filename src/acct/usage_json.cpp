#include "acct/usage_json.h"

#include <nlohmann/json.hpp>

namespace drover::acct {
namespace {

// One table drives both directions so a new field cannot be written but not read.
template <typename Fn>
void forEachField(Usage& u, Fn&& fn) {
  fn("user_cpu_usec", u.user_cpu_usec);
  fn("system_cpu_usec", u.system_cpu_usec);
  fn("max_rss_kb", u.max_rss_kb);
  fn("max_rss_node", u.max_rss_node);
  fn("max_rss_task", u.max_rss_task);
  fn("ave_rss_kb", u.ave_rss_kb);
  fn("max_vmsize_kb", u.max_vmsize_kb);
  fn("max_vmsize_node", u.max_vmsize_node);
  fn("max_vmsize_task", u.max_vmsize_task);
  fn("ave_vmsize_kb", u.ave_vmsize_kb);
  fn("max_pages", u.max_pages);
  fn("max_pages_node", u.max_pages_node);
  fn("max_pages_task", u.max_pages_task);
  fn("ave_pages", u.ave_pages);
  fn("min_cpu_sec", u.min_cpu_sec);
  fn("min_cpu_node", u.min_cpu_node);
  fn("min_cpu_task", u.min_cpu_task);
  fn("ave_cpu_sec", u.ave_cpu_sec);
  fn("ave_cpu_freq_khz", u.ave_cpu_freq_khz);
  fn("consumed_energy", u.consumed_energy);
  fn("max_disk_read_mb", u.max_disk_read_mb);
  fn("max_disk_read_node", u.max_disk_read_node);
  fn("max_disk_read_task", u.max_disk_read_task);
  fn("ave_disk_read_mb", u.ave_disk_read_mb);
  fn("max_disk_write_mb", u.max_disk_write_mb);
  fn("max_disk_write_node", u.max_disk_write_node);
  fn("max_disk_write_task", u.max_disk_write_task);
  fn("ave_disk_write_mb", u.ave_disk_write_mb);
  fn("tres_usage_in_ave", u.tres_usage_in_ave);
  fn("tres_usage_in_max", u.tres_usage_in_max);
  fn("tres_usage_in_max_node", u.tres_usage_in_max_node);
  fn("tres_usage_in_max_task", u.tres_usage_in_max_task);
  fn("tres_usage_in_min", u.tres_usage_in_min);
  fn("tres_usage_in_min_node", u.tres_usage_in_min_node);
  fn("tres_usage_in_min_task", u.tres_usage_in_min_task);
  fn("tres_usage_in_tot", u.tres_usage_in_tot);
  fn("tres_usage_out_ave", u.tres_usage_out_ave);
  fn("tres_usage_out_max", u.tres_usage_out_max);
  fn("tres_usage_out_max_node", u.tres_usage_out_max_node);
  fn("tres_usage_out_max_task", u.tres_usage_out_max_task);
  fn("tres_usage_out_tot", u.tres_usage_out_tot);
}

template <typename T>
bool isDefault(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return v.empty();
  } else if constexpr (std::is_arithmetic_v<T>) {
    return v == 0;
  } else {
    return !v.has_value();
  }
}

}  // namespace

std::string usageToJson(const Usage& usage) {
  nlohmann::json j = nlohmann::json::object();
  Usage copy = usage;
  forEachField(copy, [&](const char* key, auto& v) {
    if (isDefault(v)) return;
    if constexpr (requires { v.value(); }) {
      j[key] = *v;
    } else {
      j[key] = v;
    }
  });
  return j.dump();
}

Result<Usage> usageFromJson(const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return makeError("stored usage is not a JSON object: " + text.substr(0, 80));
  }
  Usage u;
  bool ok = true;
  forEachField(u, [&](const char* key, auto& v) {
    auto it = j.find(key);
    if (it == j.end()) return;
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<T, std::string>) {
      if (it->is_string()) v = it->template get<std::string>(); else ok = false;
    } else if constexpr (std::is_arithmetic_v<T>) {
      if (it->is_number()) v = it->template get<T>(); else ok = false;
    } else {
      if (it->is_number()) v = it->template get<typename T::value_type>(); else ok = false;
    }
  });
  if (!ok) return makeError("stored usage has a field of the wrong type: " + text.substr(0, 80));
  return u;
}

}  // namespace drover::acct
