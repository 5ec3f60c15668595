#pragma once
// Comma lists as users write them in options and cluster.conf values ("a,b,c"), and other
// text split at one separator.
#include <string>
#include <string_view>
#include <vector>

namespace drover {

// The non-empty items, in order ("a,,b," is a and b).
std::vector<std::string> splitCommas(std::string_view text);
// Every field between `sep`s, empty ones too ("a::b" at ':' is a, "", b; "" is one empty field).
std::vector<std::string_view> splitFields(std::string_view text, char sep);
// The items joined by commas ("a,b").
std::string joinCommas(const std::vector<std::string>& items);

}  // namespace drover
