#pragma once
// The Controller methods served over the CLIs' frame transport (src/wire). The frame server
// runs on the io_context that owns CtldState, so these handlers use the state directly.
#include "ctld/ctld_state.h"
#include "wire/method_table.h"

namespace drover::ctld {

void addFrameMethods(wire::MethodTable& table, CtldState& state);

}  // namespace drover::ctld
