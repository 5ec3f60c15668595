#pragma once
// What every Drover daemon does once its options are parsed: detach unless -D, and set up its
// loggers (-v raises the level; -L writes to a file, flushed line by line).
#include <string>
#include <string_view>

#include "drover/result.h"

namespace drover {

// The error says what failed (detaching, or the log file that cannot be opened).
Status startDaemon(std::string_view program, bool foreground, int verbosity,
                   const std::string& log_file);

}  // namespace drover
