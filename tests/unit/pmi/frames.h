#pragma once
// PMI-2 frames as clients write them, for the tests: the body after its 6-character length.
#include <string>

namespace drover::pmi::testing {

inline std::string frame(const std::string& body) {
  std::string header = std::to_string(body.size());
  header.resize(6, ' ');
  return header + body;
}

}  // namespace drover::pmi::testing
