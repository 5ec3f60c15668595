#include "jobspec/export_spec.h"

#include <cctype>

#include "common/ascii_case.h"
#include "common/comma_list.h"
#include "jobspec/parse_util.h"

namespace drover::jobspec {

namespace {

bool validVarName(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

}  // namespace

Result<ExportSpec> parseExportSpec(std::string_view text) {
  ExportSpec spec;
  spec.text = std::string(text);
  if (text.empty()) {
    return makeError("invalid --export value '': accepted ALL, NONE or [ALL,]VAR[=value],...");
  }
  bool saw_all = false;
  bool saw_none = false;
  for (std::string_view item : splitFields(text, ',')) {
    if (item.empty()) continue;
    if (equalsIgnoreCase(item, "ALL")) {
      saw_all = true;
      continue;
    }
    if (equalsIgnoreCase(item, "NONE") || equalsIgnoreCase(item, "NIL")) {
      saw_none = true;
      continue;
    }
    ExportVar var;
    auto eq = item.find('=');
    var.name = std::string(item.substr(0, eq));
    if (eq != std::string_view::npos) var.value = std::string(item.substr(eq + 1));
    if (!validVarName(var.name)) {
      return makeError("invalid --export value '" + std::string(text) + "': '" + var.name +
                       "' is not a variable name (accepted ALL, NONE or [ALL,]VAR[=value],...)");
    }
    spec.vars.push_back(std::move(var));
  }
  if (saw_all && saw_none) {
    return makeError("invalid --export value '" + std::string(text) + "': ALL and NONE together");
  }
  spec.propagate_all = saw_all || (!saw_none && spec.vars.empty());
  return spec;
}

}  // namespace drover::jobspec
