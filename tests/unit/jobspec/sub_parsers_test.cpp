// Table-driven tests of the small option-value parsers.
#include <gtest/gtest.h>

#include "jobspec/array_spec.h"
#include "jobspec/dependency_spec.h"
#include "jobspec/export_spec.h"
#include "jobspec/gres_spec.h"
#include "jobspec/layout_specs.h"
#include "jobspec/signal_spec.h"

namespace drover::jobspec {
namespace {

using Ids = std::vector<std::uint32_t>;

TEST(ArraySpec, ParsesSlurmForms) {
  struct Case {
    std::string text;
    Ids ids;
    std::optional<std::uint32_t> limit;
  };
  const std::vector<Case> cases = {
      {"0-3", {0, 1, 2, 3}, std::nullopt},
      {"1,3,5-7", {1, 3, 5, 6, 7}, std::nullopt},
      {"0-9:3", {0, 3, 6, 9}, std::nullopt},
      {"0-10:4%2", {0, 4, 8}, 2},
      {"7", {7}, std::nullopt},
      {"0-2%0", {0, 1, 2}, std::nullopt},  // %0: no limit, as the reference ran 1-10%0
      {"5,1,5", {1, 5}, std::nullopt},  // sorted, deduplicated
      {"0-1000", {}, std::nullopt},     // checked by count below
  };
  for (const auto& c : cases) {
    auto r = parseArraySpec(c.text);
    ASSERT_TRUE(r.ok()) << c.text << ": " << r.error();
    if (c.text == "0-1000") {
      EXPECT_EQ(r->taskCount(), 1001u);
      continue;
    }
    EXPECT_EQ(r->taskIds(), c.ids) << c.text;
    EXPECT_EQ(r->max_running, c.limit) << c.text;
  }
  auto big = parseArraySpec("0-99:2%8");
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->taskCount(), 50u);
  EXPECT_EQ(big->max_running, 8u);
}

TEST(ArraySpec, RejectsBadForms) {
  for (std::string text : {"", "abc", "5-2", "0-1001", "1,,2", "0-9:0", "0-9%", "0-9%x", "-1",
                           "1-", "3:2", "0-4294967296"}) {
    auto r = parseArraySpec(text);
    EXPECT_FALSE(r.ok()) << text;
    if (!r.ok()) {
      EXPECT_NE(r.error().find("accepted"), std::string::npos) << r.error();
    }
  }
  EXPECT_TRUE(parseArraySpec("0-5000", 10000).ok());  // MaxArraySize is a parameter
}

TEST(ArraySpec, CompressesSortedIdsAsSlurmPrintsThem) {
  EXPECT_EQ(compressIds({}), "");
  EXPECT_EQ(compressIds({7}), "7");
  EXPECT_EQ(compressIds({2, 3, 4, 7}), "2-4,7");
  EXPECT_EQ(compressIds({0, 2, 4}), "0,2,4");
  EXPECT_EQ(compressIds({1, 2, 5, 6, 7, 9}), "1-2,5-7,9");
  // The inverse of parsing: what squeue prints for a pending array's tasks reads back.
  auto spec = parseArraySpec("0-9:2,11-13");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(compressIds(spec->taskIds()), "0,2,4,6,8,11-13");
}

TEST(DependencySpec, ParsesTypesAndCombinations) {
  struct Case {
    std::string text;
    bool any;
    std::vector<DependencyItem> items;
  };
  auto item = [](DependencyType t, std::uint32_t id, std::optional<std::uint32_t> task = {},
                 std::uint32_t delay = 0, bool all = false) {
    DependencyItem i;
    i.type = t;
    i.job_id = id;
    i.task_id = task;
    i.delay_minutes = delay;
    i.all_tasks = all;
    return i;
  };
  using T = DependencyType;
  const std::vector<Case> cases = {
      {"afterok:12", false, {item(T::AfterOk, 12)}},
      {"afterok:12:13", false, {item(T::AfterOk, 12), item(T::AfterOk, 13)}},
      {"after:5+10", false, {item(T::After, 5, {}, 10)}},
      {"afterany:7_3?afternotok:9", true, {item(T::AfterAny, 7, 3), item(T::AfterNotOk, 9)}},
      {"aftercorr:20,afterany:21", false, {item(T::AfterCorr, 20), item(T::AfterAny, 21)}},
      {"afterok:8_*", false, {item(T::AfterOk, 8, {}, 0, true)}},
      {"singleton", false, {item(T::Singleton, 0)}},
      {"AFTEROK:4", false, {item(T::AfterOk, 4)}},
  };
  for (const auto& c : cases) {
    auto r = parseDependencySpec(c.text);
    ASSERT_TRUE(r.ok()) << c.text << ": " << r.error();
    EXPECT_EQ(r->any, c.any) << c.text;
    EXPECT_EQ(r->items, c.items) << c.text;
  }
  EXPECT_EQ(formatDependency(*parseDependencySpec("afterok:8_*,after:3+5")), "afterok:8_*,after:3+5");
}

TEST(DependencySpec, RejectsBadForms) {
  for (std::string text : {"", "foo:1", "afterok", "afterok:", "afterok:x", "afterok:1,afterany:2?after:3",
                           "afterok:1+5", "singleton:3", "afterok:0", "afterok:1_x", "afterok:1,,"}) {
    EXPECT_FALSE(parseDependencySpec(text).ok()) << text;
  }
}

TEST(GresSpec, ParsesNameTypeCount) {
  struct Case {
    std::string text;
    std::vector<GresRequest> want;
  };
  const std::vector<Case> cases = {
      {"gpu", {{"gpu", std::nullopt, 1}}},
      {"gpu:2", {{"gpu", std::nullopt, 2}}},
      {"gpu:h100:2", {{"gpu", "h100", 2}}},
      {"gpu:abc", {{"gpu", "abc", 1}}},  // Slurm reads a word as a type (golden 011)
      {"gres/gpu:a100:4,nvme:1", {{"gpu", "a100", 4}, {"nvme", std::nullopt, 1}}},
      {"mps:2k", {{"mps", std::nullopt, 2048}}},
      {"none", {}},
  };
  for (const auto& c : cases) {
    auto r = parseGresList(c.text);
    ASSERT_TRUE(r.ok()) << c.text << ": " << r.error();
    EXPECT_EQ(*r, c.want) << c.text;
  }
  for (std::string bad : {"", "x:y:z", "gpu:h100:two", "gpu:1:2:3", ":2", "gpu,,nvme", "g$u:1"}) {
    EXPECT_FALSE(parseGresList(bad).ok()) << bad;
  }
  EXPECT_EQ(formatGres({"gpu", "h100", 2}), "gpu:h100:2");
  EXPECT_EQ(formatGres({"gpu", std::nullopt, 2}), "gpu:2");
}

TEST(GpuCount, ParsesTypedCounts) {
  EXPECT_EQ(*parseGpuCount("2"), (GpuCount{std::nullopt, 2}));
  EXPECT_EQ(*parseGpuCount("h100:8"), (GpuCount{"h100", 8}));
  for (std::string bad : {"", "x", "h100:", ":2", "a:b:2", "-1"}) EXPECT_FALSE(parseGpuCount(bad).ok()) << bad;
}

TEST(SignalSpec, ParsesNamesNumbersAndTargets) {
  struct Case {
    std::string text;
    SignalSpec want;
  };
  const std::vector<Case> cases = {
      {"USR1", {10, 60, false, false}},
      {"SIGUSR2", {12, 60, false, false}},
      {"usr1@90", {10, 90, false, false}},
      {"B:TERM@120", {15, 120, true, false}},
      {"R:10", {10, 60, false, true}},
      {"RB:INT@0", {2, 0, true, true}},
      {"9", {9, 60, false, false}},
  };
  for (const auto& c : cases) {
    auto r = parseSignalSpec(c.text);
    ASSERT_TRUE(r.ok()) << c.text << ": " << r.error();
    EXPECT_EQ(*r, c.want) << c.text;
  }
  for (std::string bad : {"", "FOO", "0", "65", "SIGUSR1@70000", "B:USR1@abc", "X:USR1", ":USR1", "USR1@"}) {
    EXPECT_FALSE(parseSignalSpec(bad).ok()) << bad;
  }
  EXPECT_EQ(signalName(10), "USR1");
}

TEST(ExportSpec, ParsesAllNoneAndLists) {
  auto all = parseExportSpec("ALL");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->propagate_all);
  EXPECT_TRUE(all->vars.empty());
  auto none = parseExportSpec("NONE");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->propagate_all);
  auto list = parseExportSpec("PATH,FOO=bar=baz");
  ASSERT_TRUE(list.ok());
  EXPECT_FALSE(list->propagate_all);
  EXPECT_EQ(list->vars, (std::vector<ExportVar>{{"PATH", std::nullopt}, {"FOO", "bar=baz"}}));
  auto all_plus = parseExportSpec("ALL,OMP_NUM_THREADS=4");
  ASSERT_TRUE(all_plus.ok());
  EXPECT_TRUE(all_plus->propagate_all);
  EXPECT_EQ(all_plus->vars.size(), 1u);
  auto none_plus = parseExportSpec("NONE,A=b");
  ASSERT_TRUE(none_plus.ok());
  EXPECT_FALSE(none_plus->propagate_all);
  EXPECT_EQ(none_plus->text, "NONE,A=b");  // SLURM_EXPORT_ENV, as the reference's
  for (std::string bad : {"", "1ABC", "ALL,NONE", "A-B=1"}) EXPECT_FALSE(parseExportSpec(bad).ok()) << bad;
}

TEST(NodeRange, ParsesCountsAndRanges) {
  EXPECT_EQ(*parseNodeRange("4"), (NodeRange{4, 0}));
  EXPECT_EQ(*parseNodeRange("2-8"), (NodeRange{2, 8}));
  EXPECT_EQ(*parseNodeRange("2k"), (NodeRange{2048, 0}));
  struct Bad {
    std::string text;
    std::string message;
  };
  const std::vector<Bad> bad = {
      {"abc", "\"abc\" is not a valid node count"},
      {"1-2-3", "\"2-3\" is not a valid node count"},
      {"3-2", "Maximum node count 2 is less than minimum node count 3"},
      {"", "\"\" is not a valid node count"},
  };
  for (const auto& b : bad) {
    auto r = parseNodeRange(b.text);
    ASSERT_FALSE(r.ok()) << b.text;
    EXPECT_EQ(r.error(), b.message);
  }
}

TEST(Distribution, ParsesLevelsPlaneAndPack) {
  auto d = parseDistribution("cyclic:block:fcyclic,Pack");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->nodes, DistMode::Cyclic);
  EXPECT_EQ(d->sockets, DistMode::Block);
  EXPECT_EQ(d->cores, DistMode::FCyclic);
  EXPECT_EQ(d->pack, true);
  auto p = parseDistribution("plane=4");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->nodes, DistMode::Plane);
  EXPECT_EQ(p->plane_size, 4u);
  EXPECT_TRUE(parseDistribution("*:cyclic").ok());
  EXPECT_TRUE(parseDistribution("arbitrary").ok());
  for (std::string bad : {"foo", "planex", "plane=0", "block:arbitrary", "fcyclic", "a:b:c:d", "block,x"}) {
    EXPECT_FALSE(parseDistribution(bad).ok()) << bad;
  }
}

TEST(SmallSpecs, OpenModeMailTypeExclusiveCpuBindMpi) {
  EXPECT_EQ(*parseOpenMode("append"), OpenMode::Append);
  EXPECT_EQ(*parseOpenMode("Truncate"), OpenMode::Truncate);
  EXPECT_FALSE(parseOpenMode("x").ok());

  EXPECT_EQ(*parseMailType("BEGIN,END"), mail::kBegin | mail::kEnd);
  EXPECT_EQ(*parseMailType("all"), mail::kAll);
  EXPECT_EQ(*parseMailType("NONE"), 0u);
  EXPECT_EQ(*parseMailType("TIME_LIMIT_90"), mail::kTimeLimit90);
  EXPECT_FALSE(parseMailType("xx").ok());

  EXPECT_EQ(*parseExclusive(std::nullopt), ExclusiveMode::Exclusive);
  EXPECT_EQ(*parseExclusive("user"), ExclusiveMode::User);
  EXPECT_EQ(*parseExclusive("mcs"), ExclusiveMode::Mcs);
  EXPECT_FALSE(parseExclusive("foo").ok());

  EXPECT_TRUE(parseCpuBind("cores").ok());
  EXPECT_TRUE(parseCpuBind("verbose,map_cpu:0,1,2").ok());
  auto bad_bind = parseCpuBind("foo");
  ASSERT_FALSE(bad_bind.ok());
  EXPECT_EQ(bad_bind.error(), "unrecognized --cpu-bind argument \"foo\"");

  EXPECT_EQ(*parseMpiType("PMI2"), "pmi2");
  auto bad_mpi = parseMpiType("foo");
  ASSERT_FALSE(bad_mpi.ok());
  EXPECT_EQ(bad_mpi.error(), "Invalid MPI type 'foo', --mpi=list for acceptable types");
  EXPECT_EQ(*parseMpiType("None"), "none");
  EXPECT_EQ(*parseMpiType("list"), "list");
  // Types whose servers Drover does not have, refused as the reference refused pmix when it
  // could not load the PMIx library.
  for (const char* unserved : {"pmix", "pmix_v4", "cray_shasta"}) {
    auto refused = parseMpiType(unserved);
    ASSERT_FALSE(refused.ok()) << unserved;
    EXPECT_EQ(refused.error(), std::string("Invalid MPI type '") + unserved +
                                   "', --mpi=list for acceptable types");
  }
}

}  // namespace
}  // namespace drover::jobspec
