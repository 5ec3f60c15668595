// Hostlist invariants: any expression either fails cleanly or expands to hosts that survive
// compress -> expand unchanged (in order), and sorted compression keeps every host.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "drover/hostlist.h"
#include "fuzz_check.h"

namespace {

using drover::hostlist::compress;
using drover::hostlist::compressSorted;
using drover::hostlist::expand;
using drover::hostlist::sortHosts;

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += s + " ";
  return out;
}

void checkRoundTrips(const std::vector<std::string>& hosts) {
  std::string packed = compress(hosts);
  auto back = expand(packed, hosts.size() + 1);
  if (hosts.empty()) {
    FUZZ_CHECK(packed.empty(), "compress of nothing gave '%s'", packed.c_str());
    return;
  }
  FUZZ_CHECK(back.ok(), "compress output '%s' does not expand: %s", packed.c_str(),
             back.error().c_str());
  FUZZ_CHECK(*back == hosts, "expand(compress(x)) != x\n x: %s\n compressed: %s\n back: %s",
             join(hosts).c_str(), packed.c_str(), join(*back).c_str());
  FUZZ_CHECK(compress(*back) == packed, "compress is not stable: '%s'", packed.c_str());

  std::string sorted_packed = compressSorted(hosts);
  auto sorted_back = expand(sorted_packed, hosts.size() + 1);
  FUZZ_CHECK(sorted_back.ok(), "compressSorted output '%s' does not expand: %s",
             sorted_packed.c_str(), sorted_back.error().c_str());
  std::vector<std::string> sorted = hosts;
  sortHosts(sorted);
  FUZZ_CHECK(*sorted_back == sorted, "sortHosts and compressSorted disagree on '%s'",
             sorted_packed.c_str());
  std::vector<std::string> a = sorted, b = hosts;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  FUZZ_CHECK(a == b, "sorting lost or invented hosts: '%s'", sorted_packed.c_str());
  // compressSorted(sorted) may differ from sorted_packed when one prefix mixes zero-padded
  // and unpadded numbers (n06,n9,n10): Slurm's order depends on how the hosts first formed
  // ranges, and Drover keeps that order (see hostlist_test.cpp).
}

bool plainName(std::string_view h) {
  if (h.empty()) return false;
  for (char c : h)
    if (c == '[' || c == ']' || c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r')
      return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0 || size > 1024) return 0;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) {
    // The input is a host list in order, newline-separated.
    std::vector<std::string> hosts;
    std::size_t start = 0;
    while (start <= text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      std::string_view h = text.substr(start, end - start);
      if (plainName(h)) hosts.emplace_back(h);
      start = end + 1;
    }
    checkRoundTrips(hosts);
    return 0;
  }
  // The input is an expression.
  auto hosts = expand(text, 512);
  if (!hosts.ok()) {
    FUZZ_CHECK(!hosts.error().empty(), "empty error message");
    return 0;
  }
  FUZZ_CHECK(!hosts->empty(), "an accepted expression named no host");
  for (const auto& h : *hosts) FUZZ_CHECK(plainName(h), "expanded a bad name '%s'", h.c_str());
  checkRoundTrips(*hosts);
  return 0;
}
