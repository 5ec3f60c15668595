#pragma once
// sprio's output: the factors of each pending job's multifactor priority, weighted (default) or
// normalised (-n), in Slurm 22.05's formats, or the configured weights (-w).
#include <string>
#include <vector>

#include "drover/result.h"
#include "drover/v1/priority.pb.h"

namespace drover::cli {

// The defaults: sprio(1)'s (the short one without ASSOC and TRES, which renderSprio adds when
// they have weights) and, for -n, the reference's: left-justified factors, no SITE or NICE.
inline constexpr const char* kSprioDefaultFormat =
    "%.15i %9r %.10Y %.10S %.10A %.10F %.10J %.10P %.10Q";
inline constexpr const char* kSprioLongFormat =
    "%.15i %9r %.8u %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10Q %.11N %.20T";
inline constexpr const char* kSprioNormFormat = "%.15i %9r %10y %10a %10f %10j %10p %10q";
inline constexpr const char* kSprioNormLongFormat =
    "%.15i %9r %.8u %10y %10a %10b %10f %10j %10p %10q %20t";

struct SprioOptions {
  std::string format;  // -o; "" = the default for -l / -n
  std::string sort;    // -S, e.g. "u,-y"; "" = job id
  bool long_format = false;
  bool norm = false;
  bool no_header = false;
  bool weights = false;
  bool users = false;  // -u was given: the short defaults show USER too, as the reference's
};

// The whole output. Fails on an unknown sort key, naming it. An unknown format letter is left
// out with the text after it, and named in `warnings` ("Invalid job format specification: Z"),
// as the reference's sprio printed `%i %Z %Y` as `JOBID PRIORITY`, exit 0.
Result<std::string> renderSprio(const SprioOptions& options, const v1::GetPrioritiesReply& reply,
                                std::vector<std::string>* warnings = nullptr);

}  // namespace drover::cli
