// Built twice: against the full messages (auth_binding_full_test) and against the lite ones the
// CLIs link (auth_binding_lite_test, cmake/DroverLite.cmake). The controller checks each CLI
// credential against the digest of the request it parsed with the full runtime, so both
// runtimes must serialize a request to the same bytes, map entries included; the same golden
// digest in both builds says they do.
#include <gtest/gtest.h>

#include <string>

#include "auth/request_binding.h"
#include "drover/v1/jobs.pb.h"

namespace drover::auth {
namespace {

TEST(RequestBindingRuntimeTest, DigestIsTheSameOnFullAndLiteRuntimes) {
  v1::UpdateJobRequest request;
  request.set_job_id("4242_[1-3]");
  // Inserted backwards: a map's own iteration order is not key order, deterministic
  // serialization must sort.
  for (int i = 40; i >= 0; --i) {
    (*request.mutable_fields())["Key" + std::to_string(i)] = std::string(i, 'v');
  }
  EXPECT_EQ(bindingPayload("/drover.v1.Controller/UpdateJob", request),
            "drover/v1\n/drover.v1.Controller/UpdateJob\n"
            "09816673457e94026d005bb154d0ad4f7c2244e0948760d0fc8b4a08d0e646ae");
}

TEST(RequestBindingRuntimeTest, SubmissionDigestIsTheSameOnFullAndLiteRuntimes) {
  v1::SubmitJobRequest request;
  v1::JobSpec& spec = *request.mutable_spec();
  spec.set_name("train");
  spec.set_time_limit_min(-1);  // UNLIMITED: a negative varint
  spec.set_min_nodes(2);
  spec.set_mem_per_node_mb(1ULL << 40);
  auto* gres = spec.add_gres();
  gres->set_name("gpu");
  gres->set_type("h100");
  gres->set_count(8);
  spec.mutable_gpus_per_task()->set_count(1);
  spec.set_script("#!/bin/sh\ntrue\n");
  spec.add_script_args("--epochs=3");
  spec.add_script_args("");
  for (const char* name : {"PATH", "HOME", "CUDA_HOME", "OMP_NUM_THREADS", "LANG", "A", "Z"}) {
    (*spec.mutable_environment())[name] = std::string("value of ") + name;
  }
  EXPECT_EQ(requestDigest(request), "5c328f053e488e7589c3f1d25a07ca2c7697b1f5388d5f407a439bc516347fc1");
}

}  // namespace
}  // namespace drover::auth
