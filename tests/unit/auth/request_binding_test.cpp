#include "auth/request_binding.h"

#include <gtest/gtest.h>

#include "drover/v1/controller.pb.h"
#include "drover/v1/jobs.pb.h"

namespace drover::auth {
namespace {

TEST(RequestBindingTest, PayloadIsTagMethodAndHexSha256) {
  v1::PingRequest empty;
  // SHA-256 of the empty string: an empty message serializes to no bytes.
  EXPECT_EQ(bindingPayload("/drover.v1.Controller/Ping", empty),
            "drover/v1\n/drover.v1.Controller/Ping\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(RequestBindingTest, DigestIgnoresMapInsertionOrder) {
  v1::UpdateJobRequest forward;
  v1::UpdateJobRequest backward;
  forward.set_job_id("7");
  backward.set_job_id("7");
  std::vector<std::pair<std::string, std::string>> fields;
  for (int i = 0; i < 50; ++i) fields.emplace_back("Key" + std::to_string(i), std::to_string(i));
  for (const auto& [k, v] : fields) (*forward.mutable_fields())[k] = v;
  for (auto it = fields.rbegin(); it != fields.rend(); ++it) (*backward.mutable_fields())[it->first] = it->second;

  EXPECT_EQ(requestDigest(forward), requestDigest(backward));
  (*backward.mutable_fields())["Key0"] = "changed";
  EXPECT_NE(requestDigest(forward), requestDigest(backward));
}

}  // namespace
}  // namespace drover::auth
