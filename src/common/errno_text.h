#pragma once
// strerror's text for an errno, safe in the daemons' threads (strerror_r, GNU form: it returns
// the text, which need not be in the buffer).
#include <cstring>
#include <string>

namespace drover {

inline std::string errnoText(int err) {
  char buf[256];
  return ::strerror_r(err, buf, sizeof buf);
}

}  // namespace drover
