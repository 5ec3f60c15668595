#include "cli/raw_terminal_lines.h"

#include <cstring>
#include <streambuf>

namespace drover::cli {

// Unbuffered: every write goes through to the stream's own buffer at once, so srun's
// messages keep their order with what it writes to stderr by other ways (stdio).
class RawTerminalLines::Buffer : public std::streambuf {
 public:
  explicit Buffer(std::streambuf* target) : target_(target) {}

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const char ch = traits_type::to_char_type(c);
    if (ch == '\n') return target_->sputn("\r\n", 2) == 2 ? c : traits_type::eof();
    return target_->sputc(ch);
  }

  std::streamsize xsputn(const char* s, std::streamsize n) override {
    std::streamsize done = 0;
    while (done < n) {
      const void* found = std::memchr(s + done, '\n', static_cast<std::size_t>(n - done));
      const std::streamsize run = found ? static_cast<const char*>(found) - (s + done) : n - done;
      if (target_->sputn(s + done, run) != run) return done;
      done += run;
      if (!found) break;
      if (target_->sputn("\r\n", 2) != 2) return done;
      ++done;
    }
    return done;
  }

  int sync() override { return target_->pubsync(); }

 private:
  std::streambuf* target_;
};

RawTerminalLines::RawTerminalLines(std::ostream& stream)
    : stream_(stream), previous_(stream.rdbuf()), buffer_(std::make_unique<Buffer>(previous_)) {
  stream_.rdbuf(buffer_.get());
}

RawTerminalLines::~RawTerminalLines() {
  stream_.flush();
  stream_.rdbuf(previous_);
}

}  // namespace drover::cli
