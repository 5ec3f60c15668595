#pragma once
// -i/--iterate, shared by squeue and sinfo: the interval as Slurm reads it, and the loop that
// prints a report every interval until the command is interrupted.
#include <functional>
#include <optional>
#include <string_view>

namespace drover::cli {

// Slurm reads the interval as C's atoi does (leading blanks, a sign, digits; whatever follows
// is ignored, so "1.5" and "2x" are 1 and 2) and refuses anything below 1. nullopt = refused.
std::optional<int> parseIterateSeconds(std::string_view text);

// Runs `report`, then writes the empty line that ends each report, then sleeps `seconds`,
// forever: a report that fails says so itself and the next one is tried at its time, as Slurm's.
[[noreturn]] void reportEvery(int seconds, const std::function<void()>& report);

}  // namespace drover::cli
