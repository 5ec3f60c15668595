#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>

#include "acct/report/sacct_values.h"
#include "common/ascii_case.h"

namespace drover::acct::report {
namespace {

std::vector<Column> columnsNamed(std::initializer_list<std::string_view> names) {
  std::vector<Column> out;
  for (auto n : names) {
    const SacctField* f = findSacctField(n);
    out.push_back(Column{f, f->width, f->left});
  }
  return out;
}

ValueFn valueOf(const SacctField* field) {
  const auto& fields = sacctFields();
  return fieldTable()[static_cast<std::size_t>(field - fields.data())].value;
}

// Pads to the column width; longer values are cut as the field's Cut says.
void appendCell(std::string& out, std::string_view value, const Column& c) {
  const auto w = static_cast<std::size_t>(c.width);
  if (value.size() > w) {
    switch (c.field->cut) {
      case Cut::kNone: out.append(value); return;
      case Cut::kSilent: out.append(value.substr(0, w)); return;
      case Cut::kPlus: break;
    }
    out.append(value.substr(0, w > 0 ? w - 1 : 0));
    if (w > 0) out.push_back('+');
    return;
  }
  if (!c.left) out.append(w - value.size(), ' ');
  out.append(value);
  if (c.left) out.append(w - value.size(), ' ');
}

}  // namespace

void appendLine(std::string& out, const std::vector<std::string>& cells,
                const std::vector<Column>& columns, Parsable parsable, std::string_view delimiter) {
  for (std::size_t i = 0; i < cells.size(); ++i) {
    switch (parsable) {
      case Parsable::kNone:
        appendCell(out, cells[i], columns[i]);
        out.push_back(' ');
        break;
      case Parsable::kTrailing:
        out += cells[i];
        out += delimiter;
        break;
      case Parsable::kNoTrailing:
        if (i > 0) out += delimiter;
        out += cells[i];
        break;
    }
  }
  out.push_back('\n');
}

void appendHeader(std::string& out, const std::vector<Column>& columns, Parsable parsable,
                  std::string_view delimiter) {
  std::vector<std::string> cells(columns.size());
  for (std::size_t i = 0; i < columns.size(); ++i) {
    // Headers are cut to the width without the '+' marker.
    std::string_view name = columns[i].field->name;
    if (parsable == Parsable::kNone) name = name.substr(0, static_cast<std::size_t>(columns[i].width));
    cells[i] = std::string(name);
  }
  appendLine(out, cells, columns, parsable, delimiter);
  if (parsable == Parsable::kNone) {
    for (const auto& c : columns) {
      out.append(static_cast<std::size_t>(c.width), '-');
      out.push_back(' ');
    }
    out.push_back('\n');
  }
}

const std::vector<SacctField>& sacctFields() {
  static const std::vector<SacctField> kFields = [] {
    std::vector<SacctField> v;
    for (const auto& d : fieldTable()) v.push_back(d.field);
    return v;
  }();
  return kFields;
}

namespace {

const SacctField* findField(const std::vector<SacctField>& fields, std::string_view name) {
  for (const auto& f : fields) {
    if (equalsIgnoreCase(f.name, name)) return &f;
  }
  return nullptr;
}

}  // namespace

const SacctField* findSacctField(std::string_view name) { return findField(sacctFields(), name); }

Result<std::vector<Column>> parseFormat(std::string_view spec) {
  return parseFormatOver(spec, sacctFields(), "");
}

Result<std::vector<Column>> parseFormatOver(std::string_view spec,
                                            const std::vector<SacctField>& fields,
                                            std::string_view unknown_note) {
  std::vector<Column> out;
  std::size_t pos = 0;
  while (pos <= spec.size()) {
    auto end = spec.find_first_of(", ", pos);
    if (end == std::string_view::npos) end = spec.size();
    std::string_view item = spec.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    std::string_view name = item;
    std::optional<int> width;
    if (auto pct = item.find('%'); pct != std::string_view::npos) {
      name = item.substr(0, pct);
      std::string_view w = item.substr(pct + 1);
      int n = 0;
      auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), n);
      if (ec != std::errc() || p != w.data() + w.size() || n == 0) {
        return makeError("Invalid field width '" + std::string(w) + "' in '" + std::string(item) +
                         "': expected a non-zero number, e.g. JobName%30");
      }
      width = n;
    }
    const SacctField* f = findField(fields, name);
    if (!f) {
      return makeError("Invalid field requested: \"" + std::string(name) + "\"" +
                       std::string(unknown_note));
    }
    Column c{f, f->width, f->left};
    if (width) {
      c.width = std::abs(*width);
      c.left = *width < 0;
    }
    out.push_back(c);
  }
  if (out.empty()) return makeError("No fields in format '" + std::string(spec) + "'");
  return out;
}

std::vector<Column> defaultColumns() {
  return columnsNamed({"JobID", "JobName", "Partition", "Account", "AllocCPUS", "State",
                       "ExitCode"});
}

std::vector<Column> briefColumns() { return columnsNamed({"JobID", "State", "ExitCode"}); }

std::vector<Column> longColumns() {
  return columnsNamed(
      {"JobID",          "JobIDRaw",          "JobName",          "Partition",
       "MaxVMSize",      "MaxVMSizeNode",     "MaxVMSizeTask",    "AveVMSize",
       "MaxRSS",         "MaxRSSNode",        "MaxRSSTask",       "AveRSS",
       "MaxPages",       "MaxPagesNode",      "MaxPagesTask",     "AvePages",
       "MinCPU",         "MinCPUNode",        "MinCPUTask",       "AveCPU",
       "NTasks",         "AllocCPUS",         "Elapsed",          "State",
       "ExitCode",       "AveCPUFreq",        "ReqCPUFreqMin",    "ReqCPUFreqMax",
       "ReqCPUFreqGov",  "ReqMem",            "ConsumedEnergy",   "MaxDiskRead",
       "MaxDiskReadNode", "MaxDiskReadTask",  "AveDiskRead",      "MaxDiskWrite",
       "MaxDiskWriteNode", "MaxDiskWriteTask", "AveDiskWrite",    "ReqTRES",
       "AllocTRES",      "TRESUsageInAve",    "TRESUsageInMax",   "TRESUsageInMaxNode",
       "TRESUsageInMaxTask", "TRESUsageInMin", "TRESUsageInMinNode", "TRESUsageInMinTask",
       "TRESUsageInTot", "TRESUsageOutMax",   "TRESUsageOutMaxNode", "TRESUsageOutMaxTask",
       "TRESUsageOutAve", "TRESUsageOutTot"});
}

std::string renderSacct(const std::vector<JobWithSteps>& jobs, const std::vector<Column>& columns,
                        const RenderOptions& options) {
  std::string out;
  std::vector<std::string> cells(columns.size());
  if (options.header) appendHeader(out, columns, options.parsable, options.delimiter);
  std::vector<ValueFn> fns;
  for (const auto& c : columns) fns.push_back(valueOf(c.field));
  auto emit = [&](const Row& row) {
    for (std::size_t i = 0; i < columns.size(); ++i) cells[i] = fns[i](row);
    appendLine(out, cells, columns, options.parsable, options.delimiter);
  };
  for (const auto& jw : jobs) {
    if (jw.show_job) emit(Row{&jw.job, nullptr, &jw.steps, options.now});
    for (const auto& st : jw.steps) emit(Row{&jw.job, &st, &jw.steps, options.now});
  }
  return out;
}

std::string renderHelpFormat() { return renderHelpFormatOf(sacctFields()); }

std::string renderHelpFormatOf(const std::vector<SacctField>& fields) {
  std::string out;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    std::string name(fields[i].name);
    name.resize(std::max<std::size_t>(name.size(), 19), ' ');
    out += name;
    out += (i % 4 == 3 || i + 1 == fields.size()) ? '\n' : ' ';
  }
  return out;
}

}  // namespace drover::acct::report
