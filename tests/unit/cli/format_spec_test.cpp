#include "cli/format_spec.h"

#include <gtest/gtest.h>

#include <tuple>

namespace drover::cli {
namespace {

struct Case {
  std::string format;
  std::string expected;  // rendered with each field's value = its code letter repeated 4 times
};

TEST(FormatSpecTest, RendersWidthsAlignmentAndLiterals) {
  const std::vector<Case> cases = {
      {"%P", "PPPP"},
      {"%10P|", "PPPP      |"},
      {"%.10P|", "      PPPP|"},
      {"%.2P|", "PP|"},            // a width also truncates, as Slurm
      {"%2P|", "PP|"},
      {"x%Py %Nz", "xPPPPy NNNNz"},  // text after a field is its suffix
      {"x%%Py%%%D", "xPPPPyDDDD"},   // '%'s in a row are one, as Slurm's
      {"", ""},
  };
  for (const auto& c : cases) {
    auto parsed = parseFormat(c.format);
    ASSERT_TRUE(parsed.ok()) << c.format << ": " << parsed.error();
    EXPECT_EQ(renderLine(*parsed, [](const FieldSpec& f) { return std::string(4, f.code); }), c.expected)
        << c.format;
  }
}

TEST(FormatSpecTest, ParsesSpecParts) {
  auto parsed = parseFormat("%.18i %#P %8u");
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed->size(), 5u);
  EXPECT_EQ((*parsed)[0].field.code, 'i');
  EXPECT_EQ((*parsed)[0].field.width, 18);
  EXPECT_TRUE((*parsed)[0].field.right);
  EXPECT_TRUE((*parsed)[2].field.auto_width);
  EXPECT_EQ((*parsed)[4].field.width, 8);
  EXPECT_FALSE((*parsed)[4].field.right);
}

TEST(FormatSpecTest, RejectsFieldWithoutType) {
  for (const std::string bad : {"%", "%.10", "abc %-", "%10 "}) {
    auto parsed = parseFormat(bad);
    EXPECT_FALSE(parsed.ok()) << bad;
    if (!parsed.ok()) {
      EXPECT_NE(parsed.error().find("position"), std::string::npos);
    }
  }
}

// squeue's way (the reference, 2026-12-03): the bad field printed as written, its character
// named; a lone '%' at the end is dropped without a word.
TEST(FormatSpecTest, InvalidFieldsKeptAsTextWhenAsked) {
  struct Case {
    std::string text, rendered;
    std::vector<std::string> invalid;
  };
  const std::vector<Case> cases = {
      {"%i %!", "7 %!", {"!"}},
      {"%.10!abc|%i", "%.10!abc|7", {"!"}},
      {"%i %5", "7 %5", {""}},
      {"%i%", "7", {}},
      // The reference's squeue -o "%i|%-i|%%|%-10j|x%%y": no '-' flag (sinfo's the same), no
      // escape for '%'; then "%.-5i|" and "%5.3i|".
      {"%i|%-i|%%|%-10j|x%%y", "7|%-i|%|%-10j|x7", {"-", "|", "-"}},
      {"%.-5i|", "%.-5i|", {"-"}},
      {"%5.3i|", "%5.3i|", {"."}},
      {"%i%%", "7", {}},
  };
  for (const auto& c : cases) {
    std::vector<std::string> invalid;
    auto parsed = parseFormat(c.text, &invalid);
    ASSERT_TRUE(parsed.ok()) << c.text;
    std::string out;
    for (const auto& item : *parsed) out += item.is_field ? "7" : item.literal;
    EXPECT_EQ(out, c.rendered) << c.text;
    EXPECT_EQ(invalid, c.invalid) << c.text;
  }
}

TEST(FormatSpecTest, LongFormatItemsCarryNameWidthAndJustification) {
  auto items = parseLongFormatItems("JobID,Name:30,,State:.10,Reason:.");
  ASSERT_TRUE(items.ok()) << items.error();
  ASSERT_EQ(items->size(), 4u);
  EXPECT_EQ((*items)[0].name, "JobID");
  EXPECT_EQ((*items)[0].spec.width, 20);   // Slurm's default -O width
  EXPECT_FALSE((*items)[0].spec.right);
  EXPECT_EQ((*items)[1].name, "Name");
  EXPECT_EQ((*items)[1].spec.width, 30);
  EXPECT_EQ((*items)[2].name, "State");
  EXPECT_EQ((*items)[2].spec.width, 10);
  EXPECT_TRUE((*items)[2].spec.right);
  // A colon without a size: as wide as the value (the reference's `JobID:.` and `JobID:`).
  EXPECT_EQ((*items)[3].spec.width, 0);
  EXPECT_TRUE((*items)[3].spec.right);
}

// `type:[.][size][suffix]`: what follows the size is printed after the field (the reference's
// `Name:.10|` printed `     held1|`, `JobID:abc` `7330abc`, `JobID:10x` `7330      x`).
TEST(FormatSpecTest, LongFormatSuffixes) {
  auto items = parseLongFormatItems("Name:.10|,JobID:abc,JobID:10x,Reason:.+4");
  ASSERT_TRUE(items.ok()) << items.error();
  const std::vector<std::tuple<int, bool, std::string>> want = {
      {10, true, "|"}, {0, false, "abc"}, {10, false, "x"}, {0, true, "+4"}};
  for (std::size_t k = 0; k < want.size(); ++k) {
    EXPECT_EQ((*items)[k].spec.width, std::get<0>(want[k])) << k;
    EXPECT_EQ((*items)[k].spec.right, std::get<1>(want[k])) << k;
    EXPECT_EQ((*items)[k].suffix, std::get<2>(want[k])) << k;
  }
}

TEST(FormatSpecTest, LongFormatSizesThatAreNotWidthsAreErrors) {
  // 99999999999 once threw std::out_of_range out of squeue -s -O (a crash, not an error; the
  // reference's squeue printed a truncated column, and crashed on `.+4`).
  for (const std::string bad : {"Name:99999999999", "Name:10001"}) {
    auto items = parseLongFormatItems(bad);
    EXPECT_FALSE(items.ok()) << bad;
    if (!items.ok()) {
      EXPECT_NE(items.error().find("Invalid size for -O field Name"), std::string::npos);
    }
  }
  EXPECT_TRUE(parseLongFormatItems("Name:10000").ok());
}

}  // namespace
}  // namespace drover::cli
