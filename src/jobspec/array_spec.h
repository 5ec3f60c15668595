#pragma once
// --array: "0-99:2%8", "1,3,5-7", "0-15%4".
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drover/result.h"

namespace drover::jobspec {

// Slurm's default MaxArraySize: task ids must be below it.
inline constexpr std::uint32_t kDefaultMaxArraySize = 1001;

struct ArrayRange {
  std::uint32_t first = 0;
  std::uint32_t last = 0;
  std::uint32_t step = 1;
  bool operator==(const ArrayRange&) const = default;
};

struct ArraySpec {
  std::vector<ArrayRange> ranges;              // in the order written
  std::optional<std::uint32_t> max_running;    // "%N"
  std::string text;                            // as given, for display

  // Task ids sorted and without duplicates.
  std::vector<std::uint32_t> taskIds() const;
  std::size_t taskCount() const { return taskIds().size(); }
  bool operator==(const ArraySpec&) const = default;
};

// Sorted ids written back compressed, as Slurm prints array task ids and GPU indices:
// {2,3,4,7} -> "2-4,7".
std::string compressIds(const std::vector<std::uint32_t>& sorted_ids);

// Ids must be < max_array_size; the error says which part is wrong.
Result<ArraySpec> parseArraySpec(std::string_view text,
                                 std::uint32_t max_array_size = kDefaultMaxArraySize);

}  // namespace drover::jobspec
