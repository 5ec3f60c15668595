#include "ctld/name_stage.h"

namespace drover::ctld {

void resolveNamesFirst(ControllerHandlers& h, NameDirectory& names, boost::asio::io_context& io,
                       boost::asio::thread_pool& pool) {
  forEachHandler(h, [&](const char*, auto& handler) {
    if (handler) handler = namesFirst(std::move(handler), names, io, pool);
  });
}

}  // namespace drover::ctld
