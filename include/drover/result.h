#pragma once
// Expected failures are values: Result<T> holds a T or an error message that says what was
// wrong, where, and what is accepted.
#include <string>
#include <utility>
#include <variant>

namespace drover {

struct Error {
  std::string message;
};

template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return std::get<0>(v_); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }
  const std::string& error() const { return std::get<1>(v_).message; }

 private:
  std::variant<T, Error> v_;
};

// For operations that return nothing but may fail: Result<void_t> (alias Status).
using void_t = std::monostate;
using Status = Result<void_t>;
inline Status okStatus() { return void_t{}; }

inline Error makeError(std::string message) { return Error{std::move(message)}; }

}  // namespace drover
