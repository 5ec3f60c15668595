#pragma once
// The node tree of a YAML document that is nothing but a block mapping of plain scalars, at
// most two levels deep (`key: value`, `section:` with indented `key: value` lines under it,
// comments and blank lines), built without yaml-cpp's scanner.
//
// Why: every CLI call reads cluster.conf for the controller's address, and yaml-cpp spent
// about a quarter of an `sbatch` call's instructions scanning those few lines (character by
// character through its regular expressions); docs/performance.md, "Process start-up".
//
// The result is the tree YAML::Load builds for the same text, or nullopt whenever the text
// uses anything beyond that subset (quotes, flow collections, sequences, anchors, tags,
// multi-line scalars, null values, duplicate keys, tabs, non-ASCII...): callers then parse
// with yaml-cpp. tests/fuzz/fuzz_plain_block_map.cpp checks the equality on arbitrary input.
// Nodes built here carry no marks (line:column); parse errors must come from yaml-cpp.
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string_view>

namespace drover::config {

std::optional<YAML::Node> loadPlainBlockMap(std::string_view text);

}  // namespace drover::config
