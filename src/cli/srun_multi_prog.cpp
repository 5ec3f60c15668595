#include "cli/srun_multi_prog.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "jobspec/multi_prog.h"

namespace drover::cli {

Result<v1::MultiProgram> loadMultiProg(const jobspec::StepRequest& request) {
  if (request.command.empty()) {
    return makeError("--multi-prog needs a configuration file: srun --multi-prog FILE [ARGS...]");
  }
  const std::string& path = request.command.front();
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return makeError("Unable to open multi-prog configuration file " + path + ": " +
                     std::strerror(errno));
  }
  std::string text;
  char buffer[65536];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxMultiProgBytes) {
      return makeError("multi-prog configuration file " + path + " is larger than " +
                       std::to_string(kMaxMultiProgBytes >> 20) + " MiB, the most srun sends");
    }
  }
  if (in.bad()) return makeError("Unable to read multi-prog configuration file " + path);
  auto config = jobspec::parseMultiProg(text, path);
  if (!config) return Error{config.error()};
  if (request.spec.ntasks && *request.spec.ntasks > 0) {
    auto assigned = jobspec::MultiProgAssignment::assign(std::move(*config), *request.spec.ntasks);
    if (!assigned) return Error{assigned.error()};
  }
  v1::MultiProgram out;
  out.set_file(path);
  out.set_text(std::move(text));
  return out;
}

}  // namespace drover::cli
