#include "cli/bcast_defaults.h"

namespace drover::cli {

BcastCodec bcastCodecFor(const std::optional<std::string>& option, const config::BcastConfig& conf) {
  const std::string name = option ? (option->empty() ? "lz4" : *option) : conf.compression;
  return parseBcastCodec(name).value_or(BcastCodec::kNone);
}

bool sendLibsFor(std::optional<bool> option, const config::BcastConfig& conf) {
  return option.value_or(conf.send_libs);
}

std::string bcastExcludeFor(const std::optional<std::string>& option, const config::BcastConfig& conf) {
  return option ? *option : config::bcastExcludeText(conf);
}

std::string bcastDirectoryFor(const config::BcastConfig& conf, const std::string& cwd) {
  return conf.dest_dir.empty() ? cwd : conf.dest_dir;
}

}  // namespace drover::cli
