#pragma once
// sinfo's output for command-line `args` over `nodes` and the reference cluster's partitions at
// the capture time, as the sinfo tests compare it with the reference's captures.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/sinfo.h"
#include "cli/sinfo_view.h"
#include "reference_cluster.h"

namespace drover::cli::testing {

inline std::string renderSinfoArgs(const std::vector<std::string>& args,
                                   const std::vector<v1::NodeInfo>& nodes) {
  auto cmd = parseSinfoArgs(args);
  EXPECT_TRUE(cmd.ok()) << cmd.error();
  if (!cmd.ok()) return {};
  auto text = renderSinfo(cmd->options, nodes, referencePartitions(), kCaptureTime);
  EXPECT_TRUE(text.ok()) << text.error();
  return text.ok() ? *text : std::string();
}

}  // namespace drover::cli::testing
