#pragma once
// A user's own entry read from /etc/passwd by the CLI itself. The CLIs are static executables,
// and glibc's NSS in a static process crashes in a module it loads for an entry the files lack
// (libnss_systemd: docs/architecture.md, "What the CLIs cost"), so a CLI that needs its user's
// login shell reads the file and falls back to a default for a user only a directory knows.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace drover::cli {

// The login shell on `uid`'s line of a passwd(5) text; nullopt when no line is that uid's or its
// shell field is empty.
std::optional<std::string> loginShellOf(std::uint32_t uid, std::string_view passwd);

}  // namespace drover::cli
