#include "rpc/method_recorder.h"

#include <grpcpp/support/interceptor.h>

#include "rpc/metadata_keys.h"

namespace drover::rpc {
namespace {

class MethodRecorder final : public grpc::experimental::Interceptor {
 public:
  explicit MethodRecorder(const char* method) : method_(method) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::POST_RECV_INITIAL_METADATA)) {
      auto* metadata = methods->GetRecvInitialMetadata();
      const grpc::string_ref key(kRecordedMethodKey.data(), kRecordedMethodKey.size());
      metadata->erase(key);
      // `method_` points into the server's method table, which outlives every call.
      metadata->emplace(key, grpc::string_ref(method_));
    }
    methods->Proceed();
  }

 private:
  const char* method_;
};

class MethodRecorderFactory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) override {
    return new MethodRecorder(info->method());
  }
};

}  // namespace

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> methodRecorderFactory() {
  return std::make_unique<MethodRecorderFactory>();
}

}  // namespace drover::rpc
