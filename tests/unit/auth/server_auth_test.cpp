// authenticate() pieces that need no network: a call that carries no credential at all.
#include "rpc/server_auth.h"

#include <gtest/gtest.h>

#include "drover/v1/controller.pb.h"

namespace drover::rpc {
namespace {

TEST(ServerAuthTest, MissingMetadataIsDenied) {
  grpc::ServerContext ctx;  // no client metadata
  v1::PingRequest request;
  Caller caller{123, 456};
  const grpc::Status status = authenticate(ctx, request, "/nonexistent/munge.socket", &caller);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_NE(status.error_message().find("no MUNGE credential"), std::string::npos) << status.error_message();
  EXPECT_EQ(caller.uid, 123u);  // untouched on failure
}

}  // namespace
}  // namespace drover::rpc
