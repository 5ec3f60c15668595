#pragma once
// -S sort keys as Slurm's squeue and sprio take them: a comma list of [+|-]LETTER, '-' for
// descending. Each command compares rows by its own letters; the sort is stable over the
// controller's order, as Slurm's list sort.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "common/comma_list.h"

namespace drover::cli {

struct SortKey {
  std::string item;   // as written: "-p"
  char code = 0;      // 0 when the item has no letter ("-")
  bool descending = false;
  bool single_letter = true;   // false when more than one letter follows the sign ("-xy")
};

inline std::vector<SortKey> parseSortKeys(std::string_view text) {
  std::vector<SortKey> keys;
  for (const auto& item : splitCommas(text)) {
    const bool signed_item = item[0] == '-' || item[0] == '+';
    const std::string_view letters = std::string_view(item).substr(signed_item ? 1 : 0);
    keys.push_back({item, letters.empty() ? '\0' : letters[0], item[0] == '-', letters.size() == 1});
  }
  return keys;
}

// -1, 0 or 1 as x sorts before, with or after y.
template <typename T>
int threeWay(const T& x, const T& y) {
  return x < y ? -1 : (y < x ? 1 : 0);
}

// Printed values compared as Slurm's sprio and sinfo sort them: as numbers when both are
// numbers ("12" after "9"), else as text.
inline int compareValues(const std::string& a, const std::string& b) {
  auto number = [](const std::string& s, double& out) {
    if (s.empty()) return false;
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return end != nullptr && *end == '\0';
  };
  double na = 0, nb = 0;
  if (number(a, na) && number(b, nb)) return threeWay(na, nb);
  return threeWay(a, b);
}

// Sorts rows by the keys in turn; compare(a, b, code) is threeWay's answer for one letter
// (0 for a letter the command does not sort by).
template <typename Row, typename CompareFn>
void sortByKeys(std::vector<Row>& rows, const std::vector<SortKey>& keys, CompareFn&& compare) {
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    for (const SortKey& k : keys) {
      const int c = compare(a, b, k.code);
      if (c != 0) return k.descending ? c > 0 : c < 0;
    }
    return false;
  });
}

}  // namespace drover::cli
