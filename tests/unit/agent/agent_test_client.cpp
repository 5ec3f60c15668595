// Calls Agent.LaunchStep once as whoever runs it (tests run it as another user) and exits with
// the gRPC status code, so a test can see which callers the agent refuses.
#include <grpcpp/grpcpp.h>

#include <iostream>

#include "drover/v1/agent.grpc.pb.h"
#include "rpc/client.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: agent_test_client HOST:PORT MUNGE_SOCKET\n";
    return 100;
  }
  drover::rpc::ClientOptions opts{argv[1], argv[2], 10000};
  drover::v1::LaunchStepRequest req;
  req.mutable_step()->set_job_id(98);
  req.mutable_step()->set_step_id(-5);
  req.set_script("#!/bin/sh\ntrue\n");
  grpc::ClientContext ctx;
  auto prepared = drover::rpc::prepareCall(ctx, "/drover.v1.Agent/LaunchStep", req, opts);
  if (!prepared) {
    std::cerr << prepared.error() << "\n";
    return 101;
  }
  drover::v1::LaunchStepReply rep;
  auto stub = drover::v1::Agent::NewStub(drover::rpc::makeChannel(opts.target));
  const grpc::Status st = stub->LaunchStep(&ctx, req, &rep);
  std::cerr << st.error_message() << "\n";
  return st.error_code();
}
