#pragma once
// Slurm's field tables, as sacctmgr and sshare print them: fixed-width columns each followed
// by a space (right-justified unless the column is left-justified), a header and a dashed line
// under it; a value longer than its column is cut to width-1 characters and '+' (a header is
// cut plainly). Parsable forms: -p puts '|' after every field, -P between fields.
#include <string>
#include <string_view>
#include <vector>

#include "drover/result.h"

namespace drover::cli {

struct TableColumn {
  std::string header;
  int width = 10;
  bool left = false;
};

struct TableStyle {
  bool no_header = false;
  bool parsable = false;    // -p
  bool parsable2 = false;   // -P
};

using TableRow = std::vector<std::string>;   // one value per column

std::string renderTable(const std::vector<TableColumn>& columns, const std::vector<TableRow>& rows,
                        const TableStyle& style);

// One item of a format list, "Name%WIDTH": the name, and the width asked for (0 = the field's
// own width and side, > 0 right-justified, < 0 left-justified), read as Slurm reads it (a
// leading signed number; anything else is no width). A width beyond 10000 is an error.
struct FieldWidthChoice {
  std::string name;
  int width = 0;
};
Result<FieldWidthChoice> splitFieldWidth(std::string_view item);

// The column a field prints in: its own width and side unless the choice names a width.
TableColumn chosenColumn(std::string header, int own_width, bool own_left, int chosen_width);

}  // namespace drover::cli
