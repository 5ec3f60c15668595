#include "sim/gantt_svg.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string_view>

namespace drover::sim {

namespace {

constexpr double kLeft = 70, kTop = 40, kBottom = 50, kRight = 20;

std::string escapeXml(std::string_view in) {
  std::string out;
  for (char c : in) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

// Spread hues by the golden angle so neighbouring job ids get distinct colours.
std::string colourOf(int64_t id) {
  const double hue = std::fmod(static_cast<double>(static_cast<uint64_t>(id) % 100000) * 137.508, 360.0);
  const int lightness = 45 + static_cast<int>(static_cast<uint64_t>(id) % 3) * 10;
  return "hsl(" + num(hue) + ",65%," + std::to_string(lightness) + "%)";
}

// A round step for about `target` ticks over `span`: 1, 2 or 5 times a power of ten.
int64_t tickStep(int64_t span, int target) {
  int64_t step = 1;
  while (true) {
    for (int64_t m : {1, 2, 5}) {
      if (span / (step * m) <= target) return step * m;
    }
    step *= 10;
  }
}

bool parseInt(std::string_view text, int64_t& out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size() && !text.empty();
}

}  // namespace

Result<GanttWindow> parseGanttWindow(const std::string& text) {
  const auto colon = text.find(':');
  GanttWindow w;
  if (colon == std::string::npos ||
      !parseInt(std::string_view(text).substr(0, colon), w.start) ||
      !parseInt(std::string_view(text).substr(colon + 1), w.end)) {
    return makeError("--gantt-window \"" + text +
                     "\": expected START:END in whole seconds from the trace start, e.g. 0:86400");
  }
  if (w.start < 0 || w.end <= w.start) {
    return makeError("--gantt-window \"" + text + "\": START must be >= 0 and END after START");
  }
  return w;
}

std::string ganttSvg(const std::vector<JobRecord>& jobs, const GanttOptions& o) {
  const int64_t t0 = o.window.start, t1 = o.window.end;
  const int rows = std::max(1, o.nodes);
  const double w = o.width, h = o.height;
  const double xScale = w / static_cast<double>(t1 - t0), rowH = h / rows;
  auto x = [&](int64_t t) { return kLeft + static_cast<double>(std::clamp(t, t0, t1) - t0) * xScale; };
  auto y = [&](int row) { return kTop + row * rowH; };

  std::string out;
  out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(kLeft + w + kRight) +
         "\" height=\"" + num(kTop + h + kBottom) + "\" viewBox=\"0 0 " + num(kLeft + w + kRight) +
         " " + num(kTop + h + kBottom) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  out += "<title>" + escapeXml(o.title) + "</title>\n";
  out += "<text x=\"" + num(kLeft) + "\" y=\"20\" font-size=\"14\">" + escapeXml(o.title) + "</text>\n";
  out += "<rect x=\"" + num(kLeft) + "\" y=\"" + num(kTop) + "\" width=\"" + num(w) +
         "\" height=\"" + num(h) + "\" fill=\"#f4f4f4\" stroke=\"#888\"/>\n";
  out += "<g stroke=\"#222\" stroke-width=\"0.2\">\n";
  for (const JobRecord& j : jobs) {
    if (j.placement.empty() || j.start >= t1 || j.end <= t0 || j.end <= j.start) continue;
    const std::string fill = colourOf(j.id);
    const std::string label = "job " + std::to_string(j.id) + ": " + std::to_string(j.start) +
                              "-" + std::to_string(j.end) + " s, " +
                              std::to_string(j.placement.size()) + " node(s)";
    // One rectangle per run of adjacent nodes.
    for (size_t a = 0; a < j.placement.size();) {
      size_t b = a + 1;
      while (b < j.placement.size() && j.placement[b] == j.placement[b - 1] + 1) ++b;
      out += "<rect class=\"job\" data-job=\"" + std::to_string(j.id) + "\" x=\"" +
             num(x(j.start)) + "\" y=\"" + num(y(j.placement[a])) + "\" width=\"" +
             num(x(j.end) - x(j.start)) + "\" height=\"" +
             num(rowH * static_cast<double>(j.placement[b - 1] - j.placement[a] + 1)) +
             "\" fill=\"" + fill + "\"><title>" + label + "</title></rect>\n";
      a = b;
    }
  }
  out += "</g>\n";
  // Axes: time ticks below, node ticks on the left, and what each axis measures.
  out += "<g stroke=\"#444\" fill=\"#222\">\n";
  const int64_t tStep = tickStep(t1 - t0, 8);
  for (int64_t t = (t0 + tStep - 1) / tStep * tStep; t <= t1; t += tStep) {
    out += "<line x1=\"" + num(x(t)) + "\" y1=\"" + num(kTop + h) + "\" x2=\"" + num(x(t)) +
           "\" y2=\"" + num(kTop + h + 5) + "\"/><text stroke=\"none\" text-anchor=\"middle\" x=\"" +
           num(x(t)) + "\" y=\"" + num(kTop + h + 18) + "\">" + std::to_string(t) + "</text>\n";
  }
  const int64_t nStep = tickStep(rows, 10);
  for (int64_t n = 0; n < rows; n += nStep) {
    const double ny = y(static_cast<int>(n)) + rowH / 2;
    out += "<line x1=\"" + num(kLeft - 5) + "\" y1=\"" + num(ny) + "\" x2=\"" + num(kLeft) +
           "\" y2=\"" + num(ny) + "\"/><text stroke=\"none\" text-anchor=\"end\" x=\"" +
           num(kLeft - 8) + "\" y=\"" + num(ny + 4) + "\">" + std::to_string(n) + "</text>\n";
  }
  out += "</g>\n";
  out += "<text x=\"" + num(kLeft + w / 2) + "\" y=\"" + num(kTop + h + 40) +
         "\" text-anchor=\"middle\">time (s since trace start)</text>\n";
  out += "<text transform=\"translate(16 " + num(kTop + h / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">node</text>\n";
  out += "</svg>\n";
  return out;
}

}  // namespace drover::sim
