#include "sim/gantt_svg.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace drover::sim {
namespace {

JobRecord job(int64_t id, int64_t start, int64_t end, std::vector<int> placement) {
  JobRecord r;
  r.id = id;
  r.start = start;
  r.end = end;
  r.runtime = end - start;
  r.nodes = static_cast<int>(placement.size());
  r.placement = std::move(placement);
  return r;
}

// Well-formed enough for any XML reader: one root, every element closed in order, attribute
// values quoted, no stray '<' or '&' in text.
::testing::AssertionResult wellFormed(const std::string& svg) {
  std::vector<std::string> open;
  size_t i = 0;
  int roots = 0;
  while (i < svg.size()) {
    if (svg[i] == '&') {
      size_t semi = svg.find(';', i);
      if (semi == std::string::npos || semi - i > 6) return ::testing::AssertionFailure() << "bare & at " << i;
    }
    if (svg[i] != '<') {
      ++i;
      continue;
    }
    size_t close = svg.find('>', i);
    if (close == std::string::npos) return ::testing::AssertionFailure() << "unclosed tag at " << i;
    std::string tag = svg.substr(i + 1, close - i - 1);
    if (tag.find('<') != std::string::npos) return ::testing::AssertionFailure() << "'<' inside tag " << tag;
    i = close + 1;
    if (tag.starts_with("?")) continue;
    if (tag.starts_with("/")) {
      if (open.empty() || open.back() != tag.substr(1)) {
        return ::testing::AssertionFailure() << "</" << tag.substr(1) << "> closes "
                                             << (open.empty() ? "nothing" : open.back());
      }
      open.pop_back();
      continue;
    }
    if (std::count(tag.begin(), tag.end(), '"') % 2 != 0) {
      return ::testing::AssertionFailure() << "unbalanced quotes in <" << tag << ">";
    }
    if (open.empty()) ++roots;
    if (!tag.ends_with("/")) open.push_back(tag.substr(0, tag.find_first_of(" \n")));
  }
  if (!open.empty()) return ::testing::AssertionFailure() << "<" << open.back() << "> never closed";
  if (roots != 1) return ::testing::AssertionFailure() << roots << " root elements";
  return ::testing::AssertionSuccess();
}

std::multiset<std::string> jobRects(const std::string& svg) {
  std::multiset<std::string> ids;
  const std::string mark = R"(<rect class="job" data-job=")";
  for (size_t at = svg.find(mark); at != std::string::npos; at = svg.find(mark, at + 1)) {
    const size_t from = at + mark.size();
    ids.insert(svg.substr(from, svg.find('"', from) - from));
  }
  return ids;
}

TEST(GanttSvg, OneRectanglePerJobInTheWindow) {
  std::vector<JobRecord> jobs = {
      job(1, 0, 100, {0, 1}),       // inside
      job(2, 50, 400, {2}),         // crosses the end: clipped
      job(3, 500, 600, {3}),        // after the window
      job(4, 0, 10, {3}),           // before it
      job(5, 90, 150, {0, 1, 2, 3}),
  };
  GanttOptions o;
  o.window = {20, 300};
  o.nodes = 4;
  o.title = "trace <a&b>, easy";
  const std::string svg = ganttSvg(jobs, o);
  EXPECT_TRUE(wellFormed(svg)) << svg;
  EXPECT_EQ(jobRects(svg), (std::multiset<std::string>{"1", "2", "5"}));
  EXPECT_NE(svg.find("trace &lt;a&amp;b&gt;, easy"), std::string::npos);
  EXPECT_NE(svg.find(">time (s since trace start)</text>"), std::string::npos);
  EXPECT_NE(svg.find(">node</text>"), std::string::npos);
  // Job 2 is clipped at the window's end: x from 50 s to 300 s of a 280 s window, 1000 wide.
  EXPECT_NE(svg.find(R"(data-job="2" x="177.14" y="290" width="892.86" height="125")"),
            std::string::npos)
      << svg;
}

TEST(GanttSvg, SplitsAJobOnNodesThatAreNotAdjacent) {
  GanttOptions o;
  o.window = {0, 100};
  o.nodes = 8;
  const std::string svg = ganttSvg({job(7, 0, 100, {0, 1, 5})}, o);
  EXPECT_TRUE(wellFormed(svg));
  EXPECT_EQ(jobRects(svg), (std::multiset<std::string>{"7", "7"}));
}

TEST(GanttSvg, ParsesTheWindow) {
  auto w = parseGanttWindow("86400:172800");
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->start, 86400);
  EXPECT_EQ(w->end, 172800);
  for (const char* bad : {"", "10", "10:", ":10", "a:b", "20:10", "5:5", "-5:10", "1:2:3"}) {
    auto r = parseGanttWindow(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.error().find("--gantt-window"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace drover::sim
