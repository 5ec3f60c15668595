#pragma once
// Case folding for the names users may type in any case (options, field names, state names,
// cluster.conf keys), and the digit test for ids they type. ASCII only, on purpose: Slurm's
// names are ASCII, and a locale must not change what matches.
#include <algorithm>
#include <string>
#include <string_view>

namespace drover {

inline char toLowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

inline std::string toLowerAscii(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = toLowerAscii(c);
  return out;
}

inline char toUpperAscii(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

inline std::string toUpperAscii(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = toUpperAscii(c);
  return out;
}

inline bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return toLowerAscii(x) == toLowerAscii(y);
         });
}

inline bool startsWithIgnoreCase(std::string_view text, std::string_view prefix) {
  return prefix.size() <= text.size() && equalsIgnoreCase(text.substr(0, prefix.size()), prefix);
}

// Non-empty and nothing but 0-9 (no sign, no space): a job, step or task id as typed.
inline bool allAsciiDigits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace drover
