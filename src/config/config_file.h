#pragma once
// Reading cluster.conf's text, shared by the full parser (daemons) and the client settings
// fast path (CLIs), so both refuse the same files with the same messages.
#include <filesystem>
#include <string>
#include <string_view>

#include "drover/result.h"

namespace drover::config {

// The whole file; an error names the path and why (cannot open, cannot read, larger than
// 64 MiB: no cluster configuration is that big, and a mistaken path to a huge file must not
// be read into memory).
Result<std::string> readConfigFile(const std::string& path);

// The directory relative paths in the file named `file_name` are resolved against: the
// file's own (absolute where the working directory can be read).
std::filesystem::path baseDirOf(std::string_view file_name);

}  // namespace drover::config
