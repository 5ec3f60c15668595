#include "config/plain_block_map.h"

#include <set>
#include <string>

namespace drover::config {
namespace {

bool isKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool isNullSpelling(std::string_view v) {
  return v == "~" || v == "null" || v == "Null" || v == "NULL";
}

// A plain scalar yaml-cpp reads back unchanged: printable ASCII, no leading indicator, no
// ": " or trailing ':' (a nested mapping), not one of the spellings of null.
bool isPlainScalar(std::string_view v) {
  if (v.empty() || std::string_view("-?:,[]{}#&*!|>'\"%@`").find(v.front()) != v.npos) {
    return false;
  }
  for (char c : v) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  if (v.back() == ':' || v.find(": ") != v.npos) return false;
  return !isNullSpelling(v);
}

struct Line {
  std::string_view key;
  std::string_view value;  // "" = a section opens here
};

// One `key: value  # comment` or `key:` line; false when it is anything else.
bool splitLine(std::string_view text, std::size_t indent, Line& out) {
  std::size_t i = indent;
  while (i < text.size() && isKeyChar(text[i])) ++i;
  if (i == indent || i >= text.size() || text[i] != ':') return false;
  out.key = text.substr(indent, i - indent);
  if (isNullSpelling(out.key)) return false;  // a null key to yaml-cpp
  std::string_view rest = text.substr(i + 1);
  if (!rest.empty() && rest.front() != ' ') return false;  // "key:value" is one scalar
  // A comment starts at a '#' after a space; the value is what precedes it, trimmed.
  const std::size_t hash = rest.find(" #");
  if (hash != rest.npos) rest = rest.substr(0, hash);
  const std::size_t first = rest.find_first_not_of(' ');
  if (first == rest.npos) {
    out.value = {};
    return true;
  }
  rest = rest.substr(first, rest.find_last_not_of(' ') + 1 - first);
  if (!isPlainScalar(rest)) return false;
  out.value = rest;
  return true;
}

}  // namespace

std::optional<YAML::Node> loadPlainBlockMap(std::string_view text) {
  YAML::Node root(YAML::NodeType::Map);
  std::set<std::string> top_keys, section_keys;
  std::optional<YAML::Node> section;  // the open `section:` and the indent of its entries
  std::size_t section_indent = 0;
  auto closeSection = [&]() {
    // `section:` with nothing under it is null to yaml-cpp: leave that to yaml-cpp.
    if (section && section->size() == 0) return false;
    section.reset();
    return true;
  };
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == text.npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    const std::size_t indent = line.find_first_not_of(' ');
    if (indent == line.npos) continue;                   // blank
    if (line[indent] == '#') continue;                   // comment line
    Line l;
    if (!splitLine(line, indent, l)) return std::nullopt;
    if (indent == 0) {
      if (!closeSection() || !top_keys.insert(std::string(l.key)).second) return std::nullopt;
      if (l.value.empty()) {
        section = YAML::Node(YAML::NodeType::Map);
        section_keys.clear();
        section_indent = 0;
        root[std::string(l.key)] = *section;
      } else {
        root[std::string(l.key)] = std::string(l.value);
      }
      continue;
    }
    // An indented entry: inside the open section, all at the first entry's indent, scalars.
    if (!section || l.value.empty()) return std::nullopt;
    if (section_indent == 0) section_indent = indent;
    if (indent != section_indent || !section_keys.insert(std::string(l.key)).second) {
      return std::nullopt;
    }
    (*section)[std::string(l.key)] = std::string(l.value);
  }
  // No line at all (only comments) is yaml-cpp's null document.
  if (top_keys.empty() || !closeSection()) return std::nullopt;
  return root;
}

}  // namespace drover::config
