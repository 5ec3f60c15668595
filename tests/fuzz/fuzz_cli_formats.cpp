// The output formats users write on the command line: squeue/sinfo -o, sinfo -O, sshare -o,
// squeue/sinfo -i's interval, and scontrol's job arguments. Whatever the text, parsing gives a
// value or an error with a message, and a format that parses renders any data without
// crashing; sshare's fixed-width columns give lines of one length.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cli/format_spec.h"
#include "cli/iterate.h"
#include "cli/scontrol_partition_update.h"
#include "cli/scontrol_pids.h"
#include "cli/scontrol_wait_notify.h"
#include "cli/sinfo.h"
#include "cli/squeue.h"
#include "cli/squeue_view.h"
#include "cli/sshare_view.h"
#include "fuzz_check.h"

namespace {

using namespace drover;
using namespace drover::cli;

constexpr std::int64_t kNow = 1796040000;

v1::GetSharesReply shareTree() {
  v1::GetSharesReply reply;
  auto* root = reply.add_shares();
  root->set_account("root");
  root->set_is_root(true);
  auto* user = reply.add_shares();
  user->set_account("a-rather-long-account-name");
  user->set_user("alice");
  user->set_depth(1);
  user->set_raw_shares(1);
  user->set_raw_usage(1e12);
  user->set_tres_run_cpu_mins(123456789);
  return reply;
}

void checkSshare(std::string_view text) {
  auto columns = parseSshareFormat(text);
  if (!columns.ok()) {
    FUZZ_CHECK(!columns.error().empty(), "empty sshare error");
    return;
  }
  FUZZ_CHECK(!columns->empty(), "no sshare columns from '%.*s'", int(text.size()), text.data());
  SshareOptions options;
  options.columns = *columns;
  options.cluster_name = "cluster";
  const std::string out = renderSshare(options, shareTree());
  std::size_t width = std::string::npos, start = 0;
  while (start < out.size()) {
    const std::size_t end = out.find('\n', start);
    FUZZ_CHECK(end != std::string::npos, "unterminated sshare line");
    if (width == std::string::npos) width = end - start;
    FUZZ_CHECK(end - start == width, "sshare lines of different lengths for '%.*s'", int(text.size()),
               text.data());
    start = end + 1;
  }
  options.parsable = true;
  (void)renderSshare(options, shareTree());
}

void checkSqueue(const std::string& text) {
  v1::JobInfo job;
  job.set_job_id(7);
  job.set_state(v1::JOB_RUNNING);
  job.set_name(text);
  job.mutable_spec()->set_name(text);
  job.mutable_spec()->set_std_out(text);
  job.set_start_time(kNow - 100);
  for (const char* option : {"-o", "-O"}) {
    auto parsed = parseSqueueArgs({option, text});
    if (parsed.ok()) (void)renderSqueue(parsed->options, {job}, kNow);
  }
  std::vector<std::string> warnings;
  (void)invalidSortKey(text, &warnings);
  // --yaml of a job whose texts are the input: a whole document whatever they hold.
  auto yaml = parseSqueueArgs({"--yaml"});
  FUZZ_CHECK(yaml.ok(), "--yaml refused");
  auto out = renderSqueue(yaml->options, {job}, kNow);
  FUZZ_CHECK(out.ok() && out->size() > 4 && out->compare(out->size() - 4, 4, "...\n") == 0,
             "--yaml document not closed for '%s'", text.c_str());
}

void checkSinfo(const std::string& text, const char* option) {
  auto parsed = parseSinfoArgs({option, text});
  if (!parsed.ok()) {
    FUZZ_CHECK(!parsed.error().empty(), "empty sinfo error");
    return;
  }
  v1::NodeInfo node;
  node.set_name("node1");
  node.add_partitions("gpu");
  node.mutable_configured()->set_cpus(16);
  v1::PartitionInfo partition;
  partition.set_name("gpu");
  partition.set_nodes("node1");
  (void)renderSinfo(parsed->options, {node}, {partition}, kNow);
}

// scontrol's job arguments (wait_job/notify's JOB, listpids' JOB[.STEP]): a job id that parses
// is the text's leading digits, and a listpids target names a job only when it has them.
void checkJobArguments(const std::string& text) {
  const auto id = leadingJobId(text);
  FUZZ_CHECK(!id || (*id > 0 && !text.empty() && text[0] >= '0' && text[0] <= '9'),
             "job id from '%s'", text.c_str());
  const auto parsed = parsePidsTarget(text);
  if (const auto* target = std::get_if<PidsTarget>(&parsed)) {
    FUZZ_CHECK(target->job_id == 0 || id, "listpids job from '%s'", text.c_str());
  } else {
    FUZZ_CHECK(!std::get<PidsTargetError>(parsed).message.empty(), "empty listpids complaint");
  }
}

// scontrol update PartitionName=: the text's space-separated words after a partition name. A
// request that parses changes something and carries only values the controller can take;
// a refusal is lines ending in a newline.
void checkPartitionUpdate(const std::string& text) {
  std::vector<std::string> words{"PartitionName=p"};
  std::string word;
  for (char c : text + " ") {
    if (c != ' ') {
      word += c;
    } else if (!word.empty()) {
      words.push_back(std::move(word));
      word.clear();
    }
  }
  auto r = parseUpdatePartition(words);
  if (!r.ok()) {
    FUZZ_CHECK(!r.error().empty() && r.error().back() == '\n', "refusal of '%s'", text.c_str());
    return;
  }
  FUZZ_CHECK(r->name() == "p" || words.size() > 1, "name from '%s'", text.c_str());
  FUZZ_CHECK(!r->has_state() || r->state() == "UP" || r->state() == "DOWN" ||
                 r->state() == "DRAIN" || r->state() == "INACTIVE",
             "state '%s' from '%s'", r->state().c_str(), text.c_str());
  FUZZ_CHECK(!r->has_max_time_min() || r->max_time_min() >= -1, "max time from '%s'",
             text.c_str());
  FUZZ_CHECK(!r->has_max_nodes() || r->max_nodes() == -1 || r->max_nodes() >= 1,
             "max nodes from '%s'", text.c_str());
  FUZZ_CHECK(!r->has_priority_tier() || r->priority_tier() <= 65533, "tier from '%s'",
             text.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 512) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);

  if (auto seconds = parseIterateSeconds(text)) {
    FUZZ_CHECK(*seconds >= 1, "interval %d from '%s'", *seconds, text.c_str());
  }
  if (auto format = parseFormat(text); format.ok()) {
    for (const auto& item : *format) {
      FUZZ_CHECK(!item.is_field || item.field.width >= 0, "negative width in '%s'", text.c_str());
    }
  }
  if (auto items = parseLongFormatItems(text); items.ok()) {
    for (const auto& item : *items) {
      FUZZ_CHECK(item.spec.width >= 0 && item.spec.width <= kMaxFieldWidth, "width %d",
                 item.spec.width);
    }
  }
  checkSshare(text);
  checkSqueue(text);
  checkSinfo(text, "-o");
  checkSinfo(text, "-O");
  checkJobArguments(text);
  checkPartitionUpdate(text);
  return 0;
}
