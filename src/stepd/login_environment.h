#pragma once
// The user's login environment, as Slurm loads it for a batch job submitted with --export other
// than the default (NONE, a variable list: the job carries SLURM_GET_USER_ENV=1) or
// --get-user-env: `su - USER -c env` run by root on the node, so HOME, PATH, SHELL, LOGNAME and
// whatever the user's profile sets are there although the submitting shell's were not sent.
// The job's own variables are laid over it by the caller. su does the password-database and
// PAM work, which a static drover-stepd must not (glibc's NSS modules).
#include <chrono>
#include <map>
#include <string>

#include "drover/result.h"

namespace drover::stepd {

// Runs `su - user -c 'env -0'` (needs root) and reads its variables; an error if su cannot be
// run, exits non-zero or does not finish within `timeout` (it is killed then). The login
// shell's own bookkeeping (PWD, OLDPWD, SHLVL, _) is left out.
Result<std::map<std::string, std::string>> loginEnvironment(const std::string& user,
                                                           std::chrono::milliseconds timeout);

// NUL-separated NAME=VALUE entries (env -0) into a map, the bookkeeping names left out.
std::map<std::string, std::string> parseEnvZero(const std::string& text);

}  // namespace drover::stepd
