#include "sim/swf.h"

#include <charconv>
#include <sstream>

namespace drover::sim {

namespace {

bool parseInt(const std::string& s, int64_t& out) {
  // SWF writes some integer fields with a decimal part ("-1.00", "3600.0").
  const char* b = s.data();
  const char* e = s.data() + s.size();
  auto [p, ec] = std::from_chars(b, e, out);
  if (ec != std::errc()) return false;
  if (p == e) return true;
  if (*p != '.') return false;
  for (++p; p != e; ++p) {
    if (*p < '0' || *p > '9') return false;
  }
  return true;
}

void headerValue(const std::string& line, const char* key, int64_t& out) {
  auto pos = line.find(key);
  if (pos == std::string::npos) return;
  std::istringstream rest(line.substr(pos + std::char_traits<char>::length(key)));
  int64_t v = 0;
  if (rest >> v) out = v;
}

}  // namespace

Result<SwfTrace> parseSwf(std::istream& in, const SwfOptions& options) {
  SwfTrace trace;
  std::string line;
  int lineNo = 0;
  std::vector<std::string> fields;
  while (std::getline(in, line)) {
    ++lineNo;
    size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    if (line[first] == ';') {
      headerValue(line, "MaxNodes:", trace.maxNodes);
      headerValue(line, "MaxProcs:", trace.maxProcs);
      continue;
    }
    auto bad = [&](const std::string& why) -> bool {
      std::string msg = options.name + ":" + std::to_string(lineNo) + ": " + why;
      trace.problems.push_back(std::move(msg));
      return options.strict;
    };
    fields.clear();
    std::istringstream ls(line);
    for (std::string f; ls >> f;) fields.push_back(f);
    if (fields.size() != 18) {
      if (bad("expected 18 whitespace-separated fields, found " + std::to_string(fields.size())))
        return makeError(trace.problems.back());
      continue;
    }
    int64_t v[18];
    int badField = -1;
    for (int i = 0; i < 18; ++i) {
      if (!parseInt(fields[i], v[i])) {
        badField = i;
        break;
      }
    }
    if (badField >= 0) {
      if (bad("field " + std::to_string(badField + 1) + " \"" + fields[badField] +
              "\" is not a number"))
        return makeError(trace.problems.back());
      continue;
    }
    SwfJob job;
    job.id = v[0];
    job.submit = v[1];
    job.runtime = v[3];
    job.procs = v[7] > 0 ? v[7] : v[4];
    job.requestedTime = v[8] > 0 ? v[8] : v[3];
    job.user = v[11];
    job.partition = v[15];
    job.line = lineNo;
    if (job.runtime <= 0) {
      ++trace.notRun;  // cancelled before start or failed at once: nothing to schedule
      continue;
    }
    if (job.submit < 0) {
      if (bad("negative submit time " + std::to_string(job.submit)))
        return makeError(trace.problems.back());
      continue;
    }
    if (job.procs <= 0) {
      if (bad("job " + std::to_string(job.id) +
              " ran but has no processor count (fields 5 and 8 are " + fields[4] + " and " +
              fields[7] + "; a positive count is needed)"))
        return makeError(trace.problems.back());
      continue;
    }
    trace.jobs.push_back(job);
  }
  return trace;
}

}  // namespace drover::sim
