#include "jobstate/gres_text.h"

namespace drover {

std::string gresRequestText(const v1::GresRequest& gres) {
  std::string out = "gres:" + (gres.name().empty() ? std::string("gpu") : gres.name());
  if (!gres.type().empty()) out += ":" + gres.type();
  return out + ":" + std::to_string(gres.count());
}

std::string tresPerJobText(const v1::JobSpec& spec) {
  if (spec.gpus().count() == 0 || spec.gpus_implied()) return "";  // none asked for
  return gresRequestText(spec.gpus());
}

std::string tresPerTaskText(const v1::JobSpec& spec) {
  return spec.gpus_per_task().count() > 0 ? gresRequestText(spec.gpus_per_task()) : std::string();
}

std::string cpusPerTresText(const v1::JobSpec& spec) {
  return spec.cpus_per_gpu() > 0 ? "gres:gpu:" + std::to_string(spec.cpus_per_gpu()) : std::string();
}

std::string memPerTresText(const v1::JobSpec& spec) {
  return spec.mem_per_gpu_mb() > 0 ? "gres:gpu:" + std::to_string(spec.mem_per_gpu_mb()) : std::string();
}

std::string tresBindText(const v1::JobSpec& spec) {
  return spec.gpu_bind().empty() ? std::string() : "gpu:" + spec.gpu_bind();
}

std::string tresFreqText(const v1::JobSpec& spec) {
  return spec.gpu_freq().empty() ? std::string() : "gpu:" + spec.gpu_freq();
}

}  // namespace drover
