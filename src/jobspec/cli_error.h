#pragma once
// Failures of a CLI's argument handling: the exact text Slurm's tool prints on stderr and the
// exit code it ends with, so a CLI main() only prints and exits.
#include <string>
#include <utility>
#include <variant>

namespace drover::jobspec {

// Slurm's exit codes for parse failures: getopt errors and invalid values exit(-1) -> 255;
// numeric-value, script and submission-side errors exit 1.
inline constexpr int kExitBadOption = 255;
inline constexpr int kExitError = 1;

struct CliError {
  std::string text;  // full stderr text, lines separated by '\n', no trailing newline
  int exit_code = kExitError;
};

template <typename T>
class CliResult {
 public:
  CliResult(T value) : v_(std::move(value)) {}
  CliResult(CliError error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return std::get<0>(v_); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const CliError& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, CliError> v_;
};

}  // namespace drover::jobspec
