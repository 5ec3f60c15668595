#pragma once
// The one-writer rule (DESIGN.md decision 3): a gRPC handler thread hands a closure to the
// daemon's io_context and waits for its result, so state is only ever touched on that thread.
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <future>
#include <type_traits>
#include <utility>

namespace drover::ctld {

template <typename F>
auto runOnLoop(boost::asio::io_context& io, F&& f) -> std::invoke_result_t<F&> {
  using R = std::invoke_result_t<F&>;
  std::packaged_task<R()> task(std::forward<F>(f));
  auto fut = task.get_future();
  boost::asio::post(io, std::move(task));
  return fut.get();
}

}  // namespace drover::ctld
