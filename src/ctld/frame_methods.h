#pragma once
// The Controller methods served over the CLIs' frame transport (src/wire): one MethodTable row
// per handler of handlers.h. The frame server runs on the io_context that owns CtldState, so
// the rows call the handlers directly.
#include "ctld/handlers.h"
#include "wire/method_table.h"

namespace drover::ctld {

void addFrameMethods(wire::MethodTable& table, const ControllerHandlers& handlers);

}  // namespace drover::ctld
