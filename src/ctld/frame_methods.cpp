#include "ctld/frame_methods.h"

namespace drover::ctld {

void addFrameMethods(wire::MethodTable& table, const ControllerHandlers& handlers) {
  const std::string prefix = "/drover.v1.Controller/";
  forEachHandler(handlers, [&](const char* name, const auto& handler) {
    if (handler) table.add(prefix + name, handler);
  });
}

}  // namespace drover::ctld
