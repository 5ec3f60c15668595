#pragma once
// A schedule picture: an SVG Gantt chart of the jobs that ran in a time window, x = time,
// y = nodes, one rectangle per job and run of adjacent nodes it held, coloured per job. Pure
// code over the simulator's records (drover-sim --gantt writes the result to a file).
#include <cstdint>
#include <string>
#include <vector>

#include "drover/result.h"
#include "sim/simulator.h"

namespace drover::sim {

struct GanttWindow {
  int64_t start = 0;  // seconds, on the trace's clock (SWF times count from the trace's start)
  int64_t end = 0;
};

// "START:END" in whole seconds with START < END, e.g. "86400:172800".
Result<GanttWindow> parseGanttWindow(const std::string& text);

struct GanttOptions {
  GanttWindow window;
  int nodes = 0;  // rows: node positions 0..nodes-1
  std::string title;
  int width = 1000;  // of the plot area, in SVG user units
  int height = 500;
};

// Every job with start < window.end and end > window.start and a placement gets its
// rectangles, clipped to the window; each carries class="job" and data-job="<trace id>".
std::string ganttSvg(const std::vector<JobRecord>& jobs, const GanttOptions& options);

}  // namespace drover::sim
