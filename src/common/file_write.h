#pragma once
// Writing whole files and outputs with plain system calls: the agent's spool files (step
// records, the ended-runs file), where a reader or a restarted droverd must never see a part,
// and the CLIs' single write of a whole report.
#include <string>
#include <string_view>

namespace drover {

// Writes all of `bytes` to a blocking fd (a short write is continued, EINTR retried); false on
// an error, errno set.
bool writeAll(int fd, std::string_view bytes);

// Writes `bytes` to path + ".tmp" and renames that over path, so that a reader, or droverd after
// a crash, finds the old contents or the new, never a part. Returns 0, or the errno of the step
// that failed (the temporary file is removed then).
int replaceFile(const std::string& path, std::string_view bytes);

}  // namespace drover
