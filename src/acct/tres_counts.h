#pragma once
// A job's TRES strings as counts, for usage sums: what sreport multiplies by seconds, read the
// same way by the controller's sums (ctld/usage_query) and by sreport's job-size columns.
#include <cstdint>
#include <map>
#include <string>

namespace drover::acct {

// "billing=4,cpu=4,gres/gpu=2,mem=16000M,node=2" as counts; mem in MB (Slurm's sizes carry a
// unit when not whole MB: "62.50G"). Malformed items are skipped.
std::map<std::string, double> parseTresCounts(const std::string& text);

// A job's allocated TRES (AllocTRES); a record without one counts its NCPUS as cpu.
std::map<std::string, double> allocatedCounts(const std::string& alloc_tres, std::uint32_t ncpus);
// A job's requested TRES (ReqTRES); a record without one counts its ReqCPUS as cpu.
std::map<std::string, double> requestedCounts(const std::string& req_tres, std::uint32_t req_cpus);

}  // namespace drover::acct
