#include "jobstate/gres_text.h"

namespace drover {

std::string gresRequestText(const v1::GresRequest& gres) {
  std::string out = "gres:" + (gres.name().empty() ? std::string("gpu") : gres.name());
  if (!gres.type().empty()) out += ":" + gres.type();
  return out + ":" + std::to_string(gres.count());
}

}  // namespace drover
