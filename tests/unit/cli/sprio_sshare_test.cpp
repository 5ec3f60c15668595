// sprio and sshare: options, and output compared byte for byte with Slurm's (golden 084
// `sprio -l`, 085 `sshare -a`, captured on the reference cluster whose weights and account
// tree etc/cluster.conf mirrors).
#include <gtest/gtest.h>

#include <limits>

#include "cli/sprio.h"
#include "cli/sshare.h"
#include "reference_cluster.h"

namespace drover::cli {
namespace {

v1::PriorityWeights referenceWeights() {
  v1::PriorityWeights w;
  w.set_age(1000);
  w.set_fairshare(10000);
  w.set_job_size(1000);
  w.set_partition(1000);
  w.set_qos(1000);
  w.set_site(1);
  return w;
}

v1::JobPriority pendingJob(std::uint64_t id, const std::string& user, double job_size) {
  v1::JobPriority j;
  j.set_job_id(id);
  j.set_partition("gpu");
  j.set_user(user);
  j.set_account("research");
  j.set_fairshare(1.0);
  j.set_job_size(job_size);
  j.set_partition_factor(0.1);
  j.set_priority(10000 + static_cast<std::int64_t>(job_size * 1000) + 100);
  return j;
}

v1::GetPrioritiesReply referenceQueue() {
  v1::GetPrioritiesReply r;
  *r.mutable_weights() = referenceWeights();
  *r.add_jobs() = pendingJob(33, "alice", 0.531);
  *r.add_jobs() = pendingJob(34, "alice", 0.531);
  *r.add_jobs() = pendingJob(35, "bob", 0.531);
  return r;
}

std::string sprio(SprioOptions o, const v1::GetPrioritiesReply& r = referenceQueue()) {
  auto text = renderSprio(o, r);
  EXPECT_TRUE(text.ok()) << (text.ok() ? "" : text.error());
  return text.ok() ? *text : "";
}

TEST(SprioViewTest, LongMatchesSlurm) {
  SprioOptions o;
  o.long_format = true;
  EXPECT_EQ(sprio(o), testing::goldenStdout("084-sprio-l.txt"));
}

TEST(SprioViewTest, Variants) {
  struct Case {
    std::string name;
    SprioOptions options;
    std::string want;
  };
  SprioOptions def, weights, norm, sorted, custom, user, norm_user;
  user.users = true;
  norm_user.users = norm_user.norm = true;
  weights.weights = true;
  norm.norm = true;
  norm.no_header = true;
  sorted.sort = "-u,i";
  sorted.format = "%i %u";
  sorted.no_header = true;
  custom.format = "%.4i|%F|%f|%Y";
  const std::vector<Case> cases = {
      // sprio(1)'s short default has no NICE; -n's factors are left-justified without SITE
      // or NICE and its priority cut from 14 places, as the reference printed them.
      {"default", def,
       "          JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE    JOBSIZE  PARTITION        QOS\n"
       "             33 gpu            10631          0          0      10000        531        100          0\n"
       "             34 gpu            10631          0          0      10000        531        100          0\n"
       "             35 gpu            10631          0          0      10000        531        100          0\n"},
      {"weights", weights,
       "          JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE    JOBSIZE  PARTITION        QOS\n"
       "        Weights                               1       1000      10000       1000       1000       1000\n"},
      {"norm", norm,
       "             33 gpu       0.00000247 0.0000000  1.0000000  0.5310000  0.1000000  0.0000000 \n"
       "             34 gpu       0.00000247 0.0000000  1.0000000  0.5310000  0.1000000  0.0000000 \n"
       "             35 gpu       0.00000247 0.0000000  1.0000000  0.5310000  0.1000000  0.0000000 \n"},
      {"sorted", sorted, "35 bob\n33 alice\n34 alice\n"},
      // -u adds USER to the short defaults (the reference's `sprio -u alice`, `-n -u alice`).
      {"user", user,
       "          JOBID PARTITION     USER   PRIORITY       SITE        AGE  FAIRSHARE    JOBSIZE  PARTITION        QOS\n"
       "             33 gpu          alice      10631          0          0      10000        531        100          0\n"
       "             34 gpu          alice      10631          0          0      10000        531        100          0\n"
       "             35 gpu            bob      10631          0          0      10000        531        100          0\n"},
      {"norm user", norm_user,
       "          JOBID PARTITION     USER PRIORITY   AGE        FAIRSHARE  JOBSIZE    PARTITION  QOS       \n"
       "             33 gpu          alice 0.00000247 0.0000000  1.0000000  0.5310000  0.1000000  0.0000000 \n"
       "             34 gpu          alice 0.00000247 0.0000000  1.0000000  0.5310000  0.1000000  0.0000000 \n"
       "             35 gpu            bob 0.00000247 0.0000000  1.0000000  0.5310000  0.1000000  0.0000000 \n"},
      {"custom", custom,
       "JOBI|FAIRSHARE|FAIRSHARE|PRIORITY\n"  // a width truncates, as Slurm's
      
       "  33|10000|1.0000000|10631\n  34|10000|1.0000000|10631\n  35|10000|1.0000000|10631\n"},
  };
  for (const auto& c : cases) EXPECT_EQ(sprio(c.options), c.want) << c.name;
}

TEST(SprioViewTest, SkipsUnknownFieldsAndRejectsUnknownSortKeys) {
  SprioOptions bad_format, bad_sort;
  // The reference (2026-12-04): `sprio -o "%i %Z %Y"` printed its warning, then "JOBID
  // PRIORITY" and the rows, exit 0: the unknown field goes with the text after it.
  bad_format.format = "%i %Z %Y";
  std::vector<std::string> warnings;
  auto a = renderSprio(bad_format, referenceQueue(), &warnings);
  ASSERT_TRUE(a.ok()) << a.error();
  EXPECT_EQ(warnings, std::vector<std::string>{"Invalid job format specification: Z"});
  EXPECT_EQ(a->substr(0, a->find('\n')), "JOBID PRIORITY");
  bad_sort.sort = "zz";
  auto b = renderSprio(bad_sort, referenceQueue());
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error(), "Invalid sort specification: zz");
}

TEST(SprioArgsTest, Options) {
  auto c = parseSprioArgs({"-j1008,1009", "-u", "alice,bob", "-l", "-h", "-p", "gpu", "-w"});
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c->job_ids, (std::vector<std::uint64_t>{1008, 1009}));
  EXPECT_EQ(c->users, (std::vector<std::string>{"alice", "bob"}));
  EXPECT_EQ(c->partitions, (std::vector<std::string>{"gpu"}));
  EXPECT_TRUE(c->options.long_format);
  EXPECT_TRUE(c->options.no_header);
  EXPECT_TRUE(c->options.weights);
  auto long_form = parseSprioArgs({"--jobs=7", "--format=%i", "--norm", "--sort=-y"});
  ASSERT_TRUE(long_form.ok());
  EXPECT_EQ(long_form->job_ids, (std::vector<std::uint64_t>{7}));
  EXPECT_EQ(long_form->options.format, "%i");
  EXPECT_TRUE(long_form->options.norm);
  EXPECT_EQ(long_form->options.sort, "-y");
  auto bad = parseSprioArgs({"--bogus"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("unrecognized option '--bogus'"), std::string::npos);
  EXPECT_FALSE(parseSprioArgs({"-jx"}).ok());
}

v1::ShareInfo share(const std::string& account, const std::string& user, unsigned depth,
                    double norm_shares, double raw_usage, double effective, double fair_share) {
  v1::ShareInfo s;
  s.set_account(account);
  s.set_user(user);
  s.set_depth(depth);
  s.set_raw_shares(1);
  s.set_norm_shares(norm_shares);
  s.set_raw_usage(raw_usage);
  s.set_effective_usage(effective);
  s.set_fair_share(user.empty() ? -1 : fair_share);
  s.set_level_fs(std::numeric_limits<double>::infinity());
  return s;
}

v1::GetSharesReply referenceTree() {
  v1::GetSharesReply r;
  auto root = share("root", "", 0, 0, 0, 1, -1);
  root.set_is_root(true);
  *r.add_shares() = root;
  *r.add_shares() = share("root", "root", 1, 0.5, 0, 0, 1);
  *r.add_shares() = share("research", "", 1, 0.5, 0, 0, -1);
  *r.add_shares() = share("research", "alice", 2, 0.5, 0, 0, 1);
  *r.add_shares() = share("research", "bob", 2, 0.5, 0, 0, 1);
  for (int i = 0; i < r.shares_size(); ++i) r.mutable_shares(i)->set_association_id(static_cast<std::uint32_t>(i + 1));
  return r;
}

TEST(SshareViewTest, AllUsersMatchesSlurm) {
  EXPECT_EQ(renderSshare({}, referenceTree()), testing::goldenStdout("085-sshare-a.txt"));
}

TEST(SshareViewTest, Variants) {
  v1::GetSharesReply used = referenceTree();
  used.mutable_shares(0)->set_raw_usage(3600);
  used.mutable_shares(2)->set_raw_usage(3600);
  used.mutable_shares(2)->set_effective_usage(1);
  used.mutable_shares(3)->set_raw_usage(3600.7);
  used.mutable_shares(3)->set_effective_usage(1);
  used.mutable_shares(3)->set_norm_usage(1);
  used.mutable_shares(3)->set_fair_share(0.0625);
  used.mutable_shares(3)->set_level_fs(0.5);
  used.mutable_shares(3)->set_tres_run_cpu_mins(120);
  SshareOptions p2, p1, users_only, long_no_header;
  p2.parsable2 = true;
  p1.parsable = true;
  p1.no_header = true;
  users_only.users_only = true;
  users_only.no_header = true;
  long_no_header.long_format = true;
  long_no_header.no_header = true;
  long_no_header.users_only = true;
  struct Case {
    std::string name;
    SshareOptions options;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"parsable2", p2,
       "Account|User|RawShares|NormShares|RawUsage|EffectvUsage|FairShare\n"
       "root|||0.000000|3600|1.000000|\n"
       " root|root|1|0.500000|0|0.000000|1.000000\n"
       " research||1|0.500000|3600|1.000000|\n"
       "  research|alice|1|0.500000|3600|1.000000|0.062500\n"
       "  research|bob|1|0.500000|0|0.000000|1.000000\n"},
      {"parsable", p1, "root|||0.000000|3600|1.000000||\n"
                       " root|root|1|0.500000|0|0.000000|1.000000|\n"
                       " research||1|0.500000|3600|1.000000||\n"
                       "  research|alice|1|0.500000|3600|1.000000|0.062500|\n"
                       "  research|bob|1|0.500000|0|0.000000|1.000000|\n"},
      {"users only", users_only,
       " root                      root          1    0.500000           0      0.000000   1.000000 \n"
       "  research                alice          1    0.500000        3600      1.000000   0.062500 \n"
       "  research                  bob          1    0.500000           0      0.000000   1.000000 \n"},
      {"long", long_no_header,
       " root                      root          1    0.500000           0    0.000000      0.000000   1.000000        inf                                cpu=0,mem=0,energy=0,node=0,b+ \n"
       "  research                alice          1    0.500000        3600    1.000000      1.000000   0.062500   0.500000                                cpu=120,mem=0,energy=0,node=0+ \n"
       "  research                  bob          1    0.500000           0    0.000000      0.000000   1.000000        inf                                cpu=0,mem=0,energy=0,node=0,b+ \n"},
  };
  for (const auto& c : cases) EXPECT_EQ(renderSshare(c.options, used), c.want) << c.name;
}

TEST(SshareViewTest, FormatPicksFieldsWidthsAndSidesAsSlurm) {
  // Each expected text is what the reference Slurm 22.05 printed for `sshare -a -o ...` over
  // the same tree (golden 085's cluster), with the trailing spaces it prints.
  auto render = [](const std::string& format) {
    auto columns = parseSshareFormat(format);
    EXPECT_TRUE(columns.ok()) << columns.error();
    SshareOptions options;
    options.long_format = true;   // -o wins over -l
    if (columns.ok()) options.columns = *columns;
    options.cluster_name = "oracle";
    return renderSshare(options, referenceTree());
  };
  EXPECT_EQ(render("Norm,Grp,Raw,f,e,l,p,t,c"),
            " NormShares                    GrpTRESMins  RawShares  FairShare  EffectvUsage    LevelFS    Partition                    TRESRunMins    Cluster \n"
            "----------- ------------------------------ ---------- ---------- ------------- ---------- ------------ ------------------------------ ---------- \n"
            "   0.000000                                                           1.000000                         cpu=0,mem=0,energy=0,node=0,b+     oracle \n"
            "   0.500000                                         1   1.000000      0.000000        inf              cpu=0,mem=0,energy=0,node=0,b+     oracle \n"
            "   0.500000                                         1                 0.000000        inf              cpu=0,mem=0,energy=0,node=0,b+     oracle \n"
            "   0.500000                                         1   1.000000      0.000000        inf              cpu=0,mem=0,energy=0,node=0,b+     oracle \n"
            "   0.500000                                         1   1.000000      0.000000        inf              cpu=0,mem=0,energy=0,node=0,b+     oracle \n");
  EXPECT_EQ(render("Account%12,User%-8,RawShares%12"),
            "     Account User        RawShares \n"
            "------------ -------- ------------ \n"
            "        root                       \n"
            "        root root                1 \n"
            "    research                     1 \n"
            "    research alice               1 \n"
            "    research bob                 1 \n");
  EXPECT_EQ(render("User%-3,acc%5x,,GrpTRESRaw"),
            "Use Accou                     GrpTRESRaw \n"
            "--- ----- ------------------------------ \n"
            "     root cpu=0,mem=0,energy=0,node=0,b+ \n"
            "ro+  root cpu=0,mem=0,energy=0,node=0,b+ \n"
            "     res+ cpu=0,mem=0,energy=0,node=0,b+ \n"
            "al+   re+ cpu=0,mem=0,energy=0,node=0,b+ \n"
            "bob   re+ cpu=0,mem=0,energy=0,node=0,b+ \n");
  // ID, the association's id: 6 wide, right-justified ("I" is the first field so named).
  EXPECT_EQ(render("Account,User,ID"),
            "Account                    User     ID \n"
            "-------------------- ---------- ------ \n"
            "root                                 1 \n"
            " root                      root      2 \n"
            " research                            3 \n"
            "  research                alice      4 \n"
            "  research                  bob      5 \n");
  EXPECT_EQ(render("ID%-3"), "ID  \n--- \n1   \n2   \n3   \n4   \n5   \n");
  EXPECT_EQ(render("i"), render("ID"));
  // %0 and an unreadable width keep the field's own; -P ignores widths.
  EXPECT_EQ(render("USER%0,Account%abc"), render("User,Account"));
  auto parsable = parseSshareFormat("User%3,RawUsage");
  ASSERT_TRUE(parsable.ok());
  SshareOptions p2;
  p2.parsable2 = true;
  p2.columns = *parsable;
  v1::GetSharesReply used = referenceTree();
  used.mutable_shares(3)->set_raw_usage(7260);   // CPU-seconds: GrpTRESRaw counts minutes
  EXPECT_EQ(renderSshare(p2, used), "User|RawUsage\n|0\nroot|0\n|0\nalice|7260\nbob|0\n");
  p2.columns = *parseSshareFormat("User,GrpTRESRaw");
  p2.no_header = true;
  p2.users_only = true;
  EXPECT_EQ(renderSshare(p2, used),
            "root|cpu=0,mem=0,energy=0,node=0,billing=0,fs/disk=0,vmem=0,pages=0\n"
            "alice|cpu=121,mem=0,energy=0,node=0,billing=121,fs/disk=0,vmem=0,pages=0\n"
            "bob|cpu=0,mem=0,energy=0,node=0,billing=0,fs/disk=0,vmem=0,pages=0\n");
}

TEST(SshareViewTest, FormatErrorsAndHelpFormat) {
  for (const std::string bad : {"bogus", "Account, User", "IDx", "Accountx"}) {
    auto parsed = parseSshareFormat(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.error().rfind("Invalid field requested: \"", 0), 0u) << parsed.error();
  }
  EXPECT_EQ(parseSshareFormat("Account, User").error(), "Invalid field requested: \" User\"");
  EXPECT_FALSE(parseSshareFormat("").ok());
  EXPECT_FALSE(parseSshareFormat(",,").ok());
  EXPECT_FALSE(parseSshareFormat("User%99999999999999999999").ok());
  // The reference's list, in its layout.
  EXPECT_EQ(sshareHelpFormat(),
            "Account           Cluster           EffectvUsage      FairShare        \n"
            "GrpTRESMins       GrpTRESRaw        ID                LevelFS          \n"
            "NormShares        NormUsage         Partition         RawShares        \n"
            "RawUsage          TRESRunMins       User             \n");
  SshareOptions long_header;
  long_header.long_format = true;
  const std::string long_text = renderSshare(long_header, referenceTree());
  EXPECT_EQ(long_text.substr(0, long_text.find('\n') + 1),
            "Account                    User  RawShares  NormShares    RawUsage   NormUsage  EffectvUsage  FairShare    LevelFS                    GrpTRESMins                    TRESRunMins \n");
}

TEST(SshareArgsTest, Options) {
  auto c = parseSshareArgs({"-A", "research,ops", "-u", "alice", "-l", "-P", "-n", "-U"});
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c->accounts, (std::vector<std::string>{"research", "ops"}));
  EXPECT_EQ(c->users, (std::vector<std::string>{"alice"}));
  EXPECT_FALSE(c->all_users);
  EXPECT_TRUE(c->options.long_format && c->options.parsable2 && c->options.no_header &&
              c->options.users_only);
  auto all = parseSshareArgs({"--all", "--parsable"});
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->all_users && all->options.parsable);
  auto u_all = parseSshareArgs({"--users=all"});
  ASSERT_TRUE(u_all.ok());
  EXPECT_TRUE(u_all->all_users);
  EXPECT_FALSE(parseSshareArgs({"--bogus"}).ok());
  auto format = parseSshareArgs({"-l", "--format=user,fair", "--helpformat"});
  ASSERT_TRUE(format.ok()) << format.error();
  EXPECT_TRUE(format->help_format);
  ASSERT_EQ(format->options.columns.size(), 2u);
  EXPECT_EQ(format->options.columns[1].field, "FairShare");
  EXPECT_TRUE(sshareShowsCluster(parseSshareArgs({"-o", "c"})->options));
  auto bad_field = parseSshareArgs({"-o", "Account,bogus"});
  ASSERT_FALSE(bad_field.ok());
  EXPECT_EQ(bad_field.error(), "Invalid field requested: \"bogus\"");
}

}  // namespace
}  // namespace drover::cli
