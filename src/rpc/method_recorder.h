#pragma once
// Optional server interceptor that records each call's full method name where authenticate()
// finds it, so a credential is bound to the method actually invoked even when several methods
// share a request type. Install with ServerBuilder::experimental().SetInterceptorCreators().
#include <grpcpp/support/server_interceptor.h>

#include <memory>

namespace drover::rpc {

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> methodRecorderFactory();

}  // namespace drover::rpc
