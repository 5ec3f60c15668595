#pragma once
// sinfo -T/--reservation: the reservations instead of partitions and nodes, as Slurm 22.05's
// sinfo prints them (its other options, -o among them, do not apply; -l and -i still put the
// date line above the header).
#include <cstdint>
#include <string>
#include <vector>

#include "cli/sinfo_view.h"
#include "drover/v1/reservations.pb.h"

namespace drover::cli {

std::string renderSinfoReservations(const SinfoOptions& options,
                                    const std::vector<v1::ReservationInfo>& reservations,
                                    std::int64_t now);

}  // namespace drover::cli
