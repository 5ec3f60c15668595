#include "cli/format_spec.h"

#include <gtest/gtest.h>

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
      {"%-10P|", "PPPP      |"},
      {"%.10P|", "      PPPP|"},
      {"%.2P|", "PP|"},            // a width also truncates, as Slurm
      {"%2P|", "PP|"},
      {"x%Py %Nz", "xPPPPy NNNNz"},  // text after a field is its suffix
      {"100%% %D", "100% DDDD"},
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
  auto parsed = parseFormat("%.18i %#P %-8u");
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

}  // namespace
}  // namespace drover::cli
