#include "config/yaml_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <unordered_set>

#include "common/ascii_case.h"
#include "drover/config.h"
#include "drover/hostlist.h"
#include "drover/time_spec.h"

namespace drover::config::detail {
namespace {

constexpr std::size_t kMaxQuoted = 60;

std::string quote(std::string_view text) {
  if (text.size() > kMaxQuoted) return fmt::format("'{}...'", text.substr(0, kMaxQuoted));
  return fmt::format("'{}'", text);
}

std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string label(const std::string& path) { return path.empty() ? "the document" : path; }

std::string joinViews(std::initializer_list<std::string_view> names) {
  std::string out;
  for (auto n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

// The scalar text of `node`, or a recorded error naming what was expected.
const std::string* scalarOf(Context& ctx, const YAML::Node& node, const std::string& path,
                            std::string_view expected) {
  if (!node.IsScalar()) {
    ctx.fail(node, fmt::format("{}: expected {}, got {}", path, expected, describe(node)));
    return nullptr;
  }
  return &node.Scalar();
}

bool isNameChar(unsigned char c) {
  return !std::isspace(c) && c != ',' && c != ':' && std::isprint(c);
}

}  // namespace

Context::Context(std::string file_name, std::filesystem::path base_dir)
    : file_name_(std::move(file_name)), base_dir_(std::move(base_dir)) {}

std::string Context::where(const YAML::Mark& at) const {
  if (at.is_null() || at.line < 0 || at.column < 0) return fmt::format("{}:1:1", file_name_);
  return fmt::format("{}:{}:{}", file_name_, at.line + 1, at.column + 1);
}

bool Context::fail(const YAML::Mark& at, std::string_view message) {
  if (!error_) error_ = Error{fmt::format("{}: {}", where(at), message)};
  return false;
}

std::string Context::resolvePath(const std::string& path) const {
  std::filesystem::path p(path);
  if (p.is_absolute()) return p.lexically_normal().string();
  return (base_dir_ / p).lexically_normal().string();
}

std::string describe(const YAML::Node& node) {
  if (!node.IsDefined()) return "nothing";
  switch (node.Type()) {
    case YAML::NodeType::Null: return "an empty value";
    case YAML::NodeType::Sequence: return "a sequence";
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Scalar: return quote(node.Scalar());
    default: return "nothing";
  }
}

bool MapReader::open(Context& ctx, const YAML::Node& node, std::string path,
                     std::initializer_list<std::string_view> accepted) {
  node_ = node;
  path_ = std::move(path);
  entries_.clear();
  if (!node.IsMap()) {
    return ctx.fail(node, fmt::format("{}: expected a mapping (keys: {}), got {}", label(path_),
                                      joinViews(accepted), describe(node)));
  }
  for (auto it = node.begin(); it != node.end(); ++it) {
    const YAML::Node key = it->first;
    if (!key.IsScalar()) {
      return ctx.fail(key, fmt::format("{}: keys must be plain names, got {}", label(path_),
                                       describe(key)));
    }
    const std::string& name = key.Scalar();
    if (std::find(accepted.begin(), accepted.end(), name) == accepted.end()) {
      std::string hint;
      std::size_t best = 3;
      for (auto a : accepted) {
        const std::size_t d = editDistance(toLowerAscii(name), a);
        if (d < best) {
          best = d;
          hint = fmt::format(" (did you mean '{}'?)", a);
        }
      }
      return ctx.fail(key, fmt::format("unknown key {} in {}{}; accepted keys: {}", quote(name),
                                       label(path_), hint, joinViews(accepted)));
    }
    for (const Entry& e : entries_) {
      if (e.key == name) {
        return ctx.fail(key, fmt::format("{}: key '{}' appears twice (first at line {})",
                                         label(path_), name, e.key_node.Mark().line + 1));
      }
    }
    if (it->second.IsNull()) {
      // An empty value's mark is the next token's; point at the key instead.
      return ctx.fail(key, fmt::format("{}: key '{}' has no value", label(path_), name));
    }
    entries_.push_back(Entry{name, key, it->second});
  }
  return true;
}

const YAML::Node* MapReader::find(std::string_view key) const {
  for (const Entry& e : entries_) {
    if (e.key == key) return &e.value;
  }
  return nullptr;
}

const YAML::Node* MapReader::require(Context& ctx, std::string_view key) const {
  const YAML::Node* v = find(key);
  if (!v) ctx.fail(node_, fmt::format("{}: missing required key '{}'", label(path_), key));
  return v;
}

YAML::Mark MapReader::keyMark(std::string_view key) const {
  for (const Entry& e : entries_) {
    if (e.key == key) return e.key_node.Mark();
  }
  return node_.Mark();
}

std::string MapReader::path(std::string_view key) const {
  return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
}

bool readString(Context& ctx, const YAML::Node& node, const std::string& path, std::string& out) {
  const std::string* s = scalarOf(ctx, node, path, "a non-empty string");
  if (!s) return false;
  if (s->empty()) return ctx.fail(node, fmt::format("{}: expected a non-empty string", path));
  out = *s;
  return true;
}

bool readName(Context& ctx, const YAML::Node& node, const std::string& path, std::string& out) {
  std::string s;
  if (!readString(ctx, node, path, s)) return false;
  for (unsigned char c : s) {
    if (!isNameChar(c)) {
      return ctx.fail(node, fmt::format("{}: {} is not a valid name; names are printable and "
                                        "contain no spaces, commas or colons",
                                        path, quote(s)));
    }
  }
  out = std::move(s);
  return true;
}

bool readInteger(Context& ctx, const YAML::Node& node, const std::string& path, std::int64_t min,
                 std::int64_t max, std::int64_t& out) {
  const std::string expected = fmt::format("an integer from {} to {}", min, max);
  const std::string* s = scalarOf(ctx, node, path, expected);
  if (!s) return false;
  std::int64_t v = 0;
  const char* first = s->data();
  const char* last = s->data() + s->size();
  auto [ptr, ec] = std::from_chars(first, last, v);
  if (s->empty() || ec != std::errc() || ptr != last || v < min || v > max) {
    return ctx.fail(node, fmt::format("{}: expected {}, got {}", path, expected, quote(*s)));
  }
  out = v;
  return true;
}

bool readBool(Context& ctx, const YAML::Node& node, const std::string& path, bool& out) {
  const std::string* s = scalarOf(ctx, node, path, "true or false");
  if (!s) return false;
  const std::string v = toLowerAscii(*s);
  if (v == "true" || v == "yes") {
    out = true;
  } else if (v == "false" || v == "no") {
    out = false;
  } else {
    return ctx.fail(node, fmt::format("{}: expected true or false (or yes/no), got {}", path,
                                      quote(*s)));
  }
  return true;
}

bool readNameList(Context& ctx, const YAML::Node& node, const std::string& path,
                  std::vector<std::string>& out) {
  out.clear();
  if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i) {
      std::string name;
      if (!readName(ctx, node[i], fmt::format("{}[{}]", path, i), name)) return false;
      out.push_back(std::move(name));
    }
    return true;
  }
  if (!node.IsScalar()) {
    return ctx.fail(node, fmt::format("{}: expected a list of names ([a, b] or \"a,b\"), got {}",
                                      path, describe(node)));
  }
  const std::string& text = node.Scalar();
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string item = text.substr(start, comma - start);
    const auto b = item.find_first_not_of(" \t");
    const auto e = item.find_last_not_of(" \t");
    item = b == std::string::npos ? "" : item.substr(b, e - b + 1);
    const bool valid = !item.empty() && std::all_of(item.begin(), item.end(), [](char c) {
      return isNameChar(static_cast<unsigned char>(c));
    });
    if (!valid) {
      return ctx.fail(node, fmt::format("{}: {} is not a list of names; write [a, b] or \"a,b\"",
                                        path, quote(text)));
    }
    out.push_back(std::move(item));
    start = comma + 1;
  }
  return true;
}

bool readTimeMinutes(Context& ctx, const YAML::Node& node, const std::string& path,
                     std::int64_t& out) {
  const std::string* s = scalarOf(ctx, node, path, "a time limit such as 30, 1:00:00, 1-00:00:00 or UNLIMITED");
  if (!s) return false;
  auto r = parseTimeLimitMinutes(*s);
  if (!r) return ctx.fail(node, fmt::format("{}: {}", path, r.error()));
  out = *r == kUnlimitedMinutes ? kUnlimited : *r;
  return true;
}

bool readDurationSeconds(Context& ctx, const YAML::Node& node, const std::string& path,
                         std::int64_t& out) {
  const std::string* s = scalarOf(ctx, node, path, "a duration such as 7-0 or 12:00:00");
  if (!s) return false;
  auto r = parseTimeSpecSeconds(*s);
  if (!r) return ctx.fail(node, fmt::format("{}: {}", path, r.error()));
  if (*r < 0) {
    return ctx.fail(node, fmt::format("{}: {} is not accepted here; give a finite duration such "
                                      "as 7-0 (days-hours) or 12:00:00",
                                      path, quote(*s)));
  }
  out = *r;
  return true;
}

bool readMemoryMb(Context& ctx, const YAML::Node& node, const std::string& path,
                  std::uint64_t& out) {
  const std::string* s = scalarOf(ctx, node, path, "a memory size such as 4000 (MiB) or 64G");
  if (!s) return false;
  auto r = parseMemoryMb(*s);
  if (!r) return ctx.fail(node, fmt::format("{}: {}", path, r.error()));
  out = *r;
  return true;
}

bool readHostlist(Context& ctx, const YAML::Node& node, const std::string& path,
                  std::size_t max_hosts, std::vector<std::string>& out, bool check_names) {
  constexpr std::string_view kAccepted = "a hostlist such as node1, node[1-4] or a[1-2],b[01-08]";
  const std::string* s = scalarOf(ctx, node, path, kAccepted);
  if (!s) return false;
  if (s->empty()) return ctx.fail(node, fmt::format("{}: expected {}, got ''", path, kAccepted));
  auto r = hostlist::expand(*s, max_hosts);
  if (!r) return ctx.fail(node, fmt::format("{}: {}", path, r.error()));
  if (r->empty()) return ctx.fail(node, fmt::format("{}: {} names nothing", path, quote(*s)));
  std::unordered_set<std::string_view> seen;
  for (const std::string& name : *r) {
    const bool valid = !name.empty() && (!check_names || std::all_of(name.begin(), name.end(), [](char c) {
                                            return isNameChar(static_cast<unsigned char>(c));
                                          }));
    if (!valid) {
      return ctx.fail(node, fmt::format("{}: {} expands to the invalid name {}", path,
                                        quote(*s), quote(name)));
    }
    if (!seen.insert(name).second) {
      return ctx.fail(node, fmt::format("{}: {} names {} twice", path, quote(*s), name));
    }
  }
  out = std::move(r).value();
  return true;
}

bool readChoice(Context& ctx, const YAML::Node& node, const std::string& path,
                std::initializer_list<std::string_view> accepted, std::size_t& out) {
  const std::string* s = scalarOf(ctx, node, path, fmt::format("one of {}", joinViews(accepted)));
  if (!s) return false;
  const std::string v = toLowerAscii(*s);
  std::size_t i = 0;
  for (auto a : accepted) {
    if (toLowerAscii(a) == v) {
      out = i;
      return true;
    }
    ++i;
  }
  return ctx.fail(node, fmt::format("{}: unknown value {}; accepted: {}", path, quote(*s),
                                    joinViews(accepted)));
}

bool readPreemptMode(Context& ctx, const YAML::Node& node, const std::string& path,
                     PreemptMode& out) {
  const std::string* s = scalarOf(ctx, node, path, "one of off, cancel, requeue");
  if (!s) return false;
  if (needsGangScheduler(*s)) {
    return ctx.fail(node, fmt::format("{}: {} is not supported: Drover has no gang scheduler to "
                                      "suspend jobs with; accepted: off, cancel, requeue",
                                      path, quote(*s)));
  }
  const auto mode = preemptModeNamed(*s);
  if (!mode) {
    return ctx.fail(node, fmt::format("{}: unknown value {}; accepted: off, cancel, requeue", path,
                                      quote(*s)));
  }
  out = *mode;
  return true;
}

std::string joinNames(const std::vector<std::string>& names, std::size_t max_shown) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < max_shown; ++i) {
    if (i) out += ", ";
    out += names[i];
  }
  if (names.size() > max_shown) out += fmt::format(", ... ({} in all)", names.size());
  return out;
}

}  // namespace drover::config::detail
