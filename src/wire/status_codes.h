#pragma once
// gRPC's status codes, by which the frame transport's replies (FrameReply.code) and its client
// (CallError.code) report a failure, so a caller reads one the same from either transport. The
// frame side links no gRPC, hence its own names for them.
namespace drover::wire::status {

inline constexpr int kInvalidArgument = 3;
inline constexpr int kDeadlineExceeded = 4;
inline constexpr int kNotFound = 5;
inline constexpr int kAlreadyExists = 6;
inline constexpr int kPermissionDenied = 7;
inline constexpr int kFailedPrecondition = 9;
inline constexpr int kUnimplemented = 12;
inline constexpr int kInternal = 13;
inline constexpr int kUnavailable = 14;
inline constexpr int kUnauthenticated = 16;

}  // namespace drover::wire::status
