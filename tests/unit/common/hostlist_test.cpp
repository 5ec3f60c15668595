#include "drover/hostlist.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace drover::hostlist {
namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, sep))
    if (!item.empty()) out.push_back(item);
  return out;
}

// Every example is real Slurm 22.05 output (goldens 096-099, or captured with scontrol).
struct ExpandCase {
  std::string expr;
  std::vector<std::string> hosts;
};

TEST(HostlistExpand, MatchesSlurm) {
  const std::vector<ExpandCase> cases = {
      {"node[01-03,7]", {"node01", "node02", "node03", "node7"}},  // golden 096
      {"n[001-016]", {"n001", "n002", "n003", "n004", "n005", "n006", "n007", "n008", "n009",
                      "n010", "n011", "n012", "n013", "n014", "n015", "n016"}},
      {"n[1-10]", {"n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9", "n10"}},
      {"n[9-10]", {"n9", "n10"}},
      {"n[08-11]", {"n08", "n09", "n10", "n11"}},
      {"n[01-3]", {"n01", "n02", "n03"}},          // width comes from the low bound
      {"n[001-10]", {"n001", "n002", "n003", "n004", "n005", "n006", "n007", "n008", "n009",
                     "n010"}},
      {"n[001-1]", {"n001"}},
      {"n[0000-2]", {"n0000", "n0001", "n0002"}},
      {"n[0-0]", {"n0"}},
      {"n[1,2]", {"n1", "n2"}},
      {"n[1-3,2]", {"n1", "n2", "n3", "n2"}},     // duplicates kept, order as written
      {"a,b[1,3-5],c", {"a", "b1", "b3", "b4", "b5", "c"}},
      {"a,,b", {"a", "b"}},
      {"a b", {"a", "b"}},
      {"n[1-3],", {"n1", "n2", "n3"}},
      {",n1", {"n1"}},
      {"[1-3]", {"1", "2", "3"}},
      {"n1[1-2]", {"n11", "n12"}},
      {"rack[1-2]-n[01-04]",
       {"rack1-n01", "rack1-n02", "rack1-n03", "rack1-n04", "rack2-n01", "rack2-n02",
        "rack2-n03", "rack2-n04"}},
      {"n[1-2]x[3-4]", {"n1x3", "n1x4", "n2x3", "n2x4"}},
      {"n[1-3][5-6]", {"n15", "n16", "n25", "n26", "n35", "n36"}},
      {"a[1-2,5]b[7,8-9]",
       {"a1b7", "a1b8", "a1b9", "a2b7", "a2b8", "a2b9", "a5b7", "a5b8", "a5b9"}},
      // Three or more groups: the last varies fastest, then the first, second, ...
      {"n[1-2]-m[1-2]-k[1-2]",
       {"n1-m1-k1", "n1-m1-k2", "n2-m1-k1", "n2-m1-k2", "n1-m2-k1", "n1-m2-k2", "n2-m2-k1",
        "n2-m2-k2"}},
      {"a[1-3]b[1-2]c[1-2]",
       {"a1b1c1", "a1b1c2", "a2b1c1", "a2b1c2", "a3b1c1", "a3b1c2", "a1b2c1", "a1b2c2",
        "a2b2c1", "a2b2c2", "a3b2c1", "a3b2c2"}},
      {"n[9999999999999999999]", {"n9999999999999999999"}},
      // Drover also accepts text after the last group (Slurm 22.05 rejects it).
      {"gpu[1-2]-ib", {"gpu1-ib", "gpu2-ib"}},
  };
  for (const auto& c : cases) {
    auto got = expand(c.expr);
    ASSERT_TRUE(got.ok()) << c.expr << ": " << got.error();
    EXPECT_EQ(*got, c.hosts) << c.expr;
  }
}

struct ErrorCase {
  std::string expr;
  std::string position;  // "position N" expected in the message, or "" when none
  std::string reason;    // part of the message
};

TEST(HostlistExpand, RejectsBadSyntax) {
  const std::vector<ErrorCase> cases = {
      {"n[5-1]", "position 3", "reversed range 5-1"},
      {"n[1-3", "position 2", "'[' without a matching ']'"},
      {"n[1-2", "position 2", "'[' without a matching ']'"},
      {"n1-3]", "position 5", "']' without a matching '['"},
      {"n]1", "position 2", "']' without a matching '['"},
      {"n[]", "position 3", "empty brackets"},
      {"n[a-b]", "position 3", "unexpected 'a'"},
      {"n[1-b]", "position 5", "unexpected 'b'"},
      {"n[1-]", "position 5", "missing high number"},
      {"n[-1]", "position 3", "unexpected '-'"},
      {"n[1-2-3]", "position 6", "unexpected '-'"},
      {"n[1,,2]", "position 5", "missing low number"},
      {"n[1,]", "position 5", "missing number after ','"},
      {"n[1 -3]", "position 4", "unexpected ' '"},
      {"n[[1-2]]", "position 3", "nested '['"},
      {"n[1-0x10]", "position 6", "unexpected 'x'"},
      {"n[1-3:2]", "position 6", "a step or other suffix is not accepted"},
      {"n[12345678901234567890]", "position 3", "number too long"},
      {"", "", "empty hostlist"},
      {" , ", "", "empty hostlist"},
  };
  for (const auto& c : cases) {
    auto got = expand(c.expr);
    ASSERT_FALSE(got.ok()) << c.expr;
    EXPECT_NE(got.error().find("'" + c.expr + "'"), std::string::npos) << got.error();
    EXPECT_NE(got.error().find(c.reason), std::string::npos) << got.error();
    if (!c.position.empty()) {
      EXPECT_NE(got.error().find(c.position), std::string::npos) << got.error();
      EXPECT_NE(got.error().find("accepted"), std::string::npos) << got.error();
    }
  }
}

TEST(HostlistExpand, BoundsTheNumberOfHosts) {
  auto huge = expand("n[0-999999999]");
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.error().find("more than 1000000 hosts"), std::string::npos) << huge.error();

  // The product of several groups counts, and so does the sum over items.
  EXPECT_FALSE(expand("a[1-1000]b[1-1000]c[1-1000]").ok());
  EXPECT_FALSE(expand("a[0-9999999999999999]b[0-9999999999999999]c[0-9999]").ok());
  EXPECT_FALSE(expand("n[1-6],m[1-5]", 10).ok());
  auto exact = expand("n[1-5],m[1-5]", 10);
  ASSERT_TRUE(exact.ok()) << exact.error();
  EXPECT_EQ(exact->size(), 10u);
  auto limited = expand("n[1-11]", 10);
  ASSERT_FALSE(limited.ok());
  EXPECT_NE(limited.error().find("more than 10 hosts"), std::string::npos) << limited.error();
}

struct CompressCase {
  std::string hosts;  // comma-separated input, in order
  std::string unsorted;
  std::string sorted;
};

TEST(HostlistCompress, MatchesSlurm) {
  const std::vector<CompressCase> cases = {
      {"node01,node02,node03,node07", "node[01-03,07]", "node[01-03,07]"},  // golden 097
      {"node3,node1,node2", "node[3,1-2]", "node[1-3]"},                    // goldens 098, 099
      {"node1,node1", "node[1,1]", "node[1,1]"},  // duplicates are kept by both
      {"a,a", "a,a", "a,a"},
      {"a,b,a", "a,b,a", "a,a,b"},
      {"node9,node10", "node[9-10]", "node[9-10]"},
      {"node09,node10", "node[09-10]", "node[09-10]"},
      {"node009,node10", "node[009,10]", "node[10,009]"},  // widths that cannot share
      {"n1,n02", "n[1,02]", "n[1,02]"},
      {"n01,n2", "n[01,2]", "n[2,01]"},
      {"n1,n2,n02,n03", "n[1-2,02-03]", "n[1-2,02-03]"},
      {"node1a,node2a", "node1a,node2a", "node1a,node2a"},  // text after the number
      {"node,node1,node2", "node,node[1-2]", "node,node[1-2]"},
      {"node1,node", "node1,node", "node,node1"},
      {"1,2,3", "[1-3]", "[1-3]"},
      {"a1,b1,b2,a3", "a1,b[1-2],a3", "a[1,3],b[1-2]"},
      {"a1,b1,b2,a2", "a1,b[1-2],a2", "a[1-2],b[1-2]"},
      {"n10,n9,n8", "n[10,9,8]", "n[8-10]"},
      {"n0,n1", "n[0-1]", "n[0-1]"},
      {"n00,n01", "n[00-01]", "n[00-01]"},
      {"n0,n00", "n[0,00]", "n[0,00]"},
      {"n1,n01", "n[1,01]", "n[1,01]"},
      {"rack1-n01,rack1-n02,rack2-n01", "rack1-n[01-02],rack2-n01", "rack1-n[01-02],rack2-n01"},
      {"rack10-n1,rack2-n1", "rack10-n1,rack2-n1", "rack2-n1,rack10-n1"},  // natural order
      {"rack01-n1,rack1-n1", "rack01-n1,rack1-n1", "rack01-n1,rack1-n1"},
      {"a1b,a01b,a02b,a10b", "a1b,a01b,a02b,a10b", "a01b,a02b,a1b,a10b"},
      {"x-1,x-2", "x-[1-2]", "x-[1-2]"},
      {"n1.a,n2.a", "n1.a,n2.a", "n1.a,n2.a"},
      {"n001,n2,n003", "n[001,2,003]", "n[2,001,003]"},
      {"n1,n2,n3,n2,n1", "n[1-3,2,1]", "n[1,1-2,2-3]"},
      {"a10,a9,b1,a1", "a[10,9],b1,a1", "a[1,9-10],b1"},
      {"n5,n3-x,n4", "n5,n3-x,n4", "n[4-5],n3-x"},
      {"n8,n9,n010", "n[8-9,010]", "n[8-9,010]"},
      {"n098,n99,n100", "n[098,99-100]", "n[99-100,098]"},
      {"n1,n2,n3,n2,n3,n4,n5", "n[1-3,2-5]", "n[1-2,2-3,3-5]"},
      {"n8,n9,n10,n010,n9", "n[8-10,010,9]", "n[8-9,9-10,010]"},
      {"n06,n9,n10,n11,n8", "n[06,9-11,8]", "n[8-11,06]"},
      {"n,n0", "n,n0", "n,n0"},
      {"n0,n", "n0,n", "n,n0"},
      {"1,a", "1,a", "1,a"},
      {"n18446744073709551615", "n18446744073709551615", "n18446744073709551615"},
  };
  for (const auto& c : cases) {
    auto hosts = split(c.hosts, ',');
    EXPECT_EQ(compress(hosts), c.unsorted) << c.hosts;
    EXPECT_EQ(compressSorted(hosts), c.sorted) << c.hosts;
  }
}

TEST(HostlistCompress, EmptyInputGivesEmptyString) {
  EXPECT_EQ(compress({}), "");
  EXPECT_EQ(compressSorted({}), "");
  EXPECT_EQ(compress({"", "n1", ""}), "n1");  // empty names are skipped
}

// Slurm loses hosts when it sorts some mixes of widths with duplicates; Drover keeps them.
TEST(HostlistCompress, SortedKeepsEveryHost) {
  std::vector<std::string> hosts = {"m01", "n03", "n04", "n9",  "m015", "n9",  "n10",
                                    "n9",  "n10", "n11", "n12", "n13",  "n14"};
  auto sorted = compressSorted(hosts);
  auto back = expand(sorted);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->size(), hosts.size()) << sorted;
}

TEST(HostlistSort, OrdersAsSlurmSortedHostlists) {
  std::vector<std::string> hosts = {"node10", "node9", "gpu2", "node", "gpu10", "node9",
                                    "rack10-n1", "rack2-n1", "n098", "n99", "n100"};
  sortHosts(hosts);
  EXPECT_EQ(hosts, (std::vector<std::string>{"gpu2", "gpu10", "n99", "n100", "n098", "node",
                                             "node9", "node9", "node10", "rack2-n1",
                                             "rack10-n1"}));
}

// Cases captured from real scontrol on random inputs (data/slurm_hostlist_cases.tsv).
TEST(HostlistSlurmCapture, AllCasesMatch) {
  std::ifstream in(std::string(DROVER_COMMON_TEST_DATA) + "/slurm_hostlist_cases.tsv");
  ASSERT_TRUE(in) << "missing data file";
  std::string line;
  int compress_rows = 0, expand_rows = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, '\t')) f.push_back(field);
    if (f[0] == "compress") {
      ASSERT_EQ(f.size(), 4u) << line;
      auto hosts = split(f[1], ',');
      EXPECT_EQ(compress(hosts), f[2]) << f[1];
      EXPECT_EQ(compressSorted(hosts), f[3]) << f[1];
      auto back = expand(f[2]);
      ASSERT_TRUE(back.ok()) << back.error();
      EXPECT_EQ(*back, hosts) << f[2];
      ++compress_rows;
    } else {
      ASSERT_EQ(f[0], "expand") << line;
      auto got = expand(f[1]);
      ASSERT_TRUE(got.ok()) << f[1] << ": " << got.error();
      EXPECT_EQ(*got, split(f.size() > 2 ? f[2] : "", ' ')) << f[1];
      ++expand_rows;
    }
  }
  EXPECT_GT(compress_rows, 100);
  EXPECT_GT(expand_rows, 100);
}

TEST(HostlistRoundTrip, ExpandOfCompressGivesTheHostsBack) {
  const std::vector<std::vector<std::string>> inputs = {
      {"node01", "node02", "node03", "node07"},
      {"node3", "node1", "node2"},
      {"n9", "n10", "n11", "n009", "n010", "n0", "n00"},
      {"a", "a", "b1", "b1", "b2", "c-3x", "1", "2", "007"},
      {"rack1-n01", "rack1-n02", "rack2-n01", "rack10-n01"},
      {"gpu1-ib", "gpu2-ib", "x.y.z"},
  };
  for (const auto& hosts : inputs) {
    auto back = expand(compress(hosts));
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(*back, hosts) << compress(hosts);

    auto sorted_back = expand(compressSorted(hosts));
    ASSERT_TRUE(sorted_back.ok()) << sorted_back.error();
    auto sorted = hosts;
    sortHosts(sorted);
    EXPECT_EQ(*sorted_back, sorted) << compressSorted(hosts);
    auto a = *sorted_back, b = hosts;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    EXPECT_EQ(a, b) << "sorting must keep every host";
  }
}

TEST(HostlistRoundTrip, LargeRangesStayCheap) {
  std::vector<std::string> hosts;
  for (int i = 1; i <= 12500; ++i) hosts.push_back("gpu" + std::to_string(100000 + i).substr(1));
  EXPECT_EQ(compress(hosts), "gpu[00001-12500]");
  EXPECT_EQ(compressSorted(hosts), "gpu[00001-12500]");
  auto back = expand("gpu[00001-12500]");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, hosts);
}

}  // namespace
}  // namespace drover::hostlist
