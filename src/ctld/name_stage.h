#pragma once
// The name stage: a Controller handler wrapped so that it runs on the state thread only once the
// names its request carries have answers in the NameDirectory (request_names.h). When they have
// (the caller asked within the last minute: nearly every call) the handler runs at once;
// otherwise the lookups run on `pool` and the handler is posted back to `io` after them, so a
// slow directory service (LDAP, SSSD) delays that one call and never the state thread.
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <memory>
#include <utility>

#include "ctld/handlers.h"
#include "ctld/name_directory.h"
#include "ctld/request_names.h"
#include "rpc/caller.h"
#include "wire/method_table.h"

namespace drover::ctld {

template <typename Request, typename Reply>
std::function<void(const rpc::Caller&, const Request&, wire::Reply_<Reply>)> namesFirst(
    std::function<void(const rpc::Caller&, const Request&, wire::Reply_<Reply>)> inner,
    NameDirectory& names, boost::asio::io_context& io, boost::asio::thread_pool& pool) {
  auto handler = std::make_shared<const decltype(inner)>(std::move(inner));
  return [handler, &names, &io, &pool](const rpc::Caller& caller, const Request& request,
                                        wire::Reply_<Reply> done) {
    NameQuery query = namesIn(caller, request);
    if (names.answered(query)) {
      (*handler)(caller, request, std::move(done));
      return;
    }
    // The request is the transport's only for this call: the deferred handler gets a copy.
    boost::asio::post(pool, [handler, &names, &io, caller, query = std::move(query),
                             request = Request(request), done = std::move(done)]() mutable {
      names.resolve(query);
      boost::asio::post(io, [handler, caller, request = std::move(request),
                             done = std::move(done)]() mutable {
        (*handler)(caller, request, std::move(done));
      });
    });
  };
}

// Wraps every handler of `h`. Call once, after every handler is installed and before countCalls:
// sdiag's time for a call then includes its lookups, as it includes its commit.
void resolveNamesFirst(ControllerHandlers& h, NameDirectory& names, boost::asio::io_context& io,
                       boost::asio::thread_pool& pool);

}  // namespace drover::ctld
