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

TEST(ServerAuthTest, IsAdminForRootAndNamedOperators) {
  struct Case {
    std::string name;
    Caller caller;
    std::vector<std::string> operators;
    bool admin;
  };
  const std::vector<Case> cases = {
      {"root", {0, 0}, {}, true},
      {"daemon (uid 1) listed", {1, 1}, {"daemon"}, true},
      {"daemon not listed", {1, 1}, {"nobody"}, false},
      {"unknown operator name", {1, 1}, {"no-such-user-drover"}, false},
      {"unknown uid", {424242, 424242}, {"daemon", "nobody"}, false},
  };
  for (const Case& c : cases) EXPECT_EQ(isAdmin(c.caller, c.operators), c.admin) << c.name;
}

}  // namespace
}  // namespace drover::rpc
