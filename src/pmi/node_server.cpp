#include "pmi/node_server.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "pmi/process_mapping.h"

namespace drover::pmi {
namespace {

constexpr const char* kMappingKey = "PMI_process_mapping";
// A ring entry's key in a fence's pairs: the prefix, then the rank (no client key starts with
// a control character).
constexpr std::string_view kRingPrefix = "\x1dring:";

bool isRingEntry(const std::string& key) {
  return key.compare(0, kRingPrefix.size(), kRingPrefix) == 0;
}

// "count left right" with the lengths first, so values may hold anything.
std::string ringEntry(const std::string& count, const std::string& left,
                      const std::string& right) {
  return std::to_string(left.size()) + " " + std::to_string(right.size()) + " " + count + " " +
         left + right;
}

struct RingEntry {
  std::uint32_t rank = 0;
  long count = 1;
  std::string left, right;
};

std::optional<RingEntry> readRingEntry(const std::string& key, const std::string& value) {
  RingEntry e;
  e.rank = static_cast<std::uint32_t>(std::strtoul(key.c_str() + kRingPrefix.size(), nullptr, 10));
  std::size_t left = 0, right = 0;
  int consumed = 0;
  if (std::sscanf(value.c_str(), "%zu %zu %ld %n", &left, &right, &e.count, &consumed) != 3 ||
      static_cast<std::size_t>(consumed) + left + right != value.size()) {
    return std::nullopt;
  }
  e.left = value.substr(static_cast<std::size_t>(consumed), left);
  e.right = value.substr(static_cast<std::size_t>(consumed) + left, right);
  return e;
}

int toInt(const std::string* text, int fallback) {
  if (text == nullptr) return fallback;
  int value = fallback;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  return ec == std::errc() && end == text->data() + text->size() ? value : fallback;
}

// PMI-1 values are blank-separated: a message there joins its words with '_'.
std::string lineWord(std::string text) {
  for (char& c : text)
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') c = '_';
  return text;
}

}  // namespace

NodeServer::NodeServer(Options options) : options_(std::move(options)) {
  tasks_.resize(options_.ranks.size());
  // All the step's tasks are here: nothing to learn from srun, nobody else to fence with.
  if (options_.ranks.size() >= options_.size)
    start(processMapping(std::vector<std::uint32_t>(options_.size, 0)));
}

void NodeServer::start(const std::string& process_mapping) {
  if (started_) return;
  started_ = true;
  process_mapping_ = process_mapping;
  kvs_[kMappingKey] = process_mapping;
  for (std::size_t i = 0; i < tasks_.size(); ++i) pump(i);
}

void NodeServer::received(std::size_t local, std::string_view bytes) {
  Task& task = tasks_.at(local);
  if (!task.error.empty()) return;
  task.reader.append(bytes);
  pump(local);
}

void NodeServer::closed(std::size_t local) {
  tasks_.at(local).closed = true;
  maybeFence();
}

void NodeServer::pump(std::size_t local) {
  Task& task = tasks_[local];
  while (started_ && task.error.empty() && task.wait == Wait::kNone) {
    Command command;
    std::string error;
    const Wire wire = task.reader.wire();
    const auto next = task.reader.next(command, error);
    if (next == CommandReader::Next::kNeedMore) break;
    if (next == CommandReader::Next::kError) {
      task.error = error;
      break;
    }
    if (wire == Wire::kLines) handleLines(local, command);
    else handleFramed(local, command);
  }
  maybeFence();
}

void NodeServer::reply(std::size_t local, std::string_view name, const Pairs& args) {
  Task& task = tasks_[local];
  if (!task.closed) task.output += encode(task.reader.wire(), name, args);
}

const std::string* NodeServer::lookup(const std::string& key) const {
  if (auto it = kvs_.find(key); it != kvs_.end()) return &it->second;
  // A task's own puts are readable before the fence that publishes them.
  for (auto it = unfenced_.rbegin(); it != unfenced_.rend(); ++it)
    if (it->first == key) return &it->second;
  return nullptr;
}

void NodeServer::handleLines(std::size_t local, const Command& c) {
  Task& task = tasks_[local];
  const std::string size = std::to_string(options_.size);
  if (c.name == "init") {
    const std::string* version = c.find("pmi_version");
    if (version != nullptr && *version == "2") {
      // The client speaks PMI-2 from its next command on.
      reply(local, "response_to_init",
            {{"pmi_version", "2"}, {"pmi_subversion", "0"}, {"rc", "0"}});
      task.reader.useFramedWire();
    } else if (version == nullptr || *version == "1") {
      reply(local, "response_to_init",
            {{"pmi_version", "1"}, {"pmi_subversion", "1"}, {"rc", "0"}});
    } else {
      reply(local, "response_to_init",
            {{"pmi_version", "1"}, {"pmi_subversion", "1"}, {"rc", "-1"},
             {"msg", "PMI_version_" + lineWord(*version) + "_is_not_supported"}});
    }
  } else if (c.name == "get_maxes") {
    reply(local, "maxes", {{"kvsname_max", std::to_string(kKvsNameMax)},
                           {"keylen_max", std::to_string(kKeyMax)},
                           {"vallen_max", std::to_string(kValueMax)}, {"rc", "0"}});
  } else if (c.name == "get_appnum") {
    reply(local, "appnum", {{"appnum", "0"}, {"rc", "0"}});
  } else if (c.name == "get_my_kvsname") {
    reply(local, "my_kvsname", {{"kvsname", options_.jobid}, {"rc", "0"}});
  } else if (c.name == "get_universe_size") {
    reply(local, "universe_size", {{"size", size}, {"rc", "0"}});
  } else if (c.name == "put") {
    const std::string* key = c.find("key");
    const std::string* value = c.find("value");
    if (key == nullptr || value == nullptr) {
      reply(local, "put_result", {{"rc", "-1"}, {"msg", "put_needs_key_and_value"}});
      return;
    }
    unfenced_.emplace_back(*key, *value);
    reply(local, "put_result", {{"rc", "0"}});
  } else if (c.name == "get") {
    const std::string* key = c.find("key");
    const std::string* value = key ? lookup(*key) : nullptr;
    if (value != nullptr) reply(local, "get_result", {{"rc", "0"}, {"value", *value}});
    else reply(local, "get_result",
               {{"rc", "-1"}, {"msg", "key_" + lineWord(key ? *key : "") + "_not_found"}});
  } else if (c.name == "getbyidx") {
    const int index = toInt(c.find("idx"), -1);
    auto it = kvs_.begin();
    for (int i = 0; i < index && it != kvs_.end(); ++i) ++it;
    if (index < 0 || it == kvs_.end()) {
      reply(local, "getbyidx_results", {{"rc", "-2"}, {"reason", "no_more_keyvals"}});
    } else {
      reply(local, "getbyidx_results", {{"rc", "0"}, {"nextidx", std::to_string(index + 1)},
                                        {"key", it->first}, {"val", it->second}});
    }
  } else if (c.name == "barrier_in") {
    task.wait = Wait::kFence;
  } else if (c.name == "finalize") {
    task.finalized = true;
    reply(local, "finalize_ack", {{"rc", "0"}});
  } else if (c.name == "abort") {
    aborts_.push_back({options_.ranks[local], toInt(c.find("exitcode"), 1), ""});
  } else {
    // spawn, publish_name, lookup_name, ...: Drover's steps are fixed at launch.
    static const std::map<std::string, std::string> kReplies = {
        {"spawn", "spawn_result"},
        {"publish_name", "publish_result"},
        {"unpublish_name", "unpublish_result"},
        {"lookup_name", "lookup_result"}};
    const auto known = kReplies.find(c.name);
    reply(local, known != kReplies.end() ? known->second : c.name + "_result",
          {{"rc", "-1"}, {"msg", "PMI_command_" + lineWord(c.name) + "_is_not_supported_by_Drover"}});
  }
}

std::string NodeServer::jobAttribute(const std::string& key) const {
  if (key == kMappingKey) return process_mapping_;
  if (key == "universeSize") return std::to_string(options_.size);
  return {};
}

void NodeServer::handleFramed(std::size_t local, const Command& c) {
  Task& task = tasks_[local];
  const auto found = [](const std::string* value) -> Pairs {
    if (value == nullptr) return {{"rc", "0"}, {"found", "FALSE"}};
    return {{"rc", "0"}, {"found", "TRUE"}, {"value", *value}};
  };
  if (c.name == "fullinit") {
    reply(local, "fullinit-response",
          {{"rc", "0"}, {"pmi-version", "2"}, {"pmi-subversion", "0"},
           {"rank", std::to_string(options_.ranks[local])}, {"size", std::to_string(options_.size)},
           {"appnum", "0"}, {"debugged", "FALSE"}, {"pmiverbose", "FALSE"}});
  } else if (c.name == "job-getid") {
    reply(local, "job-getid-response", {{"rc", "0"}, {"jobid", options_.jobid}});
  } else if (c.name == "info-getjobattr") {
    const std::string* key = c.find("key");
    const std::string value = key ? jobAttribute(*key) : "";
    reply(local, "info-getjobattr-response", found(value.empty() ? nullptr : &value));
  } else if (c.name == "info-putnodeattr") {
    const std::string* key = c.find("key");
    const std::string* value = c.find("value");
    if (key == nullptr || value == nullptr) {
      reply(local, "info-putnodeattr-response", {{"rc", "-1"}, {"errmsg", "key and value are required"}});
      return;
    }
    node_attributes_[*key] = *value;
    reply(local, "info-putnodeattr-response", {{"rc", "0"}});
    // Tasks waiting for it are answered now.
    for (std::size_t i = 0; i < tasks_.size(); ++i) {
      Task& other = tasks_[i];
      if (other.wait != Wait::kNodeAttribute || other.wait_key != *key) continue;
      other.wait = Wait::kNone;
      reply(i, "info-getnodeattr-response", found(&node_attributes_[*key]));
      if (i != local) pump(i);
    }
  } else if (c.name == "info-getnodeattr") {
    const std::string* key = c.find("key");
    const std::string* wait = c.find("wait");
    const auto it = key ? node_attributes_.find(*key) : node_attributes_.end();
    if (it != node_attributes_.end()) {
      reply(local, "info-getnodeattr-response", found(&it->second));
    } else if (key != nullptr && wait != nullptr && *wait == "TRUE") {
      task.wait = Wait::kNodeAttribute;
      task.wait_key = *key;
    } else {
      reply(local, "info-getnodeattr-response", found(nullptr));
    }
  } else if (c.name == "kvs-put") {
    const std::string* key = c.find("key");
    const std::string* value = c.find("value");
    if (key == nullptr || value == nullptr) {
      reply(local, "kvs-put-response", {{"rc", "-1"}, {"errmsg", "key and value are required"}});
      return;
    }
    unfenced_.emplace_back(*key, *value);
    reply(local, "kvs-put-response", {{"rc", "0"}});
  } else if (c.name == "kvs-get") {
    const std::string* key = c.find("key");
    reply(local, "kvs-get-response", found(key ? lookup(*key) : nullptr));
  } else if (c.name == "kvs-fence") {
    task.wait = Wait::kFence;
  } else if (c.name == "ring") {
    const std::string* count = c.find("ring-count");
    const std::string* left = c.find("ring-left");
    const std::string* right = c.find("ring-right");
    task.wait = Wait::kRing;
    unfenced_.emplace_back(std::string(kRingPrefix) + std::to_string(options_.ranks[local]),
                           ringEntry(count ? *count : "1", left ? *left : "", right ? *right : ""));
  } else if (c.name == "finalize") {
    task.finalized = true;
    reply(local, "finalize-response", {{"rc", "0"}});
  } else if (c.name == "abort") {
    const std::string* message = c.find("msg");
    aborts_.push_back({options_.ranks[local], 1, message ? *message : ""});
  } else {
    reply(local, c.name + "-response",
          {{"rc", "-1"}, {"errmsg", "PMI-2 command " + c.name + " is not supported by Drover"}});
  }
}

void NodeServer::maybeFence() {
  if (fence_pending_) return;
  bool any = false;
  for (const Task& t : tasks_) {
    if (t.closed || t.finalized || !t.error.empty()) continue;
    if (t.wait != Wait::kFence && t.wait != Wait::kRing) return;
    any = true;
  }
  if (!any) return;
  Fence fence{next_fence_, std::move(unfenced_)};
  unfenced_.clear();
  fence_pending_ = true;
  if (options_.ranks.size() >= options_.size) {
    fenceDone(fence.sequence, fence.pairs);
    return;
  }
  outgoing_ = std::move(fence);
}

void NodeServer::answerFence(std::size_t local, const Pairs& ring_entries) {
  Task& task = tasks_[local];
  const Wait wait = std::exchange(task.wait, Wait::kNone);
  if (wait == Wait::kFence) {
    if (task.reader.wire() == Wire::kLines) reply(local, "barrier_out", {{"rc", "0"}});
    else reply(local, "kvs-fence-response", {{"rc", "0"}});
    return;
  }
  // The ring in rank order: a task's place is the sum of the counts before it, its left the
  // value offered by the entry before it, its right the one after it (both wrapping).
  std::vector<RingEntry> ring;
  for (const auto& [key, value] : ring_entries)
    if (auto e = readRingEntry(key, value)) ring.push_back(std::move(*e));
  std::sort(ring.begin(), ring.end(),
            [](const RingEntry& a, const RingEntry& b) { return a.rank < b.rank; });
  const std::uint32_t rank = options_.ranks[local];
  long before = 0;
  for (std::size_t i = 0; i < ring.size(); ++i) {
    if (ring[i].rank != rank) {
      before += ring[i].count;
      continue;
    }
    const RingEntry& left = ring[(i + ring.size() - 1) % ring.size()];
    const RingEntry& right = ring[(i + 1) % ring.size()];
    reply(local, "ring-response", {{"rc", "0"}, {"ring-count", std::to_string(before)},
                                   {"ring-left", left.right}, {"ring-right", right.left}});
    return;
  }
  reply(local, "ring-response", {{"rc", "-1"}, {"errmsg", "the ring lost this task's entry"}});
}

void NodeServer::fenceDone(std::uint32_t sequence, const Pairs& pairs) {
  if (!fence_pending_ || sequence != next_fence_) return;  // not the fence this node is in
  Pairs ring_entries;
  for (const auto& [key, value] : pairs) {
    if (isRingEntry(key)) ring_entries.emplace_back(key, value);
    else kvs_[key] = value;
  }
  fence_pending_ = false;
  ++next_fence_;
  for (std::size_t i = 0; i < tasks_.size(); ++i)
    if (tasks_[i].wait == Wait::kFence || tasks_[i].wait == Wait::kRing)
      answerFence(i, ring_entries);
  for (std::size_t i = 0; i < tasks_.size(); ++i) pump(i);
}

std::string NodeServer::takeOutput(std::size_t local) {
  return std::exchange(tasks_.at(local).output, std::string());
}

std::optional<Fence> NodeServer::takeFence() { return std::exchange(outgoing_, std::nullopt); }

std::vector<Abort> NodeServer::takeAborts() { return std::exchange(aborts_, {}); }

}  // namespace drover::pmi
