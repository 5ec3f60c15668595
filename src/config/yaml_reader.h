#pragma once
// Strict, located reading of yaml-cpp nodes: every failure becomes one Error that starts with
// "<file>:<line>:<column>: " and names the key path, what was found and what is accepted.
// Internal to drover_config.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drover/config.h"
#include "drover/result.h"

namespace drover::config::detail {

// Holds the file name for locations and the first error; readers return false after calling
// fail(), so parsing stops at the first problem.
class Context {
 public:
  Context(std::string file_name, std::filesystem::path base_dir);

  bool fail(const YAML::Mark& at, std::string_view message);
  bool fail(const YAML::Node& at, std::string_view message) { return fail(at.Mark(), message); }

  // "<file>:<line>:<column>" (1-based; 1:1 where yaml-cpp has no mark, e.g. an empty file).
  std::string where(const YAML::Mark& at) const;

  // Relative paths in the file are relative to the file's directory, not the daemon's cwd.
  std::string resolvePath(const std::string& path) const;

  bool failed() const { return error_.has_value(); }
  Error takeError() { return std::move(*error_); }

 private:
  std::string file_name_;
  std::filesystem::path base_dir_;
  std::optional<Error> error_;
};

// "a mapping", "a sequence", "an empty value", "'text'".
std::string describe(const YAML::Node& node);

// A mapping whose keys are checked on open: all scalar, all accepted, none repeated.
class MapReader {
 public:
  // `path` names the mapping in messages ("nodes[0]", "" for the document).
  bool open(Context& ctx, const YAML::Node& node, std::string path,
            std::initializer_list<std::string_view> accepted);

  // The value under `key`, or nullptr when absent.
  const YAML::Node* find(std::string_view key) const;
  // Like find, but records "missing required key" when absent.
  const YAML::Node* require(Context& ctx, std::string_view key) const;
  // The mark of the key itself (for errors about the entry, not its value).
  YAML::Mark keyMark(std::string_view key) const;

  // "nodes[0].cpus"
  std::string path(std::string_view key) const;
  const std::string& path() const { return path_; }
  const YAML::Node& node() const { return node_; }

 private:
  struct Entry {
    std::string key;
    YAML::Node key_node;
    YAML::Node value;
  };
  YAML::Node node_;
  std::string path_;
  std::vector<Entry> entries_;
};

// Scalar readers: `path` names the value in messages.
bool readString(Context& ctx, const YAML::Node& node, const std::string& path, std::string& out);
// A name: non-empty, no whitespace, commas or colons (it appears in hostlists and gres specs).
bool readName(Context& ctx, const YAML::Node& node, const std::string& path, std::string& out);
bool readInteger(Context& ctx, const YAML::Node& node, const std::string& path, std::int64_t min,
                 std::int64_t max, std::int64_t& out);
template <typename T>
bool readInteger(Context& ctx, const YAML::Node& node, const std::string& path, std::int64_t min,
                 std::int64_t max, T& out) {
  std::int64_t v = 0;
  if (!readInteger(ctx, node, path, min, max, v)) return false;
  out = static_cast<T>(v);
  return true;
}
bool readBool(Context& ctx, const YAML::Node& node, const std::string& path, bool& out);
// A sequence of names, or one scalar holding a comma-separated list ("a,b").
bool readNameList(Context& ctx, const YAML::Node& node, const std::string& path,
                  std::vector<std::string>& out);
// Slurm time spec in minutes; UNLIMITED gives kUnlimited when allowed.
bool readTimeMinutes(Context& ctx, const YAML::Node& node, const std::string& path,
                     std::int64_t& out);
// Slurm time spec in seconds, finite.
bool readDurationSeconds(Context& ctx, const YAML::Node& node, const std::string& path,
                         std::int64_t& out);
bool readMemoryMb(Context& ctx, const YAML::Node& node, const std::string& path,
                  std::uint64_t& out);
// A hostlist expression, expanded (at most max_hosts names, duplicates rejected). With
// `check_names`, every name must also pass readName's rules (addresses and paths skip it).
bool readHostlist(Context& ctx, const YAML::Node& node, const std::string& path,
                  std::size_t max_hosts, std::vector<std::string>& out, bool check_names = true);
// Slurm's PreemptMode: off, cancel or requeue in any case (suspend and gang are refused).
bool readPreemptMode(Context& ctx, const YAML::Node& node, const std::string& path,
                     PreemptMode& out);
// One of `accepted` (case-insensitive); out = its index.
bool readChoice(Context& ctx, const YAML::Node& node, const std::string& path,
                std::initializer_list<std::string_view> accepted, std::size_t& out);

// "a, b and c" for messages.
std::string joinNames(const std::vector<std::string>& names, std::size_t max_shown = 8);

}  // namespace drover::config::detail
