// A deliberately misbehaving client for the end-to-end authentication tests: calls
// Controller.Ping with no credential, a forged one, a replayed one, or one bound to another
// request, and prints one line per call: "OK uid=N" or "<GRPC_CODE> <message>".
//   drover-e2e-rawcall HOST:PORT none|forged|replay|rebind [MUNGE_SOCKET]
#include <grpcpp/grpcpp.h>

#include <iostream>
#include <string>

#include "auth/request_binding.h"
#include "drover/v1/controller.grpc.pb.h"
#include "rpc/client.h"
#include "rpc/metadata_keys.h"

namespace {

const char* codeName(grpc::StatusCode c) {
  switch (c) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    default: return "OTHER";
  }
}

void ping(drover::v1::Controller::Stub& stub, const std::string* credential) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  if (credential != nullptr) {
    ctx.AddMetadata(std::string(drover::rpc::kMungeMetadataKey), *credential);
  }
  drover::v1::PingRequest req;
  drover::v1::PingReply rep;
  grpc::Status st = stub.Ping(&ctx, req, &rep);
  if (st.ok()) {
    std::cout << "OK uid=" << rep.caller_uid() << "\n";
  } else {
    std::cout << codeName(st.error_code()) << " " << st.error_message() << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: drover-e2e-rawcall HOST:PORT none|forged|replay|rebind [MUNGE_SOCKET]\n";
    return 2;
  }
  const std::string target = argv[1];
  const std::string mode = argv[2];
  const std::string socket = argc > 3 ? argv[3] : "";
  auto stub = drover::v1::Controller::NewStub(drover::rpc::makeChannel(target));
  const std::string method = "/drover.v1.Controller/Ping";
  if (mode == "none") {
    ping(*stub, nullptr);
  } else if (mode == "forged") {
    const std::string forged = "MUNGE:AwQDAACforgedforgedforgedforgedforgedforgedforged:";
    ping(*stub, &forged);
  } else if (mode == "replay" || mode == "rebind") {
    drover::v1::PingRequest req;
    std::string payload = drover::auth::bindingPayload(method, req);
    if (mode == "rebind") {
      drover::v1::GetNodesRequest other;
      other.add_names("node1");
      payload = drover::auth::bindingPayload("/drover.v1.Controller/GetNodes", other);
    }
    auto cred = drover::auth::encodeCredential(payload, socket);
    if (!cred) {
      std::cerr << "cannot encode: " << cred.error() << "\n";
      return 1;
    }
    ping(*stub, &*cred);
    if (mode == "replay") ping(*stub, &*cred);
  } else {
    std::cerr << "unknown mode " << mode << "\n";
    return 2;
  }
  return 0;
}
