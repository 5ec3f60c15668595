#include "jobspec/command_line.h"

#include <string_view>

namespace drover::jobspec {

namespace {

CliError getoptError(Tool tool, const std::string& what) {
  std::string name(toolName(tool));
  return CliError{name + ": " + what + "\nTry \"" + name + " --help\" for more information",
                  kExitBadOption};
}

// Long option lookup as getopt_long does it: an exact name wins, else a unique prefix.
struct LongMatch {
  const OptionDef* def = nullptr;
  std::vector<const OptionDef*> candidates;
};

LongMatch matchLong(Tool tool, std::string_view name) {
  LongMatch m;
  for (const auto& def : optionTable()) {
    if (!acceptedBy(def, tool)) continue;
    if (def.long_name == name) {
      m.def = &def;
      m.candidates.clear();
      return m;
    }
    if (def.long_name.starts_with(name)) m.candidates.push_back(&def);
  }
  if (m.candidates.size() == 1) m.def = m.candidates.front();
  return m;
}

const OptionDef* matchShort(Tool tool, char c) {
  for (const auto& def : optionTable()) {
    if (def.short_name == c && acceptedBy(def, tool)) return &def;
  }
  return nullptr;
}

std::optional<CliError> apply(ParsedCommand& pc, const OptionDef& def,
                              std::optional<std::string_view> arg, OptionSource source,
                              std::int64_t now) {
  ApplyContext ctx{pc.tool, source, now, def.long_name};
  if (auto err = def.apply(pc, arg, ctx)) {
    const std::string preamble = err->preamble.empty() ? "" : err->preamble + "\n";
    return CliError{preamble + prefixLines(pc.tool, err->text), err->exit_code};
  }
  pc.spec.sources[std::string(def.long_name)] = source;
  return std::nullopt;
}

}  // namespace

std::string prefixLines(Tool tool, std::string_view text) {
  std::string out;
  std::string prefix = std::string(toolName(tool)) + ": ";
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    if (!out.empty()) out += '\n';
    out += prefix;
    out.append(text.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

std::optional<CliError> applyArguments(ParsedCommand& pc, std::span<const std::string> args,
                                       OptionSource source, std::int64_t now,
                                       std::vector<std::string>* positional) {
  const Tool tool = pc.tool;
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    std::string_view a = args[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a.size() < 2 || a[0] != '-') break;  // first non-option: the script or command
    if (a[1] == '-') {
      std::string_view body = a.substr(2);
      auto eq = body.find('=');
      std::string_view name = body.substr(0, eq);
      LongMatch m = matchLong(tool, name);
      if (!m.def) {
        if (m.candidates.size() > 1) {
          std::string what = "option '--" + std::string(name) + "' is ambiguous; possibilities:";
          for (const auto* c : m.candidates) what += " '--" + std::string(c->long_name) + "'";
          return getoptError(tool, what);
        }
        return getoptError(tool, "unrecognized option '" + std::string(a) + "'");
      }
      const OptionDef& def = *m.def;
      std::optional<std::string_view> arg;
      if (eq != std::string_view::npos) {
        if (def.arg == ArgKind::None) {
          return getoptError(tool, "option '--" + std::string(def.long_name) +
                                       "' doesn't allow an argument");
        }
        arg = body.substr(eq + 1);
      } else if (def.arg == ArgKind::Required) {
        if (i + 1 >= args.size()) {
          return getoptError(tool, "option '--" + std::string(def.long_name) +
                                       "' requires an argument");
        }
        arg = args[++i];
      }
      if (auto err = apply(pc, def, arg, source, now)) return err;
      continue;
    }
    // A cluster of short options: "-HvJname".
    for (std::size_t k = 1; k < a.size(); ++k) {
      const OptionDef* def = matchShort(tool, a[k]);
      if (!def) return getoptError(tool, "invalid option -- '" + std::string(1, a[k]) + "'");
      std::optional<std::string_view> arg;
      if (def->arg != ArgKind::None) {
        if (k + 1 < a.size()) {
          arg = a.substr(k + 1);
        } else if (def->arg == ArgKind::Required) {
          if (i + 1 >= args.size()) {
            return getoptError(tool, "option requires an argument -- '" + std::string(1, a[k]) + "'");
          }
          arg = args[++i];
        }
      }
      if (auto err = apply(pc, *def, arg, source, now)) return err;
      if (def->arg != ArgKind::None) break;
    }
  }
  if (positional) {
    for (; i < args.size(); ++i) positional->push_back(args[i]);
  }
  return std::nullopt;
}

CliResult<ParsedCommand> parseCommandLine(Tool tool, const std::vector<std::string>& args,
                                          std::int64_t now) {
  ParsedCommand pc;
  pc.tool = tool;
  pc.args = args;
  if (auto err = applyArguments(pc, args, OptionSource::CommandLine, now, &pc.positional)) {
    return *err;
  }
  return pc;
}

}  // namespace drover::jobspec
