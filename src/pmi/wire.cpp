#include "pmi/wire.h"

#include <cctype>

namespace drover::pmi {
namespace {

constexpr std::size_t kFrameHeader = 6;
constexpr std::string_view kSpawnEnd = "endcmd";

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// "k=v k=v": PMI-1's items (blanks separate them; a value holds none).
bool splitItems(std::string_view line, Pairs& out, std::string& error) {
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && isBlank(line[i])) ++i;
    if (i == line.size()) break;
    std::size_t end = i;
    while (end < line.size() && !isBlank(line[end])) ++end;
    const std::string_view item = line.substr(i, end - i);
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      error = "PMI-1 item without a key=value form: '" + std::string(item) + "'";
      return false;
    }
    out.emplace_back(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1)));
    i = end;
  }
  return true;
}

std::string escapeFramed(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    out += c;
    if (c == ';') out += ';';
  }
  return out;
}

}  // namespace

const std::string* Command::find(std::string_view key) const {
  for (const auto& [k, v] : args)
    if (k == key) return &v;
  return nullptr;
}

CommandReader::Next CommandReader::next(Command& out, std::string& error) {
  if (start_ > 0 && start_ * 2 >= buffer_.size()) {
    buffer_.erase(0, start_);
    start_ = 0;
  }
  if (start_ == buffer_.size()) return Next::kNeedMore;
  if (!wire_) {
    const char first = buffer_[start_];
    wire_ = std::isdigit(static_cast<unsigned char>(first)) || first == ' ' ? Wire::kFramed
                                                                             : Wire::kLines;
  }
  return *wire_ == Wire::kFramed ? nextFrame(out, error) : nextLine(out, error);
}

CommandReader::Next CommandReader::nextLine(Command& out, std::string& error) {
  for (;;) {
    const std::string_view rest = std::string_view(buffer_).substr(start_);
    const std::size_t newline = rest.find('\n');
    if (newline == std::string_view::npos) {
      if (rest.size() > kMaxCommandBytes) {
        error = "PMI-1 command longer than " + std::to_string(kMaxCommandBytes) + " bytes";
        return Next::kError;
      }
      return Next::kNeedMore;
    }
    std::string_view line = rest.substr(0, newline);
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) {
      start_ += newline + 1;  // a blank line: nothing asked
      continue;
    }
    out = Command{};
    if (line.substr(0, 5) == "mcmd=") {
      // A spawn block: its lines up to "endcmd" make one command.
      std::size_t at = 0;
      for (;;) {
        const std::size_t end = rest.find('\n', at);
        if (end == std::string_view::npos) {
          if (rest.size() > kMaxCommandBytes) {
            error = "PMI-1 spawn block longer than " + std::to_string(kMaxCommandBytes) + " bytes";
            return Next::kError;
          }
          return Next::kNeedMore;
        }
        std::string_view item = rest.substr(at, end - at);
        while (!item.empty() && isBlank(item.back())) item.remove_suffix(1);
        at = end + 1;
        if (item == kSpawnEnd) break;
        if (item.empty()) continue;
        Pairs pairs;
        if (!splitItems(item, pairs, error)) return Next::kError;
        for (auto& p : pairs) {
          if (p.first == "mcmd" && out.name.empty()) out.name = std::move(p.second);
          else out.args.push_back(std::move(p));
        }
      }
      start_ += at;
      return Next::kCommand;
    }
    Pairs pairs;
    if (!splitItems(line, pairs, error)) return Next::kError;
    start_ += newline + 1;
    if (pairs.empty() || pairs.front().first != "cmd") {
      error = "PMI-1 command not starting with cmd=: '" + std::string(line) + "'";
      return Next::kError;
    }
    out.name = std::move(pairs.front().second);
    out.args.assign(std::make_move_iterator(pairs.begin() + 1), std::make_move_iterator(pairs.end()));
    return Next::kCommand;
  }
}

CommandReader::Next CommandReader::nextFrame(Command& out, std::string& error) {
  const std::string_view rest = std::string_view(buffer_).substr(start_);
  if (rest.size() < kFrameHeader) return Next::kNeedMore;
  std::size_t length = 0;
  bool digits = false, trailing = false;
  for (char c : rest.substr(0, kFrameHeader)) {
    if (std::isdigit(static_cast<unsigned char>(c)) && !trailing) {
      length = length * 10 + static_cast<std::size_t>(c - '0');
      digits = true;
    } else if (c == ' ') {
      trailing = digits;
    } else {
      digits = false;
      break;
    }
  }
  if (!digits) {
    error = "PMI-2 command without a length: '" + std::string(rest.substr(0, kFrameHeader)) + "'";
    return Next::kError;
  }
  if (length > kMaxCommandBytes) {
    error = "PMI-2 command of " + std::to_string(length) + " bytes, more than " +
            std::to_string(kMaxCommandBytes);
    return Next::kError;
  }
  if (rest.size() < kFrameHeader + length) return Next::kNeedMore;
  auto items = parseFramedBody(rest.substr(kFrameHeader, length));
  if (!items || items->empty() || items->front().first != "cmd") {
    error = "malformed PMI-2 command: '" + std::string(rest.substr(kFrameHeader, length)) + "'";
    return Next::kError;
  }
  start_ += kFrameHeader + length;
  out = Command{};
  out.name = std::move(items->front().second);
  out.args.assign(std::make_move_iterator(items->begin() + 1), std::make_move_iterator(items->end()));
  return Next::kCommand;
}

std::optional<Pairs> parseFramedBody(std::string_view body) {
  Pairs out;
  std::size_t i = 0;
  // One key or value: up to an unpaired ';' (or, for a key, '='), ";;" read as ';'.
  const auto token = [&](bool key, std::string& text) {
    while (i < body.size()) {
      const char c = body[i];
      if (c == ';') {
        if (i + 1 < body.size() && body[i + 1] == ';') {
          text += ';';
          i += 2;
          continue;
        }
        return !key;
      }
      if (key && c == '=') return true;
      text += c;
      ++i;
    }
    return !key;  // a value may end the body without its ';'
  };
  while (i < body.size()) {
    std::string key, value;
    if (!token(true, key) || key.empty() || i == body.size() || body[i] != '=') return std::nullopt;
    ++i;
    if (!token(false, value)) return std::nullopt;
    if (i < body.size()) ++i;  // the ';'
    out.emplace_back(std::move(key), std::move(value));
  }
  return out;
}

std::string encode(Wire wire, std::string_view name, const Pairs& args) {
  if (wire == Wire::kLines) {
    std::string line = "cmd=" + std::string(name);
    for (const auto& [k, v] : args) line += " " + k + "=" + v;
    return line + "\n";
  }
  std::string body = "cmd=" + escapeFramed(name) + ";";
  for (const auto& [k, v] : args) body += escapeFramed(k) + "=" + escapeFramed(v) + ";";
  std::string header = std::to_string(body.size());
  header.resize(std::max(header.size(), kFrameHeader), ' ');
  return header + body;
}

}  // namespace drover::pmi
