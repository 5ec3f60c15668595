#include "jobspec/dependency_spec.h"

#include <array>
#include <utility>

#include "common/ascii_case.h"
#include "common/comma_list.h"
#include "jobspec/parse_util.h"

namespace drover::jobspec {

namespace {

constexpr std::array<std::pair<DependencyType, std::string_view>, 8> kNames = {{
    {DependencyType::After, "after"},
    {DependencyType::AfterAny, "afterany"},
    {DependencyType::AfterOk, "afterok"},
    {DependencyType::AfterNotOk, "afternotok"},
    {DependencyType::AfterCorr, "aftercorr"},
    {DependencyType::AfterBurstBuffer, "afterburstbuffer"},
    {DependencyType::Expand, "expand"},
    {DependencyType::Singleton, "singleton"},
}};

std::optional<DependencyType> typeFromName(std::string_view name) {
  std::string lower = toLowerAscii(name);
  for (const auto& [type, n] : kNames) {
    if (lower == n) return type;
  }
  return std::nullopt;
}

}  // namespace

std::string_view dependencyTypeName(DependencyType type) {
  for (const auto& [t, n] : kNames) {
    if (t == type) return n;
  }
  return "unknown";
}

Result<DependencySpec> parseDependencySpec(std::string_view text) {
  auto fail = [&](const std::string& why) {
    return makeError("invalid dependency '" + std::string(text) + "': " + why +
                     " (accepted: type:jobid[:jobid...] with type after, afterany, afterok, "
                     "afternotok, aftercorr; jobid as 123 or 123_4; after:jobid+minutes; "
                     "singleton; joined by ',' (all) or '?' (any))");
  };
  DependencySpec spec;
  spec.text = std::string(text);
  if (text.empty()) return fail("empty");
  bool has_and = text.find(',') != std::string_view::npos;
  bool has_or = text.find('?') != std::string_view::npos;
  if (has_and && has_or) return fail("',' and '?' cannot be mixed");
  spec.any = has_or;
  for (std::string_view clause : splitFields(text, has_or ? '?' : ',')) {
    if (clause.empty()) return fail("empty clause");
    auto colon = clause.find(':');
    auto type = typeFromName(clause.substr(0, colon));
    if (!type) return fail("unknown type '" + std::string(clause.substr(0, colon)) + "'");
    if (*type == DependencyType::Singleton) {
      if (colon != std::string_view::npos) return fail("singleton takes no job id");
      DependencyItem single;
      single.type = *type;
      spec.items.push_back(single);
      continue;
    }
    if (colon == std::string_view::npos) return fail("'" + std::string(clause) + "' has no job id");
    for (std::string_view job : splitFields(clause.substr(colon + 1), ':')) {
      DependencyItem item;
      item.type = *type;
      constexpr std::string_view kFailed = "(failed)";
      if (job.size() > kFailed.size() && job.ends_with(kFailed)) {
        item.failed = true;
        job.remove_suffix(kFailed.size());
      }
      if (auto plus = job.find('+'); plus != std::string_view::npos) {
        if (*type != DependencyType::After) return fail("+minutes is only valid with after");
        auto minutes = detail::parseUnsigned(job.substr(plus + 1), UINT32_MAX);
        if (!minutes) return fail("bad delay in '" + std::string(job) + "'");
        item.delay_minutes = static_cast<std::uint32_t>(*minutes);
        job = job.substr(0, plus);
      }
      if (auto us = job.find('_'); us != std::string_view::npos) {
        std::string_view task = job.substr(us + 1);
        if (task == "*") {
          item.all_tasks = true;
        } else {
          auto t = detail::parseUnsigned(task, UINT32_MAX);
          if (!t) return fail("bad array task in '" + std::string(job) + "'");
          item.task_id = static_cast<std::uint32_t>(*t);
        }
        job = job.substr(0, us);
      }
      auto id = detail::parseUnsigned(job, UINT32_MAX);
      if (!id || *id == 0) return fail("'" + std::string(job) + "' is not a job id");
      item.job_id = static_cast<std::uint32_t>(*id);
      spec.items.push_back(item);
    }
  }
  return spec;
}

std::string formatDependency(const DependencySpec& spec) {
  std::string out;
  for (const auto& item : spec.items) {
    if (!out.empty()) out += spec.any ? '?' : ',';
    out += dependencyTypeName(item.type);
    if (item.type == DependencyType::Singleton) continue;
    out += ':' + std::to_string(item.job_id);
    if (item.all_tasks) out += "_*";
    if (item.task_id) out += '_' + std::to_string(*item.task_id);
    if (item.delay_minutes) out += '+' + std::to_string(item.delay_minutes);
    if (item.failed) out += "(failed)";
  }
  return out;
}

}  // namespace drover::jobspec
