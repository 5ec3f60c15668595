#pragma once
// Feature constraint expressions as sbatch --constraint takes them: "a&b|c", & binding tighter
// than |. Parsed once into OR-of-ANDs, then matched against a node's feature list.
#include <string>
#include <string_view>
#include <vector>

#include "drover/result.h"

namespace drover::sched {

class Constraint {
 public:
  static Result<Constraint> parse(std::string_view text);
  bool empty() const { return alternatives_.empty(); }
  // `features` must be sorted.
  bool matches(const std::vector<std::string>& features) const;
  // Every feature name the expression mentions.
  std::vector<std::string> names() const;

 private:
  std::vector<std::vector<std::string>> alternatives_;
};

}  // namespace drover::sched
