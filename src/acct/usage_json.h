#pragma once
// Step usage is stored as one JSON text column: sampled fields vary by agent and grow over time,
// and no query filters on them.
#include <string>

#include "drover/accounting.h"

namespace drover::acct {

std::string usageToJson(const Usage& usage);
Result<Usage> usageFromJson(const std::string& text);

}  // namespace drover::acct
