// Calls Agent.LaunchStep once as whoever runs it (tests run it as another user) and exits with
// the gRPC status code, so a test can see which callers the agent refuses. With --frames the
// call goes over the frame transport, as the controller's launches do, to the same port.
#include <grpcpp/grpcpp.h>

#include <iostream>
#include <string>

#include "drover/v1/agent.grpc.pb.h"
#include "rpc/client.h"
#include "wire/frame_client.h"

namespace {

int overGrpc(const std::string& target, const std::string& munge_socket,
             const drover::v1::LaunchStepRequest& req) {
  drover::rpc::ClientOptions opts{target, munge_socket, 10000};
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

int overFrames(const std::string& target, const std::string& munge_socket,
               const drover::v1::LaunchStepRequest& req) {
  drover::wire::ClientOptions opts;
  const auto colon = target.rfind(':');
  opts.host = target.substr(0, colon);
  opts.port = static_cast<std::uint16_t>(std::stoi(target.substr(colon + 1)));
  opts.munge_socket = munge_socket;
  drover::v1::LaunchStepReply rep;
  drover::wire::CallError error;
  if (drover::wire::call(opts, "/drover.v1.Agent/LaunchStep", req, &rep, &error)) return 0;
  std::cerr << error.message << "\n";
  return error.code;
}

}  // namespace

int main(int argc, char** argv) {
  const bool frames = argc == 4 && std::string(argv[3]) == "--frames";
  if (argc != 3 && !frames) {
    std::cerr << "usage: agent_test_client HOST:PORT MUNGE_SOCKET [--frames]\n";
    return 100;
  }
  drover::v1::LaunchStepRequest req;
  req.mutable_step()->set_job_id(98);
  req.mutable_step()->set_step_id(-5);
  req.set_script("#!/bin/sh\ntrue\n");
  return frames ? overFrames(argv[1], argv[2], req) : overGrpc(argv[1], argv[2], req);
}
