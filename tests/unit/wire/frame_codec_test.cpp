// The reply frame written without intermediate copies (encodeReplyFrame) and read in place
// (parseFrameReply) must be the FrameReply message protobuf itself writes and reads: old and new
// peers of either side interoperate.
#include "wire/frame_codec.h"

#include <gtest/gtest.h>

#include <string>

#include "drover/v1/controller.pb.h"
#include "drover/v1/frame.pb.h"
#include "wire/status_codes.h"

namespace drover::wire {
namespace {

v1::GetJobsReply listing(int rows) {
  v1::GetJobsReply reply;
  reply.set_time(1700000000);
  for (int i = 1; i <= rows; ++i) {
    auto* job = reply.add_jobs();
    job->set_job_id(i);
    job->set_name("job" + std::to_string(i));
    job->set_user("alice");
  }
  return reply;
}

std::string bodyOf(const std::string& frame) {
  EXPECT_GE(frame.size(), kHeaderBytes);
  EXPECT_EQ(decodeHeader(reinterpret_cast<const unsigned char*>(frame.data())), frame.size() - kHeaderBytes);
  return frame.substr(kHeaderBytes);
}

TEST(FrameCodec, AReplyFrameIsTheFrameReplyMessageWithItsPayload) {
  const auto reply = listing(2000);
  const std::string frame = encodeReplyFrame(0, "", &reply);
  v1::FrameReply parsed;
  ASSERT_TRUE(parsed.ParseFromString(bodyOf(frame)));
  EXPECT_EQ(parsed.code(), 0);
  EXPECT_EQ(parsed.payload(), reply.SerializeAsString());
  // Byte for byte what protobuf writes for the same message.
  v1::FrameReply built;
  built.set_payload(reply.SerializeAsString());
  EXPECT_EQ(bodyOf(frame), built.SerializeAsString());
}

TEST(FrameCodec, AnErrorFrameCarriesCodeAndMessageOnly) {
  const std::string frame = encodeReplyFrame(status::kPermissionDenied, "Access/permission denied", nullptr);
  v1::FrameReply parsed;
  ASSERT_TRUE(parsed.ParseFromString(bodyOf(frame)));
  EXPECT_EQ(parsed.code(), status::kPermissionDenied);
  EXPECT_EQ(parsed.message(), "Access/permission denied");
  EXPECT_TRUE(parsed.payload().empty());
}

TEST(FrameCodec, TheReplyIsReadWhereItLies) {
  const auto reply = listing(50);
  v1::FrameReply message;
  message.set_payload(reply.SerializeAsString());
  message.set_code(0);
  const std::string body = message.SerializeAsString();
  FrameReplyView view;
  ASSERT_TRUE(parseFrameReply(body, &view));
  EXPECT_EQ(view.code, 0);
  EXPECT_EQ(view.payload, reply.SerializeAsString());
  EXPECT_GE(view.payload.data(), body.data());  // a view into the frame, not a copy
  EXPECT_LE(view.payload.data() + view.payload.size(), body.data() + body.size());

  v1::FrameReply failed;
  failed.set_code(status::kInvalidArgument);
  failed.set_message("Invalid job id specified");
  ASSERT_TRUE(parseFrameReply(failed.SerializeAsString(), &view));
  EXPECT_EQ(view.code, status::kInvalidArgument);
  EXPECT_EQ(view.message, "Invalid job id specified");
  EXPECT_TRUE(view.payload.empty());
}

TEST(FrameCodec, FieldsInAnyOrderAndUnknownFieldsAreRead) {
  // payload (3), an unknown varint field 9, then code (1): a later peer's reply.
  std::string body = "\x1a\x03" "abc" "\x48\x05" "\x08\x07";
  FrameReplyView view;
  ASSERT_TRUE(parseFrameReply(body, &view));
  EXPECT_EQ(view.payload, "abc");
  EXPECT_EQ(view.code, 7);
}

TEST(FrameCodec, MalformedRepliesAreRefused) {
  FrameReplyView view;
  EXPECT_FALSE(parseFrameReply(std::string("\x1a\x05" "abc", 5), &view));  // payload cut short
  EXPECT_FALSE(parseFrameReply(std::string("\x08", 1), &view));             // a tag, no value
  EXPECT_FALSE(parseFrameReply(std::string("\x00\x01", 2), &view));         // tag 0
  EXPECT_TRUE(parseFrameReply("", &view));                                  // all defaults
  EXPECT_EQ(view.code, 0);
}

}  // namespace
}  // namespace drover::wire
