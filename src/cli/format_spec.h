#pragma once
// Slurm's `-o/--format` strings ("%#P %.5a %.10l %-8N suffix"), shared by sinfo, squeue, sacct...
// A format is a sequence of literal text and fields; each field is `%[.|-][width]X` where `.`
// right-justifies, `-` (or nothing) left-justifies, and a given width both pads and truncates,
// as Slurm does. `#` in place of a width asks the command to compute the width from the data
// (Slurm documents its built-in formats that way); only built-in formats use it.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "drover/result.h"

namespace drover::cli {

struct FieldSpec {
  char code = 0;
  int width = 0;             // 0 = as wide as the value
  bool right = false;        // `.`: right-justify
  bool auto_width = false;   // `#`: the command fills in width before rendering
};

struct FormatItem {
  bool is_field = false;
  std::string literal;       // when !is_field
  FieldSpec field;           // when is_field
};

using Format = std::vector<FormatItem>;

// Parses a format string, `%[.][width]<letter>` fields among text; `%%` is no escape but one
// `%`, as Slurm's (`%%y` the field y). A `%` with no type letter fails,
// naming the position; or, with `invalid` given, is kept as literal text (width and all) and
// the character that is no letter is added to `invalid` ("" at the end of the text), as
// squeue printed `%!` and warned. Unknown type letters are left for the command to reject or
// ignore.
Result<Format> parseFormat(std::string_view text, std::vector<std::string>* invalid = nullptr);

// One item of a `-O/--Format` list ("JobID,Name:30,State:.10"): the field's name as written,
// and the width and justification its ":[.]size" asks for (20 when it gives none, as Slurm).
struct LongFormatItem {
  std::string name;
  FieldSpec spec;   // code left 0: each command maps names to its own codes
  std::string suffix;  // printed after the field, in the header too
};

// Splits and sizes the items (empty ones skipped), each `name[:[.][size][suffix]]` as Slurm's
// -O takes it: `.` right-justifies, `size` (digits) is the width, anything after it is printed
// after the field (`Name:.10|`); with a colon but no size the field is as wide as its value
// (the reference's `JobID:,State:` printed `JOBIDSTATE`). A size over kMaxFieldWidth is an error.
inline constexpr int kMaxFieldWidth = 10000;
Result<std::vector<LongFormatItem>> parseLongFormatItems(std::string_view text);

// A command's -O field: its name as Slurm spells it, in lower case, and the -o code printing it.
struct NamedField {
  std::string_view name;
  char code;
};

// -O's list as a Format, each name looked up (in any case) in `fields`. A name not there is
// handed to `unknown`: a text it returns is the error; "" leaves the item out (squeue -s warns
// and goes on, as Slurm).
Result<Format> namedFieldFormat(std::string_view text, std::span<const NamedField> fields,
                                const std::function<std::string(const std::string&)>& unknown);

// The line long reports (sinfo -l, squeue -l, squeue -i) start with, in local time:
// "Tue Dec 01 16:40:00 2026".
std::string dateLine(std::int64_t now);

// Pads (and truncates) value to the field's width, Slurm style.
std::string applyWidth(std::string_view value, const FieldSpec& spec);

// Renders one line: each field's value comes from valueOf(field.code).
template <typename ValueFn>
std::string renderLine(const Format& format, ValueFn&& valueOf) {
  std::string out;
  for (const auto& item : format) {
    if (item.is_field) {
      out += applyWidth(valueOf(item.field), item.field);
    } else {
      out += item.literal;
    }
  }
  return out;
}

}  // namespace drover::cli
