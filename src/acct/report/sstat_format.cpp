// sstat's field table. Most values are sacct's for a step row (the same records, the same
// units: sizes in K, CPU as a duration, TRES strings); sstat's own differ as Slurm 22.05's do
// (checked on the reference cluster): pages and disk bytes as plain numbers, Nodelist and
// Pids, ReqCPUFreq, and --noconvert sizes in bytes.
#include "acct/report/sstat_format.h"

#include <functional>
#include <optional>

#include "acct/report/sacct_values.h"

namespace drover::acct::report {
namespace {

struct Context {
  const SstatRow& row;
  const JobRecord& job;   // holds the job id only: sacct's value functions read it for JobID
  bool noconvert;
};

using SstatValueFn = std::function<std::string(const Context&)>;

struct SstatFieldDef {
  SacctField field;
  SstatValueFn value;
};

// sacct's value of field `name` for the step's row.
SstatValueFn sacct(std::string_view name) {
  const auto& table = fieldTable();
  for (const auto& def : table) {
    if (def.field.name == name) {
      return [fn = def.value](const Context& c) {
        return fn(Row{&c.job, &c.row.step, nullptr, 0});
      };
    }
  }
  return [](const Context&) { return std::string(); };
}

// A size in K as sacct prints it, or in bytes under --noconvert; blank when not measured.
SstatValueFn sizeKb(std::optional<std::int64_t> Usage::*member) {
  return [member](const Context& c) -> std::string {
    const auto& v = c.row.step.usage.*member;
    if (!v) return {};
    return c.noconvert ? std::to_string(*v * 1024) : formatSizeKb(*v);
  };
}

SstatValueFn plain(std::optional<std::int64_t> Usage::*member) {
  return [member](const Context& c) -> std::string {
    const auto& v = c.row.step.usage.*member;
    return v ? std::to_string(*v) : std::string();
  };
}

// Disk figures travel in MB (sacct's unit); sstat prints bytes.
SstatValueFn bytes(std::optional<double> Usage::*member) {
  return [member](const Context& c) -> std::string {
    const auto& v = c.row.step.usage.*member;
    if (!v) return {};
    return std::to_string(static_cast<std::int64_t>(*v * 1024.0 * 1024.0 + 0.5));
  };
}

std::string pidList(const std::vector<int>& pids) {
  std::string out;
  for (int pid : pids) out += (out.empty() ? "" : ",") + std::to_string(pid);
  return out;
}

const std::vector<SstatFieldDef>& table() {
  static const std::vector<SstatFieldDef> kTable = {
      {{"AveCPU", 10, false}, sacct("AveCPU")},
      {{"AveCPUFreq", 10, false}, sacct("AveCPUFreq")},
      {{"AveDiskRead", 12, false}, bytes(&Usage::ave_disk_read_mb)},
      {{"AveDiskWrite", 12, false}, bytes(&Usage::ave_disk_write_mb)},
      {{"AvePages", 10, false}, plain(&Usage::ave_pages)},
      {{"AveRSS", 10, false}, sizeKb(&Usage::ave_rss_kb)},
      {{"AveVMSize", 10, false}, sizeKb(&Usage::ave_vmsize_kb)},
      {{"ConsumedEnergy", 14, false}, sacct("ConsumedEnergy")},
      {{"ConsumedEnergyRaw", 17, false}, sacct("ConsumedEnergyRaw")},
      {{"JobID", 12, true},
       [](const Context& c) {
         return std::to_string(c.row.step.job_id) + "." + stepIdName(c.row.step.step_id);
       }},
      {{"MaxDiskRead", 12, false}, bytes(&Usage::max_disk_read_mb)},
      {{"MaxDiskReadNode", 15, false}, sacct("MaxDiskReadNode")},
      {{"MaxDiskReadTask", 15, false}, sacct("MaxDiskReadTask")},
      {{"MaxDiskWrite", 12, false}, bytes(&Usage::max_disk_write_mb)},
      {{"MaxDiskWriteNode", 16, false}, sacct("MaxDiskWriteNode")},
      {{"MaxDiskWriteTask", 16, false}, sacct("MaxDiskWriteTask")},
      {{"MaxPages", 8, false}, plain(&Usage::max_pages)},
      {{"MaxPagesNode", 12, false}, sacct("MaxPagesNode")},
      {{"MaxPagesTask", 14, false}, sacct("MaxPagesTask")},
      {{"MaxRSS", 10, false}, sizeKb(&Usage::max_rss_kb)},
      {{"MaxRSSNode", 10, false}, sacct("MaxRSSNode")},
      {{"MaxRSSTask", 10, false}, sacct("MaxRSSTask")},
      {{"MaxVMSize", 10, false}, sizeKb(&Usage::max_vmsize_kb)},
      {{"MaxVMSizeNode", 14, false}, sacct("MaxVMSizeNode")},
      {{"MaxVMSizeTask", 14, false}, sacct("MaxVMSizeTask")},
      {{"MinCPU", 10, false}, sacct("MinCPU")},
      {{"MinCPUNode", 10, false}, sacct("MinCPUNode")},
      {{"MinCPUTask", 10, false}, sacct("MinCPUTask")},
      {{"Nodelist", 20, false}, [](const Context& c) { return c.row.step.node_list; }},
      {{"NTasks", 8, false}, sacct("NTasks")},
      {{"Pids", 20, false}, [](const Context& c) { return pidList(c.row.pids); }},
      {{"ReqCPUFreq", 10, false}, sacct("ReqCPUFreq")},
      {{"ReqCPUFreqMin", 13, false}, sacct("ReqCPUFreqMin")},
      {{"ReqCPUFreqMax", 13, false}, sacct("ReqCPUFreqMax")},
      {{"ReqCPUFreqGov", 13, false}, sacct("ReqCPUFreqGov")},
      {{"TRESUsageInAve", 14, false}, sacct("TRESUsageInAve")},
      {{"TRESUsageInMax", 14, false}, sacct("TRESUsageInMax")},
      {{"TRESUsageInMaxNode", 18, false}, sacct("TRESUsageInMaxNode")},
      {{"TRESUsageInMaxTask", 18, false}, sacct("TRESUsageInMaxTask")},
      {{"TRESUsageInMin", 14, false}, sacct("TRESUsageInMin")},
      {{"TRESUsageInMinNode", 18, false}, sacct("TRESUsageInMinNode")},
      {{"TRESUsageInMinTask", 18, false}, sacct("TRESUsageInMinTask")},
      {{"TRESUsageInTot", 14, false}, sacct("TRESUsageInTot")},
      {{"TRESUsageOutAve", 15, false}, sacct("TRESUsageOutAve")},
      {{"TRESUsageOutMax", 15, false}, sacct("TRESUsageOutMax")},
      {{"TRESUsageOutMaxNode", 19, false}, sacct("TRESUsageOutMaxNode")},
      {{"TRESUsageOutMaxTask", 19, false}, sacct("TRESUsageOutMaxTask")},
      {{"TRESUsageOutMin", 15, false}, [](const Context& c) { return c.row.tres_usage_out_min; }},
      {{"TRESUsageOutMinNode", 19, false},
       [](const Context& c) { return c.row.tres_usage_out_min_node; }},
      {{"TRESUsageOutMinTask", 19, false},
       [](const Context& c) { return c.row.tres_usage_out_min_task; }},
      {{"TRESUsageOutTot", 15, false}, sacct("TRESUsageOutTot")},
  };
  return kTable;
}

std::vector<Column> columnsNamed(std::initializer_list<std::string_view> names) {
  std::vector<Column> out;
  for (auto name : names) {
    for (const auto& f : sstatFields()) {
      if (f.name == name) out.push_back(Column{&f, f.width, f.left});
    }
  }
  return out;
}

}  // namespace

const std::vector<SacctField>& sstatFields() {
  static const std::vector<SacctField> kFields = [] {
    std::vector<SacctField> v;
    for (const auto& d : table()) v.push_back(d.field);
    return v;
  }();
  return kFields;
}

Result<std::vector<Column>> parseSstatFormat(std::string_view spec) {
  return parseFormatOver(spec, sstatFields(), "");
}

std::vector<Column> sstatDefaultColumns() {
  return columnsNamed(
      {"JobID",          "MaxVMSize",          "MaxVMSizeNode",      "MaxVMSizeTask",
       "AveVMSize",      "MaxRSS",             "MaxRSSNode",         "MaxRSSTask",
       "AveRSS",         "MaxPages",           "MaxPagesNode",       "MaxPagesTask",
       "AvePages",       "MinCPU",             "MinCPUNode",         "MinCPUTask",
       "AveCPU",         "NTasks",             "AveCPUFreq",         "ReqCPUFreqMin",
       "ReqCPUFreqMax",  "ReqCPUFreqGov",      "ConsumedEnergy",     "MaxDiskRead",
       "MaxDiskReadNode", "MaxDiskReadTask",   "AveDiskRead",        "MaxDiskWrite",
       "MaxDiskWriteNode", "MaxDiskWriteTask", "AveDiskWrite",       "TRESUsageInAve",
       "TRESUsageInMax", "TRESUsageInMaxNode", "TRESUsageInMaxTask", "TRESUsageInMin",
       "TRESUsageInMinNode", "TRESUsageInMinTask", "TRESUsageInTot", "TRESUsageOutAve",
       "TRESUsageOutMax", "TRESUsageOutMaxNode", "TRESUsageOutMaxTask", "TRESUsageOutMin",
       "TRESUsageOutMinNode", "TRESUsageOutMinTask", "TRESUsageOutTot"});
}

std::vector<Column> sstatPidColumns() { return columnsNamed({"JobID", "Nodelist", "Pids"}); }

std::string renderSstat(const std::vector<SstatRow>& rows, const std::vector<Column>& columns,
                        const SstatOptions& options) {
  std::string out;
  if (options.header) appendHeader(out, columns, options.parsable);
  const auto& fields = sstatFields();
  std::vector<std::string> cells(columns.size());
  for (const auto& row : rows) {
    JobRecord job;
    job.job_id = row.step.job_id;
    const Context context{row, job, options.noconvert};
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const auto index = static_cast<std::size_t>(columns[i].field - fields.data());
      cells[i] = table()[index].value(context);
    }
    appendLine(out, cells, columns, options.parsable);
  }
  return out;
}

std::string renderSstatHelpFormat() { return renderHelpFormatOf(sstatFields()); }

}  // namespace drover::acct::report
