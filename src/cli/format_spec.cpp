#include "cli/format_spec.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "common/ascii_case.h"
#include "common/comma_list.h"
#include "drover/time_spec.h"

namespace drover::cli {

Result<Format> parseFormat(std::string_view text, std::vector<std::string>* invalid) {
  Format out;
  std::string literal;
  auto flushLiteral = [&] {
    if (!literal.empty()) {
      FormatItem item;
      item.literal = std::move(literal);
      out.push_back(std::move(item));
      literal.clear();
    }
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      literal += text[i];
      continue;
    }
    // Slurm reads fields as the text between '%'s, so several '%' in a row are one: `%%y` is
    // the field y, `%%|` the bad field `|`, and a '%' (or several) at the end is nothing (the
    // reference's squeue and sinfo, 2026-12-03). There is no escape for a literal '%'.
    while (i + 1 < text.size() && text[i + 1] == '%') ++i;
    const std::size_t start = i;
    ++i;
    FieldSpec spec;
    // Only '.' (right-justify) comes before the width: the reference printed `%-10P` as
    // written and named `-` as a bad field.
    if (i < text.size() && text[i] == '.') {
      spec.right = true;
      ++i;
    }
    if (i < text.size() && text[i] == '#') {
      spec.auto_width = true;
      ++i;
    }
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      spec.width = spec.width * 10 + (text[i] - '0');
      if (spec.width > 100000) {
        return makeError("format field at position " + std::to_string(start + 1) +
                         " has an absurd width");
      }
      ++i;
    }
    if ((i >= text.size() || !std::isalpha(static_cast<unsigned char>(text[i]))) && invalid) {
      if (start + 1 == text.size()) break;  // a lone '%' at the end: nothing, as the reference
      invalid->push_back(i < text.size() ? std::string(1, text[i]) : std::string());
      literal += text.substr(start, i + 1 - start);
      continue;
    }
    if (i >= text.size() || !std::isalpha(static_cast<unsigned char>(text[i]))) {
      return makeError("invalid format field at position " + std::to_string(start + 1) + " in \"" +
                       std::string(text) + "\": expected %[.][width]<letter>");
    }
    spec.code = text[i];
    flushLiteral();
    FormatItem item;
    item.is_field = true;
    item.field = spec;
    out.push_back(std::move(item));
  }
  flushLiteral();
  return out;
}

Result<std::vector<LongFormatItem>> parseLongFormatItems(std::string_view text) {
  std::vector<LongFormatItem> out;
  for (std::string item : splitCommas(text)) {
    LongFormatItem parsed;
    parsed.spec.width = 20;
    const auto colon = item.find(':');
    parsed.name = item.substr(0, colon);
    if (colon != std::string::npos) {
      std::string_view rest = std::string_view(item).substr(colon + 1);
      if (!rest.empty() && rest.front() == '.') {
        parsed.spec.right = true;
        rest.remove_prefix(1);
      }
      const std::size_t digits = std::min(rest.find_first_not_of("0123456789"), rest.size());
      int width = 0;
      if (digits > 0) {
        const auto [end, ec] = std::from_chars(rest.data(), rest.data() + digits, width);
        if (ec != std::errc() || width > kMaxFieldWidth) {
          return makeError("Invalid size for -O field " + parsed.name + ": " + std::string(rest.substr(0, digits)));
        }
      }
      parsed.spec.width = width;
      parsed.suffix = std::string(rest.substr(digits));
    }
    out.push_back(std::move(parsed));
  }
  return out;
}

Result<Format> namedFieldFormat(std::string_view text, std::span<const NamedField> fields,
                                const std::function<std::string(const std::string&)>& unknown) {
  auto items = parseLongFormatItems(text);
  if (!items) return makeError(items.error());
  Format out;
  for (auto& [name, spec, suffix] : *items) {
    const std::string key = toLowerAscii(name);
    const auto found = std::find_if(fields.begin(), fields.end(),
                                    [&key](const NamedField& f) { return f.name == key; });
    if (found == fields.end()) {
      if (std::string error = unknown(name); !error.empty()) return makeError(error);
      continue;
    }
    spec.code = found->code;
    FormatItem item;
    item.is_field = true;
    item.field = spec;
    out.push_back(std::move(item));
    if (!suffix.empty()) {
      FormatItem after;
      after.literal = suffix;
      out.push_back(std::move(after));
    }
  }
  return out;
}

std::string dateLine(std::int64_t now) { return formatLocalTime(now, "%a %b %d %H:%M:%S %Y"); }

std::string applyWidth(std::string_view value, const FieldSpec& spec) {
  if (spec.width <= 0) return std::string(value);
  const auto width = static_cast<std::size_t>(spec.width);
  if (value.size() >= width) return std::string(value.substr(0, width));
  const std::string pad(width - value.size(), ' ');
  return spec.right ? pad + std::string(value) : std::string(value) + pad;
}

}  // namespace drover::cli
