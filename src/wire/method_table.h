#pragma once
// The controller's table of frame-transport methods (one row per RPC, like the handler table
// of slurmctld that STYLE.md names as worth keeping): parse the payload into the method's
// request type, authenticate the credential against it, run the handler, serialize the reply.
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "drover/v1/frame.pb.h"
#include "rpc/caller.h"
#include "wire/frame_codec.h"
#include "wire/frame_server.h"
#include "wire/status_codes.h"

namespace drover::wire {

// A handler's verdict: code 0 = OK, otherwise a gRPC status code and message.
struct Outcome {
  int code = 0;
  std::string message;
  static Outcome ok() { return {}; }
};

template <typename Reply>
using Reply_ = std::function<void(Outcome, const Reply&)>;

class MethodTable {
 public:
  explicit MethodTable(std::string munge_socket) : munge_socket_(std::move(munge_socket)) {}

  // Handler(caller, request, done): call done exactly once, now or later (group commit).
  template <typename Request, typename Reply>
  void add(const std::string& method,
           std::function<void(const rpc::Caller&, const Request&, Reply_<Reply>)> handler) {
    rows_[method] = [handler = std::move(handler), this, method](
                        const drover::v1::FrameRequest& frame,
                        Responder respond) {
      auto request = std::make_unique<Request>();
      if (!request->ParseFromString(frame.payload())) {
        respond(error(status::kInvalidArgument, "malformed request for " + method));
        return;
      }
      rpc::Caller caller;
      std::string why;
      if (!authenticate(frame, *request, &caller, &why)) {
        respond(error(status::kPermissionDenied, "authentication failed: " + why));
        return;
      }
      handler(caller, *request, [respond](Outcome outcome, const Reply& reply) {
        respond(encodeReplyFrame(outcome.code, outcome.message, outcome.code == 0 ? &reply : nullptr));
      });
    };
  }

  // Entry point for FrameServer.
  void dispatch(drover::v1::FrameRequest frame, Responder respond) const;

 private:
  static std::string error(int code, const std::string& message);
  bool authenticate(const drover::v1::FrameRequest& frame, const google::protobuf::Message& request,
                    rpc::Caller* caller, std::string* why) const;

  std::string munge_socket_;
  std::map<std::string, std::function<void(const drover::v1::FrameRequest&,
                                           Responder)>>
      rows_;
};

}  // namespace drover::wire
