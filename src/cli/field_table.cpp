#include "cli/field_table.h"

#include <cstdlib>

namespace drover::cli {

namespace {

std::string cell(const std::string& v, const TableColumn& c, bool header) {
  const auto width = static_cast<std::size_t>(c.width);
  if (v.size() > width) return header ? v.substr(0, width) : v.substr(0, width - 1) + "+";
  std::string pad(width - v.size(), ' ');
  return c.left ? v + pad : pad + v;
}

}  // namespace

std::string renderTable(const std::vector<TableColumn>& columns, const std::vector<TableRow>& rows,
                        const TableStyle& style) {
  const bool parsable = style.parsable || style.parsable2;
  auto line = [&](const TableRow& values, bool header) {
    std::string out;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const std::string& v = i < values.size() ? values[i] : std::string();
      if (parsable) {
        out += v;
        if (style.parsable || i + 1 < columns.size()) out += '|';
      } else {
        out += cell(v, columns[i], header) + ' ';
      }
    }
    return out + '\n';
  };
  std::string out;
  if (!style.no_header) {
    TableRow headers, dashes;
    for (const TableColumn& c : columns) {
      headers.push_back(c.header);
      dashes.emplace_back(static_cast<std::size_t>(c.width), '-');
    }
    out += line(headers, true);
    if (!parsable) out += line(dashes, true);
  }
  for (const TableRow& row : rows) out += line(row, false);
  return out;
}

Result<FieldWidthChoice> splitFieldWidth(std::string_view item) {
  const std::size_t percent = item.find('%');
  FieldWidthChoice choice{std::string(item.substr(0, percent)), 0};
  if (percent == std::string_view::npos) return choice;
  const std::string digits(item.substr(percent + 1));
  const long parsed = std::strtol(digits.c_str(), nullptr, 10);   // atoi's reading, as Slurm
  if (parsed > 10000 || parsed < -10000) {
    return makeError("Invalid width in \"" + std::string(item) + "\": at most 10000 characters");
  }
  choice.width = static_cast<int>(parsed);
  return choice;
}

TableColumn chosenColumn(std::string header, int own_width, bool own_left, int chosen_width) {
  if (chosen_width == 0) return {std::move(header), own_width, own_left};
  return {std::move(header), std::abs(chosen_width), chosen_width < 0};
}

}  // namespace drover::cli
