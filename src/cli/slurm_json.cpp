#include "cli/slurm_json.h"

#include <charconv>
#include <cstdio>

namespace drover::cli::json {
namespace {

void writeString(std::string& out, const std::string& s) {
  out += '"';
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '/': out += "\\/"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

void writeDouble(std::string& out, double d) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d);
  std::string text(buf, res.ptr);
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";  // json-c keeps it a double
  out += text;
}

void newline(std::string& out, int indent) {
  out += '\n';
  out.append(static_cast<std::size_t>(indent), ' ');
}

}  // namespace

Value::Value(const Value& other) { *this = other; }

Value& Value::operator=(const Value& other) {
  if (this == &other) return *this;
  if (auto* o = std::get_if<std::unique_ptr<Object>>(&other.v_)) {
    v_ = std::make_unique<Object>(**o);
  } else if (auto* a = std::get_if<std::unique_ptr<Array>>(&other.v_)) {
    v_ = std::make_unique<Array>(**a);
  } else {
    std::visit(
        [this](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (!std::is_same_v<T, std::unique_ptr<Object>> &&
                        !std::is_same_v<T, std::unique_ptr<Array>>) {
            v_ = x;
          }
        },
        other.v_);
  }
  return *this;
}

void Value::write(std::string& out, int indent) const {
  if (std::holds_alternative<std::nullptr_t>(v_)) {
    out += "null";
  } else if (auto* b = std::get_if<bool>(&v_)) {
    out += *b ? "true" : "false";
  } else if (auto* i = std::get_if<std::int64_t>(&v_)) {
    out += std::to_string(*i);
  } else if (auto* d = std::get_if<double>(&v_)) {
    writeDouble(out, *d);
  } else if (auto* s = std::get_if<std::string>(&v_)) {
    writeString(out, *s);
  } else if (auto* o = std::get_if<std::unique_ptr<Object>>(&v_)) {
    out += '{';
    bool first = true;
    for (const auto& [key, value] : **o) {
      if (!first) out += ',';
      first = false;
      newline(out, indent + 2);
      writeString(out, key);
      out += ": ";
      value.write(out, indent + 2);
    }
    newline(out, indent);
    out += '}';
  } else if (auto* a = std::get_if<std::unique_ptr<Array>>(&v_)) {
    out += '[';
    bool first = true;
    for (const auto& value : **a) {
      if (!first) out += ',';
      first = false;
      newline(out, indent + 2);
      value.write(out, indent + 2);
    }
    newline(out, indent);
    out += ']';
  }
}

std::string dump(const Value& root) {
  std::string out;
  root.write(out, 0);
  return out;
}

Value slurmMeta() {
  return Object{
      {"plugin", Object{{"type", "openapi/v0.0.38"}, {"name", "Slurm OpenAPI v0.0.38"}}},
      {"Slurm", Object{{"version", Object{{"major", 22}, {"micro", 8}, {"minor", 5}}},
                       {"release", "22.05.8"}}},
  };
}

}  // namespace drover::cli::json
