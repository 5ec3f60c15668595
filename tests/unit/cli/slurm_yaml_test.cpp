// --yaml as Slurm 22.05 printed it (libyaml, every node tagged): the lines below are the
// reference's own, from `squeue --yaml` and `sacct --yaml` of its jobs (2026-12-03), rebuilt
// here from the same tree.
#include <gtest/gtest.h>

#include "cli/slurm_json.h"

namespace drover::cli::json {
namespace {

TEST(SlurmYaml, WritesTheReferencesLayout) {
  const Value cores = Object{{"0", "allocated"}};
  const Value sockets = Object{{"0", Object{{"cores", cores}}}};
  const Value node = Object{{"sockets", sockets}, {"nodename", "node01"}};
  const Value job = Object{
      {"account", "research"},
      {"accrue_time", 1796269889},
      {"admin_comment", nullptr},
      {"batch_flag", true},
      {"flags", Array{}},
      {"billable_tres", 1.0},
      {"job_resources", Object{{"allocated_nodes", Array{node}}}},
      {"name", "my job: x"},
      {"comment", "it's \"quoted\""},
      {"show_flags", Array{Value("SHOW_ALL"), Value("SHOW_DETAIL")}},
      {"wckey", Object{{"wckey", ""}, {"flags", Array{}}}},
      {"working_directory", "/tmp"},
  };
  const Value plugin = Object{{"type", "openapi/v0.0.38"}, {"name", "Slurm OpenAPI v0.0.38"}};
  const Value doc = Object{
      {"meta", Object{{"plugin", plugin}}},
      {"errors", Array{}},
      {"jobs", Array{job}},
  };
  EXPECT_EQ(dumpYaml(doc),
            "%YAML 1.1\n"
            "--- !!map\n"
            "!!str meta: !!map\n"
            "  !!str plugin: !!map\n"
            "    !!str type: !!str openapi/v0.0.38\n"
            "    !!str name: !!str Slurm OpenAPI v0.0.38\n"
            "!!str errors: !!seq []\n"
            "!!str jobs: !!seq\n"
            "- !!map\n"
            "  !!str account: !!str research\n"
            "  !!str accrue_time: !!int 1796269889\n"
            "  !!str admin_comment: !!null null\n"
            "  !!str batch_flag: !!bool true\n"
            "  !!str flags: !!seq []\n"
            "  !!str billable_tres: !!float 1.000000\n"
            "  !!str job_resources: !!map\n"
            "    !!str allocated_nodes: !!seq\n"
            "    - !!map\n"
            "      !!str sockets: !!map\n"
            "        !!str 0: !!map\n"
            "          !!str cores: !!map\n"
            "            !!str 0: !!str allocated\n"
            "      !!str nodename: !!str node01\n"
            "  !!str name: !!str 'my job: x'\n"
            "  !!str comment: !!str it's \"quoted\"\n"
            "  !!str show_flags: !!seq\n"
            "  - !!str SHOW_ALL\n"
            "  - !!str SHOW_DETAIL\n"
            "  !!str wckey: !!map\n"
            "    !!str wckey: !!str\n"
            "    !!str flags: !!seq []\n"
            "  !!str working_directory: !!str /tmp\n"
            "...\n");
}

// Where libyaml leaves a plain scalar for quotes: indicators first, ": " and " #" inside,
// blanks at the ends (single quotes, doubled inside), control characters (double quotes).
TEST(SlurmYaml, QuotesWhatAPlainScalarCannotHold) {
  auto line = [](std::string s) {
    std::string out = dumpYaml(Value(Object{{"k", std::move(s)}}));
    const auto start = out.find("!!str k: ");
    return out.substr(start + 9, out.find('\n', start) - start - 9);
  };
  EXPECT_EQ(line("-"), "!!str '-'");
  EXPECT_EQ(line("-1"), "!!str -1");
  EXPECT_EQ(line("a #b"), "!!str 'a #b'");
  EXPECT_EQ(line("a#b"), "!!str a#b");
  EXPECT_EQ(line(" lead"), "!!str ' lead'");
  EXPECT_EQ(line("*star"), "!!str '*star'");
  EXPECT_EQ(line("a:b"), "!!str a:b");
  EXPECT_EQ(line("end:"), "!!str 'end:'");
  EXPECT_EQ(line("it's: x"), "!!str 'it''s: x'");
  EXPECT_EQ(line("two\nlines"), "!!str \"two\\nlines\"");
}

}  // namespace
}  // namespace drover::cli::json
