#pragma once
// JSON as Slurm 22.05's --json prints it (json-c pretty printer): keys in insertion order,
// two-space indent, empty arrays and objects still broken over two lines, '/' escaped as "\/",
// no newline after the closing brace. Shared by sinfo, squeue and sacct --json.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace drover::cli::json {

class Value;
using Object = std::vector<std::pair<std::string, Value>>;
using Array = std::vector<Value>;

class Value {
 public:
  Value() : v_(nullptr) {}
  Value(std::nullptr_t) : v_(nullptr) {}
  Value(bool b) : v_(b) {}
  Value(int i) : v_(static_cast<std::int64_t>(i)) {}
  Value(unsigned i) : v_(static_cast<std::int64_t>(i)) {}
  Value(std::int64_t i) : v_(i) {}
  Value(std::uint64_t i) : v_(static_cast<std::int64_t>(i)) {}
  Value(double d) : v_(d) {}
  Value(const char* s) : v_(std::string(s)) {}
  Value(std::string s) : v_(std::move(s)) {}
  Value(Object o) : v_(std::make_unique<Object>(std::move(o))) {}
  Value(Array a) : v_(std::make_unique<Array>(std::move(a))) {}
  Value(const Value& other);
  Value(Value&&) noexcept = default;
  Value& operator=(const Value& other);
  Value& operator=(Value&&) noexcept = default;

  void write(std::string& out, int indent) const;
  // One node of a --yaml document (slurm_yaml.cpp); `indent` is where a mapping's entries go.
  void writeYaml(std::string& out, int indent, bool in_sequence) const;

 private:
  std::variant<std::nullptr_t, bool, std::int64_t, double, std::string, std::unique_ptr<Object>,
               std::unique_ptr<Array>>
      v_;
};

// The whole document, json-c style (see above).
std::string dump(const Value& root);

// The same document as Slurm 22.05's --yaml prints it (libyaml, every node tagged).
std::string dumpYaml(const Value& root);

// Slurm's "meta" block: the OpenAPI data schema these documents follow (v0.0.38, as 22.05).
Value slurmMeta();

}  // namespace drover::cli::json
