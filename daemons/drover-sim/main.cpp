// drover-sim: replay an SWF trace through the scheduler in virtual time. Flags and wiring only.
#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "sim/gantt_svg.h"
#include "sim/report.h"
#include "sim/simulator.h"
#include "sim/swf.h"

int main(int argc, char** argv) {
  using namespace drover;
  CLI::App app{"drover-sim: replay a Standard Workload Format trace through Drover's scheduler"};
  std::string tracePath, policyName = "easy", csvPath;
  int nodes = 0, cpusPerNode = 0;
  bool json = false, skipBad = false, strict = false;
  app.add_option("--trace", tracePath, "SWF trace file")->required();
  app.add_option("--policy", policyName, "fcfs, easy or conservative")
      ->check(CLI::IsMember({"fcfs", "easy", "conservative"}));
  app.add_option("--nodes", nodes, "cluster size in nodes (default: the trace's MaxNodes)");
  app.add_option("--cpus-per-node", cpusPerNode,
                 "processors per node (default: MaxProcs / MaxNodes from the trace header)");
  app.add_flag("--json", json, "print one JSON object of metrics");
  app.add_option("--csv", csvPath, "write per-job records to this CSV file");
  auto* skip = app.add_flag("--skip-bad", skipBad, "skip bad trace lines, listing them on stderr");
  app.add_flag("--strict", strict, "stop at the first bad trace line (default)")->excludes(skip);
  size_t firstJob = 0, maxJobs = 0;
  app.add_option("--first-job", firstJob, "skip this many jobs of the trace (0-based window start)");
  app.add_option("--max-jobs", maxJobs, "replay at most this many jobs (a window of the trace)");
  std::string ganttPath, ganttWindowText;
  app.add_option("--gantt", ganttPath, "write an SVG Gantt chart of the schedule to this file");
  app.add_option("--gantt-window", ganttWindowText,
                 "START:END in seconds from the trace start: the chart's time window "
                 "(default: the whole replay)");
  CLI11_PARSE(app, argc, argv);
  std::optional<sim::GanttWindow> ganttWindow;
  if (!ganttWindowText.empty()) {
    auto w = sim::parseGanttWindow(ganttWindowText);
    if (!w) {
      std::cerr << "drover-sim: " << w.error() << "\n";
      return 1;
    }
    if (ganttPath.empty()) {
      std::cerr << "drover-sim: --gantt-window needs --gantt FILE.svg\n";
      return 1;
    }
    ganttWindow = *w;
  }

  std::ifstream in(tracePath);
  if (!in) {
    std::cerr << "drover-sim: cannot open trace \"" << tracePath << "\"\n";
    return 1;
  }
  auto trace = sim::parseSwf(in, sim::SwfOptions{!skipBad, tracePath});
  if (!trace) {
    std::cerr << "drover-sim: " << trace.error() << " (use --skip-bad to skip such lines)\n";
    return 1;
  }
  for (const auto& p : trace->problems) std::cerr << "drover-sim: skipped " << p << "\n";
  if (firstJob > 0 || maxJobs > 0) {
    auto& jobs = trace->jobs;
    size_t from = std::min(firstJob, jobs.size());
    size_t to = maxJobs > 0 ? std::min(jobs.size(), from + maxJobs) : jobs.size();
    jobs = std::vector<sim::SwfJob>(jobs.begin() + from, jobs.begin() + to);
  }

  sim::SimConfig config;
  int64_t maxProcs = trace->maxProcs;
  for (const auto& j : trace->jobs) maxProcs = std::max(maxProcs, trace->maxProcs > 0 ? 0 : j.procs);
  config.nodes = nodes > 0 ? nodes : static_cast<int>(trace->maxNodes > 0 ? trace->maxNodes : maxProcs);
  if (cpusPerNode <= 0) {
    cpusPerNode = (trace->maxNodes > 0 && trace->maxProcs > 0)
                      ? static_cast<int>(std::max<int64_t>(1, trace->maxProcs / trace->maxNodes))
                      : 1;
  }
  config.cpusPerNode = cpusPerNode;
  config.strict = !skipBad;
  config.params.policy = policyName == "fcfs"   ? sched::Policy::Fcfs
                         : policyName == "easy" ? sched::Policy::Easy
                                                : sched::Policy::Conservative;
  auto t0 = std::chrono::steady_clock::now();
  auto result = sim::simulate(*trace, config);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!result) {
    std::cerr << "drover-sim: " << tracePath << ": " << result.error()
              << " (use --skip-bad to skip such jobs, or a larger --nodes)\n";
    return 1;
  }
  for (const auto& p : result->problems) std::cerr << "drover-sim: skipped " << p << "\n";
  if (!csvPath.empty()) {
    std::ofstream out(csvPath);
    if (!out) {
      std::cerr << "drover-sim: cannot write \"" << csvPath << "\"\n";
      return 1;
    }
    sim::writeCsv(out, *result);
  }
  if (!ganttPath.empty()) {
    sim::GanttOptions g;
    g.nodes = config.nodes;
    if (ganttWindow) {
      g.window = *ganttWindow;
    } else {
      g.window = {0, 1};
      for (const auto& j : result->jobs) g.window.end = std::max(g.window.end, j.end);
    }
    g.title = std::filesystem::path(tracePath).filename().string() + ", " + policyName + ", " + std::to_string(config.nodes) + " nodes, " +
              std::to_string(g.window.start) + "-" + std::to_string(g.window.end) + " s";
    std::ofstream out(ganttPath);
    if (!out || !(out << sim::ganttSvg(result->jobs, g))) {
      std::cerr << "drover-sim: cannot write \"" << ganttPath << "\"\n";
      return 1;
    }
  }
  sim::ReportInfo info{tracePath, policyName, config.nodes, config.cpusPerNode, wall};
  if (json) {
    std::cout << sim::metricsJson(*result, info) << "\n";
  } else {
    const auto& m = result->metrics;
    std::cout << "jobs " << m.jobs << "\nutilization " << m.utilization << "\nmean_wait_s "
              << m.meanWaitS << "\nmax_wait_s " << m.maxWaitS << "\nmean_bounded_slowdown "
              << m.meanBoundedSlowdown << "\nwall_s " << wall << "\n";
  }
  return 0;
}
