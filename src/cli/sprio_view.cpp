#include "cli/sprio_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "cli/cli_common.h"
#include "cli/format_spec.h"
#include "cli/sort_keys.h"

namespace drover::cli {

namespace {

const char* headerOf(char code) {
  switch (code) {
    case 'i': return "JOBID";
    case 'r': return "PARTITION";
    case 'u': return "USER";
    case 'Y': case 'y': return "PRIORITY";
    case 'S': return "SITE";
    case 'A': case 'a': return "AGE";
    case 'B': case 'b': return "ASSOC";
    case 'F': case 'f': return "FAIRSHARE";
    case 'J': case 'j': return "JOBSIZE";
    case 'P': case 'p': return "PARTITION";
    case 'Q': case 'q': return "QOS";
    case 'N': return "NICE";
    case 'T': case 't': return "TRES";
    case 'c': return "CLUSTER";
    default: return nullptr;
  }
}

std::string integer(double v) { return std::to_string(static_cast<long long>(std::llround(v))); }

std::string normalised(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.7f", v);
  return buf;
}

// The normalised job priority to 14 places, which the field's width then cuts, as the
// reference printed it: `%10y` 0.00000238, `%.12y` 0.0000023801, `%y` 0.00000238018401.
std::string normalisedPriority(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%16.14f", v);
  return buf;
}

// The TRES column: "cpu=250,gres/gpu=1000" (weighted, integers as the other columns) or the
// normalised shares; empty when no PriorityWeightTRES is configured (golden 084).
std::string tresValue(const v1::JobPriority& j, const v1::PriorityWeights& w, bool weighted_out) {
  std::string out;
  for (const auto& t : j.tres()) {
    std::int64_t weight = 0;
    for (const auto& tw : w.tres()) {
      if (tw.name() == t.name()) weight = tw.weight();
    }
    out += (out.empty() ? "" : ",") + t.name() + "=" +
           (weighted_out ? integer(t.factor() * static_cast<double>(weight))
                         : normalised(t.factor()));
  }
  return out;
}

std::string tresWeights(const v1::PriorityWeights& w) {
  std::string out;
  for (const auto& t : w.tres()) {
    out += (out.empty() ? "" : ",") + t.name() + "=" + std::to_string(t.weight());
  }
  return out;
}

// Slurm's normalised job priority: the priority over the largest one it can hold.
constexpr double kMaxPriority = 4294967295.0;

std::string jobValue(char code, const v1::JobPriority& j, const v1::PriorityWeights& w) {
  switch (code) {
    case 'i': return std::to_string(j.job_id());
    case 'r': return j.partition();
    case 'u': return j.user();
    case 'Y': return std::to_string(j.priority());
    case 'y': return normalisedPriority(static_cast<double>(j.priority()) / kMaxPriority);
    case 'S': return "0";
    case 'A': return integer(j.age() * w.age());
    case 'a': return normalised(j.age());
    case 'B': return integer(j.assoc() * w.assoc());
    case 'b': return normalised(j.assoc());
    case 'T': return tresValue(j, w, true);
    case 't': return tresValue(j, w, false);
    case 'F': return integer(j.fairshare() * w.fairshare());
    case 'f': return normalised(j.fairshare());
    case 'J': return integer(j.job_size() * w.job_size());
    case 'j': return normalised(j.job_size());
    case 'P': return integer(j.partition_factor() * w.partition());
    case 'p': return normalised(j.partition_factor());
    case 'Q': return integer(j.qos() * w.qos());
    case 'q': return normalised(j.qos());
    case 'N': return std::to_string(j.nice());
    default: return "";
  }
}

std::string weightValue(char code, const v1::PriorityWeights& w) {
  switch (code) {
    case 'i': return "Weights";
    case 'S': return std::to_string(w.site());
    case 'A': case 'a': return std::to_string(w.age());
    case 'B': case 'b': return std::to_string(w.assoc());
    case 'F': case 'f': return std::to_string(w.fairshare());
    case 'J': case 'j': return std::to_string(w.job_size());
    case 'P': case 'p': return std::to_string(w.partition());
    case 'Q': case 'q': return std::to_string(w.qos());
    case 'T': case 't': return tresWeights(w);
    default: return "";
  }
}

}  // namespace

Result<std::string> renderSprio(const SprioOptions& o, const v1::GetPrioritiesReply& reply,
                                std::vector<std::string>* warnings) {
  std::string text = o.format;
  if (text.empty()) {
    text = o.norm ? (o.long_format ? kSprioNormLongFormat : kSprioNormFormat)
                  : (o.long_format ? kSprioLongFormat : kSprioDefaultFormat);
  }
  if (o.format.empty() && !o.long_format) {
    // Slurm's short default shows only factors with a weight: ASSOC and TRES when configured.
    const bool tres = reply.weights().tres_size() > 0;
    if (reply.weights().assoc() > 0) {
      text.replace(text.find(o.norm ? " %10f" : " %.10F"), 0, o.norm ? " %10b" : " %.10B");
    }
    if (tres) text += o.norm ? " %20t" : " %20T";
    if (o.users) text.replace(text.find(" %9r") + 4, 0, " %.8u");
  }
  auto format = parseFormat(text);
  if (!format.ok()) return makeError("Invalid format specification: " + format.error());
  for (auto it = format->begin(); it != format->end();) {
    if (!it->is_field || headerOf(it->field.code) != nullptr) {
      ++it;
      continue;
    }
    if (warnings) {
      warnings->push_back(std::string("Invalid job format specification: ") + it->field.code);
    }
    it = format->erase(it);
    if (it != format->end() && !it->is_field) it = format->erase(it);  // its suffix
  }
  const v1::PriorityWeights& w = reply.weights();
  std::string out;
  if (!o.no_header) {
    out += renderLine(*format, [](const FieldSpec& f) { return std::string(headerOf(f.code)); });
    out += "\n";
  }
  if (o.weights) {
    out += renderLine(*format, [&](const FieldSpec& f) { return weightValue(f.code, w); });
    out += "\n";
    return out;
  }

  std::vector<const v1::JobPriority*> jobs;
  for (const auto& j : reply.jobs()) jobs.push_back(&j);
  if (!o.sort.empty()) {
    // Unlike squeue, sprio refuses a key that is not one of its format letters.
    const std::vector<SortKey> keys = parseSortKeys(o.sort);
    for (const SortKey& k : keys) {
      if (!k.single_letter || headerOf(k.code) == nullptr) {
        return makeError("Invalid sort specification: " + k.item);
      }
    }
    sortByKeys(jobs, keys, [&](const v1::JobPriority* a, const v1::JobPriority* b, char code) {
      return compareValues(jobValue(code, *a, w), jobValue(code, *b, w));
    });
  }
  for (const auto* j : jobs) {
    out += renderLine(*format, [&](const FieldSpec& f) { return jobValue(f.code, *j, w); });
    out += "\n";
  }
  return out;
}

}  // namespace drover::cli
