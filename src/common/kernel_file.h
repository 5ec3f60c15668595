#pragma once
// Reading the small files the kernel generates (/proc, /sys, cgroup files) with plain system
// calls. They are read per step and per sample, where each system call counts (on a
// paravirtualized guest every one traps to the hypervisor: docs/performance.md) and an ifstream
// adds its own allocations and locale set-up on top.
#include <string>

namespace drover {

// The whole file, or "" when it cannot be opened (or on a read error, what came before it).
std::string readKernelFile(const std::string& path);

}  // namespace drover
