#include "wire/method_table.h"

#include "auth/request_binding.h"

namespace drover::wire {

void MethodTable::dispatch(drover::v1::FrameRequest frame,
                           Responder respond) const {
  auto row = rows_.find(frame.method());
  if (row == rows_.end()) {
    respond(error(status::kUnimplemented, "unknown method " + frame.method()));
    return;
  }
  row->second(frame, std::move(respond));
}

std::string MethodTable::error(int code, const std::string& message) {
  return encodeReplyFrame(code, message, nullptr);
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
