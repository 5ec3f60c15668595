#include "auth/munge_credential.h"

#include <munge.h>

#include <cstdlib>
#include <memory>
#include <type_traits>

namespace drover::auth {
namespace {

struct ContextDeleter {
  void operator()(munge_ctx_t ctx) const { munge_ctx_destroy(ctx); }
};
using ContextPtr = std::unique_ptr<std::remove_pointer_t<munge_ctx_t>, ContextDeleter>;

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

std::string socketName(const std::string& socket) {
  return socket.empty() ? std::string("libmunge's default socket") : socket;
}

Result<ContextPtr> makeContext(const std::string& socket) {
  ContextPtr ctx(munge_ctx_create());
  if (!ctx) return makeError("cannot create a MUNGE context (out of memory)");
  if (!socket.empty() && munge_ctx_set(ctx.get(), MUNGE_OPT_SOCKET, socket.c_str()) != EMUNGE_SUCCESS) {
    return makeError("cannot set MUNGE socket " + socket + ": " + munge_ctx_strerror(ctx.get()));
  }
  return ctx;
}

std::string contextMessage(munge_ctx_t ctx, munge_err_t err) {
  const char* text = munge_ctx_strerror(ctx);
  return text != nullptr ? text : munge_strerror(err);
}

std::string describeDecodeError(munge_err_t err, munge_ctx_t ctx, const std::string& socket) {
  switch (err) {
    case EMUNGE_CRED_REPLAYED:
      return "credential replayed";
    case EMUNGE_CRED_EXPIRED:
      return "credential expired";
    case EMUNGE_CRED_REWOUND:
      return "credential rewound (created in the future; check clock skew)";
    case EMUNGE_CRED_INVALID:
      return "credential invalid (made with another MUNGE key, or altered)";
    case EMUNGE_CRED_UNAUTHORIZED:
      return "credential not authorized for this decoder";
    case EMUNGE_BAD_CRED:
    case EMUNGE_BAD_VERSION:
    case EMUNGE_BAD_CIPHER:
    case EMUNGE_BAD_MAC:
    case EMUNGE_BAD_ZIP:
    case EMUNGE_BAD_REALM:
    case EMUNGE_BAD_LENGTH:
      return "malformed credential (" + contextMessage(ctx, err) + ")";
    case EMUNGE_SOCKET:
      return "cannot reach munged at " + socketName(socket) + " (" + contextMessage(ctx, err) + ")";
    default:
      return "credential rejected by munged (" + contextMessage(ctx, err) + ")";
  }
}

}  // namespace

Result<std::string> encodeCredential(std::string_view payload, const std::string& socket) {
  auto ctx = makeContext(socket);
  if (!ctx) return makeError(ctx.error());
  char* raw = nullptr;
  const munge_err_t err = munge_encode(&raw, ctx->get(), payload.data(), static_cast<int>(payload.size()));
  std::unique_ptr<char, FreeDeleter> cred(raw);
  if (err != EMUNGE_SUCCESS) {
    return makeError("cannot create a MUNGE credential via " + socketName(socket) + ": " +
                     contextMessage(ctx->get(), err) + (err == EMUNGE_SOCKET ? " (is munged running?)" : ""));
  }
  return std::string(cred.get());
}

Result<DecodedCredential> decodeCredential(const std::string& credential, const std::string& socket) {
  auto ctx = makeContext(socket);
  if (!ctx) return makeError(ctx.error());
  void* raw = nullptr;
  int len = 0;
  uid_t uid = 0;
  gid_t gid = 0;
  const munge_err_t err = munge_decode(credential.c_str(), ctx->get(), &raw, &len, &uid, &gid);
  // libmunge allocates the payload even for some failures (expired, rewound, replayed).
  std::unique_ptr<void, FreeDeleter> payload(raw);
  if (err != EMUNGE_SUCCESS) return makeError(describeDecodeError(err, ctx->get(), socket));
  DecodedCredential out;
  out.uid = uid;
  out.gid = gid;
  if (payload && len > 0) out.payload.assign(static_cast<const char*>(payload.get()), static_cast<size_t>(len));
  return out;
}

}  // namespace drover::auth
