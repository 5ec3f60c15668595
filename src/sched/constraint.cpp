#include "sched/constraint.h"

#include <algorithm>
#include <cctype>

namespace drover::sched {

namespace {
std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}
}  // namespace

Result<Constraint> Constraint::parse(std::string_view text) {
  Constraint c;
  if (trim(text).empty()) return c;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t bar = text.find('|', pos);
    std::string_view alt = text.substr(pos, bar == std::string_view::npos ? text.npos : bar - pos);
    std::vector<std::string> terms;
    size_t p = 0;
    while (p <= alt.size()) {
      size_t amp = alt.find('&', p);
      std::string term = trim(alt.substr(p, amp == std::string_view::npos ? alt.npos : amp - p));
      bool valid = !term.empty() && std::all_of(term.begin(), term.end(), [](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.';
      });
      if (!valid) {
        return makeError("constraint \"" + std::string(text) + "\": bad feature name \"" + term +
                         "\"; expected names joined by & and |, e.g. \"h100&ib|a100\"");
      }
      terms.push_back(std::move(term));
      if (amp == std::string_view::npos) break;
      p = amp + 1;
    }
    c.alternatives_.push_back(std::move(terms));
    if (bar == std::string_view::npos) break;
    pos = bar + 1;
  }
  return c;
}

bool Constraint::matches(const std::vector<std::string>& features) const {
  if (alternatives_.empty()) return true;
  for (const auto& alt : alternatives_) {
    bool all = std::all_of(alt.begin(), alt.end(), [&](const std::string& f) {
      return std::binary_search(features.begin(), features.end(), f);
    });
    if (all) return true;
  }
  return false;
}

std::vector<std::string> Constraint::names() const {
  std::vector<std::string> out;
  for (const auto& alt : alternatives_) out.insert(out.end(), alt.begin(), alt.end());
  return out;
}

}  // namespace drover::sched
