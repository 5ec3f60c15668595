#include "wire/method_table.h"

#include "auth/request_binding.h"

namespace drover::wire {

void MethodTable::dispatch(drover::v1::FrameRequest frame,
                           std::function<void(drover::v1::FrameReply)> respond) const {
  auto row = rows_.find(frame.method());
  if (row == rows_.end()) {
    respond(error(status::kUnimplemented, "unknown method " + frame.method()));
    return;
  }
  row->second(frame, std::move(respond));
}

drover::v1::FrameReply MethodTable::error(int code, std::string message) {
  drover::v1::FrameReply reply;
  reply.set_code(code);
  reply.set_message(std::move(message));
  return reply;
}

bool MethodTable::authenticate(const drover::v1::FrameRequest& frame,
                               const google::protobuf::Message& request, rpc::Caller* caller,
                               std::string* why) const {
  auto decoded = auth::verifyBoundCredential(frame.credential(), frame.method(), request, munge_socket_);
  if (!decoded) {
    *why = decoded.error();
    return false;
  }
  caller->uid = decoded->uid;
  caller->gid = decoded->gid;
  return true;
}

}  // namespace drover::wire
