#pragma once
// Slurm hostlist expressions: "gpu[001-016]", "rack[1-2]-n[01-04]", "a,b[1,3-5]".
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "drover/result.h"

namespace drover::hostlist {

// Expansion is bounded so a hostile "n[0-999999999]" gives an error instead of eating memory.
inline constexpr std::size_t kDefaultMaxHosts = 1'000'000;

// Expand to the host names in the order written (duplicates kept), as `scontrol show hostnames`.
// Also accepts text after the last bracket group (gpu[1-2]-ib), which Slurm 22.05 rejects.
// Errors name the expression, the 1-based position and what is accepted.
Result<std::vector<std::string>> expand(std::string_view expr,
                                        std::size_t max_hosts = kDefaultMaxHosts);

// Compress in the order given, as `scontrol show hostlist` (node3,node1,node2 -> node[3,1-2]).
std::string compress(const std::vector<std::string>& hosts);

// Sort (numerically within a prefix), then compress, as `scontrol show hostlistsorted`;
// Slurm's daemons print node lists this way. Like Slurm, duplicates are kept
// (node1,node1,node2 -> node[1,1-2]); pass distinct names for a set.
std::string compressSorted(std::vector<std::string> hosts);

// Sort host names the way Slurm orders them: by prefix, then by numeric suffix.
void sortHosts(std::vector<std::string>& hosts);

}  // namespace drover::hostlist
