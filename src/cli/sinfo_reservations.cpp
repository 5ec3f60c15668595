#include "cli/sinfo_reservations.h"

#include <algorithm>
#include <utility>

#include "cli/format_spec.h"
#include "cli/node_values.h"
#include "drover/hostlist.h"
#include "drover/time_spec.h"

namespace drover::cli {
namespace {

constexpr std::string_view kNameHeader = "RESV_NAME";

std::string padLeft(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

}  // namespace

std::string renderSinfoReservations(const SinfoOptions& o,
                                    const std::vector<v1::ReservationInfo>& reservations,
                                    std::int64_t now) {
  std::string out;
  if (printsDateLine(o)) out += dateLine(now) + "\n";
  if (reservations.empty()) return out + "No reservations in the system\n";
  // The name column is as wide as its header or the longest name; without the header the
  // reference Slurm keeps it at the header's width, longer names pushing the row right.
  std::size_t name_width = kNameHeader.size();
  if (!o.no_header) {
    for (const auto& r : reservations) name_width = std::max(name_width, r.name().size());
  }
  auto row = [&](const std::string& name, const std::string& state, const std::string& start,
                 const std::string& end, const std::string& duration, const std::string& nodes) {
    std::string line = name;
    line.resize(std::max(name.size(), name_width), ' ');
    // Two spaces before each further column; a longer value widens its row, as Slurm's.
    for (const auto& [value, width] : {std::pair{&state, 8}, {&start, 19}, {&end, 19}, {&duration, 11}}) {
      line += "  " + padLeft(*value, static_cast<std::size_t>(width));
    }
    return line + "  " + nodes + "\n";
  };
  if (!o.no_header) {
    out += row(std::string(kNameHeader), "STATE", "START_TIME", "END_TIME", "DURATION", "NODELIST");
  }
  for (const auto& r : reservations) {
    out += row(r.name(), r.active() ? "ACTIVE" : "INACTIVE", formatIsoTime(r.start_time()),
               formatIsoTime(r.end_time()), formatDuration(r.end_time() - r.start_time()),
               r.nodes().empty() ? std::string("(null)")
                                 : hostlist::compressSorted({r.nodes().begin(), r.nodes().end()}));
  }
  return out;
}

}  // namespace drover::cli
