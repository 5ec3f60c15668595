// Slurm 22.05's --yaml documents: the --json tree written by libyaml's emitter with every node
// tagged, as the reference's sacct and squeue --yaml printed them (checked side by side,
// 2026-12-03): `%YAML 1.1`, `--- !!map`, `!!str key: !!int 5`, block sequences not indented
// under their key (`- !!map`), empty ones `!!seq []` / `!!map {}`, `!!float 1.000000`, an empty
// string as a bare `!!str`, and `...` at the end.
#include <cstdio>

#include "cli/slurm_json.h"

namespace drover::cli::json {
namespace {

bool isBlank(char c) { return c == ' ' || c == '\t'; }

// Whether libyaml would write `s` as a plain scalar in a block collection: no indicator
// character where YAML reads one (first character, ": ", " #"), no leading or trailing space,
// nothing outside printable ASCII.
bool plainAllowed(const std::string& s) {
  if (s.rfind("---", 0) == 0 || s.rfind("...", 0) == 0) return false;
  if (isBlank(s.front()) || isBlank(s.back())) return false;
  const auto followedByBlank = [&](std::size_t i) { return i + 1 == s.size() || isBlank(s[i + 1]); };
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f || u >= 0x80) return false;
    if (i == 0) {
      if (std::string_view("#,[]{}&*!|>'\"%@`").find(c) != std::string_view::npos) return false;
      if ((c == '?' || c == ':' || c == '-') && followedByBlank(i)) return false;
    } else {
      if (c == ':' && followedByBlank(i)) return false;
      if (c == '#' && isBlank(s[i - 1])) return false;
    }
  }
  return true;
}

bool printable(const std::string& s) {
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return false;
  }
  return true;
}

void writeScalar(std::string& out, const std::string& s) {
  if (s.empty()) return;
  out += ' ';
  if (plainAllowed(s)) {
    out += s;
  } else if (printable(s)) {
    out += '\'';
    for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
    out += '\'';
  } else {
    out += '"';
    for (char c : s) {
      const auto u = static_cast<unsigned char>(c);
      if (c == '"' || c == '\\') {
        out += '\\';
        out += c;
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\t') {
        out += "\\t";
      } else if (u < 0x20 || u == 0x7f) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02X", u);
        out += buf;
      } else {
        out += c;
      }
    }
    out += '"';
  }
}

}  // namespace

// The node's tag and, for a scalar or an empty collection, its value and the line's end; a
// non-empty collection's entries follow on lines of their own: a mapping's at `indent` + 2,
// a sequence's at `indent` when it is a mapping's value (`in_sequence` false), else + 2.
void Value::writeYaml(std::string& out, int indent, bool in_sequence) const {
  const auto pad = [&out](int n) { out.append(static_cast<std::size_t>(n), ' '); };
  if (std::holds_alternative<std::nullptr_t>(v_)) {
    out += "!!null null\n";
  } else if (auto* b = std::get_if<bool>(&v_)) {
    out += *b ? "!!bool true\n" : "!!bool false\n";
  } else if (auto* i = std::get_if<std::int64_t>(&v_)) {
    out += "!!int " + std::to_string(*i) + "\n";
  } else if (auto* d = std::get_if<double>(&v_)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "!!float %f\n", *d);
    out += buf;
  } else if (auto* s = std::get_if<std::string>(&v_)) {
    out += "!!str";
    writeScalar(out, *s);
    out += '\n';
  } else if (auto* o = std::get_if<std::unique_ptr<Object>>(&v_)) {
    if ((*o)->empty()) {
      out += "!!map {}\n";
      return;
    }
    out += "!!map\n";
    for (const auto& [key, value] : **o) {
      pad(indent);
      out += "!!str";
      writeScalar(out, key);
      out += ": ";
      value.writeYaml(out, indent + 2, false);
    }
  } else if (auto* a = std::get_if<std::unique_ptr<Array>>(&v_)) {
    if ((*a)->empty()) {
      out += "!!seq []\n";
      return;
    }
    out += "!!seq\n";
    const int items = in_sequence ? indent : indent - 2;
    for (const auto& value : **a) {
      pad(items);
      out += "- ";
      value.writeYaml(out, items + 2, true);
    }
  }
}

std::string dumpYaml(const Value& root) {
  std::string out = "%YAML 1.1\n--- ";
  root.writeYaml(out, 0, true);
  return out + "...\n";
}

}  // namespace drover::cli::json
