// Hostlist expressions with the semantics of Slurm 22.05's `scontrol show hostnames|hostlist|
// hostlistsorted`, derived from its documented and observed behaviour (see
// tests/unit/common/hostlist_test.cpp for the captured cases), not from its source.
#include "drover/hostlist.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>

namespace drover::hostlist {
namespace {

// A number inside brackets or a host's numeric suffix may have at most this many digits, so
// every value and value + 1 fits in uint64.
constexpr std::size_t kMaxDigits = 19;

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isSeparator(char c) { return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::uint64_t toNumber(std::string_view digits) {
  std::uint64_t v = 0;
  for (char c : digits) v = v * 10 + static_cast<std::uint64_t>(c - '0');
  return v;
}

std::size_t digitCount(std::uint64_t v) {
  std::size_t n = 1;
  while (v >= 10) {
    v /= 10;
    ++n;
  }
  return n;
}

// A number printed zero-padded to `width` digits, as Slurm prints hostlist numbers.
void appendPadded(std::string& out, std::uint64_t v, std::size_t width) {
  std::string digits = std::to_string(v);
  if (digits.size() < width) out.append(width - digits.size(), '0');
  out += digits;
}

// ---------------------------------------------------------------- expansion

struct Span {  // lo-hi inside brackets, printed with `width` digits
  std::uint64_t lo;
  std::uint64_t hi;
  std::size_t width;
};

struct Group {  // one bracket group: its spans and the literal text that precedes it
  std::string text_before;
  std::vector<Span> spans;
  std::uint64_t count = 0;
};

struct Term {  // one top-level item: text[...]text[...]...text
  std::vector<Group> groups;
  std::string tail;
};

Error syntaxError(std::string_view expr, std::size_t pos, std::string_view what) {
  return makeError("invalid hostlist '" + std::string(expr) + "' at position " +
                   std::to_string(pos + 1) + ": " + std::string(what) +
                   " (accepted: names and prefix[ranges] such as node[001-016,20], ranges "
                   "lo-hi with lo <= hi, items separated by commas)");
}

// Parses the bracket contents expr[begin, end) into spans.
Result<std::vector<Span>> parseSpans(std::string_view expr, std::size_t begin, std::size_t end) {
  std::vector<Span> spans;
  std::size_t pos = begin;
  if (begin == end) return syntaxError(expr, begin, "empty brackets");
  while (true) {
    auto readNumber = [&](std::string_view role) -> Result<std::string_view> {
      std::size_t start = pos;
      while (pos < end && isDigit(expr[pos])) ++pos;
      if (pos == start) {
        if (pos == end || expr[pos] == ',')
          return syntaxError(expr, start, "missing " + std::string(role) + " number in range");
        return syntaxError(expr, start,
                           "unexpected '" + std::string(1, expr[start]) + "' in range; " +
                               std::string(role) + " must be a non-negative decimal number");
      }
      if (pos - start > kMaxDigits)
        return syntaxError(expr, start,
                           "number too long (at most " + std::to_string(kMaxDigits) + " digits)");
      return expr.substr(start, pos - start);
    };
    std::size_t item_start = pos;
    auto lo = readNumber("low");
    if (!lo) return Error{lo.error()};
    Span span{toNumber(*lo), toNumber(*lo), lo->size()};
    if (pos < end && expr[pos] == '-') {
      ++pos;
      auto hi = readNumber("high");
      if (!hi) return Error{hi.error()};
      span.hi = toNumber(*hi);
      if (pos < end && expr[pos] != ',')
        return syntaxError(expr, pos,
                           "unexpected '" + std::string(1, expr[pos]) +
                               "' in range; a step or other suffix is not accepted");
      if (span.hi < span.lo)
        return syntaxError(expr, item_start,
                           "reversed range " + std::string(*lo) + "-" + std::string(*hi) +
                               " (the low bound must not exceed the high bound)");
    }
    spans.push_back(span);
    if (pos == end) break;
    if (expr[pos] != ',')
      return syntaxError(expr, pos,
                         "unexpected '" + std::string(1, expr[pos]) +
                             "' in range; a step or other suffix is not accepted");
    ++pos;
    if (pos == end) return syntaxError(expr, pos, "missing number after ','");
  }
  return spans;
}

// Parses the top-level item expr[begin, end) (no separators inside brackets' outside).
Result<Term> parseTerm(std::string_view expr, std::size_t begin, std::size_t end) {
  Term term;
  std::size_t text_start = begin;
  std::size_t pos = begin;
  while (pos < end) {
    char c = expr[pos];
    if (c == ']') return syntaxError(expr, pos, "']' without a matching '['");
    if (c != '[') {
      ++pos;
      continue;
    }
    std::size_t close = pos + 1;
    while (close < end && expr[close] != ']' && expr[close] != '[') ++close;
    if (close == end) return syntaxError(expr, pos, "'[' without a matching ']'");
    if (expr[close] == '[') return syntaxError(expr, close, "nested '['");
    auto spans = parseSpans(expr, pos + 1, close);
    if (!spans) return Error{spans.error()};
    Group group;
    group.text_before = std::string(expr.substr(text_start, pos - text_start));
    group.spans = std::move(*spans);
    term.groups.push_back(std::move(group));
    pos = close + 1;
    text_start = pos;
  }
  term.tail = std::string(expr.substr(text_start, end - text_start));
  return term;
}

// Multiplication and addition that saturate, so a count past any limit stays past it.
std::uint64_t satMul(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a)
    return std::numeric_limits<std::uint64_t>::max();
  return a * b;
}
std::uint64_t satAdd(std::uint64_t a, std::uint64_t b) {
  return b > std::numeric_limits<std::uint64_t>::max() - a ? std::numeric_limits<std::uint64_t>::max()
                                                           : a + b;
}

// Slurm's order for several bracket groups g1..gk: gk varies fastest, then g1, g2, ...,
// g(k-1) slowest (`rack[1-2]-n[01-02]` -> rack1-n01, rack1-n02, rack2-n01, rack2-n02;
// `a[1-2]b[1-2]c[1-2]` -> a1b1c1, a1b1c2, a2b1c1, a2b1c2, a1b2c1, ...).
void expandTerm(const Term& term, std::vector<std::string>& out) {
  const std::size_t k = term.groups.size();
  if (k == 0) {
    out.push_back(term.tail);
    return;
  }
  // loop_order[0] is the fastest-varying group.
  std::vector<std::size_t> loop_order;
  loop_order.push_back(k - 1);
  for (std::size_t g = 0; g + 1 < k; ++g) loop_order.push_back(g);

  // Per group: current span index and current value.
  std::vector<std::size_t> span_idx(k, 0);
  std::vector<std::uint64_t> value(k);
  for (std::size_t g = 0; g < k; ++g) value[g] = term.groups[g].spans[0].lo;

  while (true) {
    std::string name;
    for (std::size_t g = 0; g < k; ++g) {
      name += term.groups[g].text_before;
      appendPadded(name, value[g], term.groups[g].spans[span_idx[g]].width);
    }
    name += term.tail;
    out.push_back(std::move(name));

    // Advance like an odometer in loop_order.
    std::size_t level = 0;
    for (; level < k; ++level) {
      std::size_t g = loop_order[level];
      const auto& spans = term.groups[g].spans;
      if (value[g] < spans[span_idx[g]].hi) {
        ++value[g];
        break;
      }
      if (span_idx[g] + 1 < spans.size()) {
        ++span_idx[g];
        value[g] = spans[span_idx[g]].lo;
        break;
      }
      span_idx[g] = 0;
      value[g] = spans[0].lo;
    }
    if (level == k) return;
  }
}

// ---------------------------------------------------------------- compression

struct Host {  // a host name split at its trailing digits
  std::string_view prefix;  // the whole name when it has no numeric suffix
  bool numbered = false;
  std::uint64_t number = 0;
  std::size_t width = 0;  // digits in the suffix as written
};

Host splitHost(std::string_view name) {
  std::size_t i = name.size();
  while (i > 0 && isDigit(name[i - 1])) --i;
  std::size_t digits = name.size() - i;
  if (digits == 0 || digits > kMaxDigits) return Host{name, false, 0, 0};
  return Host{name.substr(0, i), true, toNumber(name.substr(i)), digits};
}

struct Range {  // consecutive numbers with one prefix and width, or one unnumbered name
  std::string_view prefix;
  bool numbered = false;
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
  std::size_t width = 0;
};

// Two zero-padded numbers can share a range when one of their widths prints both exactly as
// written (9 and 10 share width 1; 09 and 10 share width 2; 009 and 10 cannot). Returns the
// width to use, preferring the narrower one.
std::optional<std::size_t> sharedWidth(std::uint64_t a, std::size_t wa, std::uint64_t b,
                                       std::size_t wb) {
  if (wa == wb) return wa;
  auto printsAs = [](std::uint64_t v, std::size_t w, std::size_t as) {
    return std::max(w, digitCount(v)) == std::max(as, digitCount(v));
  };
  std::size_t narrow = std::min(wa, wb), wide = std::max(wa, wb);
  for (std::size_t w : {narrow, wide})
    if (printsAs(a, w, wa) && printsAs(b, w, wb)) return w;
  return std::nullopt;
}

// Appends host h to ranges, extending the last range when h is its next number (Slurm's
// hostlist push: only forward, only onto the last range).
void pushHost(std::vector<Range>& ranges, const Host& h) {
  if (!ranges.empty() && h.numbered) {
    Range& tail = ranges.back();
    if (tail.numbered && tail.prefix == h.prefix && tail.hi + 1 == h.number) {
      if (auto w = sharedWidth(tail.lo, tail.width, h.number, h.width)) {
        tail.hi = h.number;
        tail.width = *w;
        return;
      }
    }
  }
  ranges.push_back(Range{h.prefix, h.numbered, h.number, h.number, h.width});
}

std::vector<Range> toRanges(const std::vector<std::string>& hosts) {
  std::vector<Range> ranges;
  for (const auto& name : hosts) {
    if (name.empty()) continue;
    pushHost(ranges, splitHost(name));
  }
  return ranges;
}

// Natural order of prefixes ("rack2-n" < "rack10-n"): digit runs compare by value, except
// that a run starting with '0' compares digit by digit as a fraction ("a01b" < "a1b"), the
// convention of the strnatcmp Slurm sorts with.
int naturalCompare(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (true) {
    if (i == a.size() || j == b.size()) {
      if (i == a.size() && j == b.size()) return 0;
      return i == a.size() ? -1 : 1;
    }
    char ca = a[i], cb = b[j];
    if (isDigit(ca) && isDigit(cb)) {
      std::size_t ea = i, eb = j;
      while (ea < a.size() && isDigit(a[ea])) ++ea;
      while (eb < b.size() && isDigit(b[eb])) ++eb;
      std::string_view ra = a.substr(i, ea - i), rb = b.substr(j, eb - j);
      if (ca == '0' || cb == '0') {
        // Fractional: first differing digit decides; a shorter run that is a prefix is less.
        std::size_t n = std::min(ra.size(), rb.size());
        for (std::size_t k = 0; k < n; ++k)
          if (ra[k] != rb[k]) return ra[k] < rb[k] ? -1 : 1;
        if (ra.size() != rb.size()) return ra.size() < rb.size() ? -1 : 1;
      } else {
        if (ra.size() != rb.size()) return ra.size() < rb.size() ? -1 : 1;
        if (ra != rb) return ra < rb ? -1 : 1;
      }
      i = ea;
      j = eb;
      continue;
    }
    if (ca != cb) return static_cast<unsigned char>(ca) < static_cast<unsigned char>(cb) ? -1 : 1;
    ++i;
    ++j;
  }
}

// Slurm's range order: prefix naturally; an unnumbered name before numbered ones of the same
// prefix; then Slurm compares low numbers when the widths can be shared, else puts the
// narrower width first. On the low number as printed that is exactly "shorter text first, then
// smaller number" (an unpadded 7 and 10 share a width; a padded 007 shares one only with other
// 3-digit text), which, unlike the pairwise rule, is a strict weak order std::stable_sort needs.
bool rangeLess(const Range& a, const Range& b) {
  if (int c = naturalCompare(a.prefix, b.prefix); c != 0) return c < 0;
  if (a.numbered != b.numbered) return !a.numbered;
  if (!a.numbered) return false;
  std::size_t la = std::max(a.width, digitCount(a.lo)), lb = std::max(b.width, digitCount(b.lo));
  if (la != lb) return la < lb;
  return a.lo < b.lo;
}

// After sorting, overlapping or adjacent ranges of one prefix and a shared width are merged
// the way Slurm's sorted hostlists come out: their hosts in ascending order, duplicates kept,
// packed greedily (n[1-3],n[2-5] -> n[1-2,2-3,3-5]).
std::vector<Range> coalesce(const std::vector<Range>& sorted) {
  std::vector<Range> out;
  std::size_t i = 0;
  while (i < sorted.size()) {
    const Range& first = sorted[i];
    std::size_t j = i + 1;
    if (!first.numbered) {
      out.push_back(first);
      i = j;
      continue;
    }
    std::size_t width = first.width;
    std::uint64_t max_hi = first.hi;
    bool overlap = false;
    while (j < sorted.size()) {
      const Range& next = sorted[j];
      if (!next.numbered || next.prefix != first.prefix || next.lo > max_hi + 1) break;
      auto w = sharedWidth(first.lo, width, next.lo, next.width);
      if (!w) break;
      width = *w;
      if (next.lo <= max_hi) overlap = true;
      max_hi = std::max(max_hi, next.hi);
      ++j;
    }
    if (!overlap) {
      // Only touching ranges: they join end to end.
      Range joined = first;
      joined.width = width;
      joined.hi = max_hi;
      out.push_back(joined);
      i = j;
      continue;
    }
    // Overlapping: count how many times each number occurs (a sweep over range ends, so the
    // cost follows the number of ranges and hosts, not the span of numbers squared), then
    // deal the hosts out greedily in ascending order.
    std::vector<std::pair<std::uint64_t, int>> events;  // (number, +1 start / -1 after end)
    for (std::size_t k = i; k < j; ++k) {
      events.emplace_back(sorted[k].lo, +1);
      events.emplace_back(sorted[k].hi + 1, -1);
    }
    std::sort(events.begin(), events.end());
    std::size_t group_start = out.size();
    int depth = 0;
    std::size_t e = 0;
    while (e < events.size()) {
      std::uint64_t at = events[e].first;
      while (e < events.size() && events[e].first == at) depth += events[e++].second;
      if (depth == 0 || e == events.size()) continue;
      std::uint64_t until = events[e].first - 1;  // depth is constant on [at, until]
      // Pushing the `depth` copies of v in order: the first extends the last range when that
      // ends at v - 1; the other copies cannot extend anything and start ranges of their own.
      for (std::uint64_t v = at;; ++v) {
        for (int c = 0; c < depth; ++c) {
          if (out.size() > group_start && c == 0 && out.back().hi + 1 == v) {
            out.back().hi = v;
          } else {
            out.push_back(Range{first.prefix, true, v, v, width});
          }
        }
        if (v == until) break;
      }
    }
    i = j;
  }
  return out;
}

std::string print(const std::vector<Range>& ranges) {
  std::string out;
  std::size_t i = 0;
  while (i < ranges.size()) {
    if (!out.empty()) out += ',';
    const Range& r = ranges[i];
    out += r.prefix;
    if (!r.numbered) {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    while (j < ranges.size() && ranges[j].numbered && ranges[j].prefix == r.prefix) ++j;
    bool brackets = j - i > 1 || r.lo != r.hi;
    if (brackets) out += '[';
    for (std::size_t k = i; k < j; ++k) {
      if (k > i) out += ',';
      appendPadded(out, ranges[k].lo, ranges[k].width);
      if (ranges[k].hi != ranges[k].lo) {
        out += '-';
        appendPadded(out, ranges[k].hi, ranges[k].width);
      }
    }
    if (brackets) out += ']';
    i = j;
  }
  return out;
}

std::vector<Range> sortedRanges(const std::vector<std::string>& hosts) {
  std::vector<Range> ranges = toRanges(hosts);
  std::stable_sort(ranges.begin(), ranges.end(), rangeLess);
  return coalesce(ranges);
}

}  // namespace

Result<std::vector<std::string>> expand(std::string_view expr, std::size_t max_hosts) {
  std::vector<Term> terms;
  std::uint64_t total = 0;
  std::size_t pos = 0;
  while (pos < expr.size()) {
    if (isSeparator(expr[pos])) {
      ++pos;
      continue;
    }
    std::size_t begin = pos;
    int depth = 0;
    while (pos < expr.size() && (depth > 0 || !isSeparator(expr[pos]))) {
      if (expr[pos] == '[') ++depth;
      if (expr[pos] == ']') depth = depth > 0 ? depth - 1 : 0;
      ++pos;
    }
    auto term = parseTerm(expr, begin, pos);
    if (!term) return Error{term.error()};
    std::uint64_t count = 1;
    for (auto& g : term->groups) {
      g.count = 0;
      for (const auto& s : g.spans) g.count = satAdd(g.count, s.hi - s.lo + 1);
      count = satMul(count, g.count);
    }
    total = satAdd(total, count);
    if (total > max_hosts)
      return makeError("hostlist '" + std::string(expr) + "' expands to more than " +
                       std::to_string(max_hosts) + " hosts (the most accepted at once)");
    terms.push_back(std::move(*term));
  }
  if (terms.empty())
    return makeError("empty hostlist '" + std::string(expr) +
                     "' (accepted: at least one name, such as node01 or node[01-16])");
  std::vector<std::string> out;
  out.reserve(static_cast<std::size_t>(total));
  for (const auto& t : terms) expandTerm(t, out);
  return out;
}

std::string compress(const std::vector<std::string>& hosts) { return print(toRanges(hosts)); }

std::string compressSorted(std::vector<std::string> hosts) { return print(sortedRanges(hosts)); }

void sortHosts(std::vector<std::string>& hosts) {
  std::vector<std::string> sorted;
  sorted.reserve(hosts.size());
  for (const Range& r : sortedRanges(hosts)) {
    if (!r.numbered) {
      sorted.emplace_back(r.prefix);
      continue;
    }
    for (std::uint64_t v = r.lo;; ++v) {
      std::string name(r.prefix);
      appendPadded(name, v, r.width);
      sorted.push_back(std::move(name));
      if (v == r.hi) break;
    }
  }
  hosts = std::move(sorted);
}

}  // namespace drover::hostlist
