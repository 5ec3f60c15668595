#include "config/client_settings.h"

#include <fmt/format.h>

#include <array>
#include <exception>
#include <filesystem>
#include <optional>
#include <string_view>

#include "config/config_file.h"
#include "config/plain_block_map.h"
#include "config/sections.h"

namespace drover::config {
namespace {

constexpr std::array<std::string_view, 5> kClientKeys = {"controller", "munge_socket", "timeouts",
                                                         "bcast", "steps"};

// The top-level key a column-0 line starts, or "" when the line continues the previous entry
// (indented, blank or a comment).
std::string_view topLevelKey(std::string_view line) {
  if (line.empty() || line[0] == ' ' || line[0] == '\t' || line[0] == '#' || line[0] == '\r') {
    return {};
  }
  const auto colon = line.find(':');
  return colon == std::string_view::npos ? line : line.substr(0, colon);
}

bool isClientKey(std::string_view key) {
  for (auto k : kClientKeys) {
    if (key == k) return true;
  }
  return false;
}

// The text with every line outside the wanted top-level sections blanked, so yaml-cpp scans a
// few lines while line numbers in messages stay those of the file. Empty when the top level is
// not a plain block mapping of simple keys.
std::optional<std::string> clientSections(std::string_view text) {
  std::string out;
  out.reserve(256);
  bool keep = false;
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    const std::string_view key = topLevelKey(line);
    if (!key.empty()) {
      // Flow collections, sequences, directives, document markers, anchors, aliases, tags and
      // quoted or complex keys: leave those documents to the full parser.
      if (std::string_view("{[-?%&*!|>'\"@`.").find(key[0]) != std::string_view::npos ||
          key.find_first_of(" \t") != std::string_view::npos || line.find('&') != line.npos ||
          line.find('*') != line.npos) {
        return std::nullopt;
      }
      keep = isClientKey(key);
    }
    if (keep) out.append(line);
    out.push_back('\n');
    pos = end + 1;
  }
  return out;
}

// Parses the kept sections; false when anything is off (the caller then parses in full).
bool parseSections(const std::string& text, const std::string& file_name, ClientSettings& out) {
  try {
    detail::Context ctx(file_name, baseDirOf(file_name));
    // The usual file's client sections are plain `key: value` lines: no yaml-cpp scan.
    auto plain = loadPlainBlockMap(text);
    const YAML::Node root = plain ? *plain : YAML::Load(text);
    // No wanted section at all (an empty or foreign file): the full parser says what is wrong.
    if (!root.IsMap()) return false;
    detail::MapReader m;
    if (!m.open(ctx, root, "", {"controller", "munge_socket", "timeouts", "bcast", "steps"})) {
      return false;
    }
    if (auto* v = m.find("controller")) {
      if (!detail::parseController(ctx, *v, out.controller)) return false;
    } else {
      out.controller.state_dir = ctx.resolvePath(out.controller.state_dir);
    }
    if (auto* v = m.find("munge_socket")) {
      if (!detail::readString(ctx, *v, "munge_socket", out.munge_socket)) return false;
      out.munge_socket = ctx.resolvePath(out.munge_socket);
    }
    if (auto* v = m.find("timeouts")) {
      if (!detail::parseTimeouts(ctx, *v, out.timeouts)) return false;
    }
    if (auto* v = m.find("bcast"); v && !detail::parseBcast(ctx, *v, out.bcast)) return false;
    if (auto* v = m.find("steps"); v && !detail::parseSteps(ctx, *v, out.steps)) return false;
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

ClientSettings fromFull(const ClusterConfig& cfg) {
  ClientSettings s;
  s.controller = cfg.controller;
  s.munge_socket = cfg.munge_socket;
  s.timeouts = cfg.timeouts;
  s.bcast = cfg.bcast;
  s.steps = cfg.steps;
  return s;
}

}  // namespace

Result<ClientSettings> parseClientSettings(const std::string& yaml_text,
                                           const std::string& file_name) {
  if (auto kept = clientSections(yaml_text)) {
    ClientSettings settings;
    if (parseSections(*kept, file_name, settings)) return settings;
  }
  auto full = parseClusterConfig(yaml_text, file_name);
  if (!full.ok()) return makeError(full.error());
  return fromFull(*full);
}

Result<ClientSettings> loadClientSettings(const std::string& path) {
  auto text = readConfigFile(path);
  if (!text) return makeError(text.error());
  return parseClientSettings(*text, path);
}

}  // namespace drover::config
