#pragma once
// Reading the fields of the sim folder's JSON files (the profile database,
// the calibration): the first problem becomes one message that names the
// field and where it is.
#include <fmt/core.h>

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace rammer::sim::jsonio {

using Json = nlohmann::ordered_json;

// `text` into `out`; "" or why it is not JSON ("... at line L, column C").
inline std::string parseJson(const std::string& text, Json& out) {
  try {
    out = Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return std::string("not valid JSON: ") + e.what();
  }
  return {};
}

// Reads the fields of one JSON object, collecting the first problem as a
// message that names the field; later reads are no-ops once one failed.
class FieldReader {
 public:
  FieldReader(const Json& object, std::string where) : object_(object), where_(std::move(where)) {}
  const std::string& error() const { return error_; }
  bool ok() const { return error_.empty(); }

  const Json* field(const char* name, bool required) {
    if (!ok()) return nullptr;
    auto it = object_.find(name);
    if (it == object_.end()) {
      if (required) fail(fmt::format("missing \"{}\"", name));
      return nullptr;
    }
    return &*it;
  }
  std::string text(const char* name, bool required = true) {
    const Json* f = field(name, required);
    if (!f) return {};
    if (!f->is_string()) return fail(fmt::format("\"{}\" must be a string", name)), std::string();
    return f->get<std::string>();
  }
  int64_t integer(const char* name, int64_t min) {
    const Json* f = field(name, true);
    if (!f) return 0;
    if (!f->is_number_integer() || f->get<int64_t>() < min)
      return fail(fmt::format("\"{}\" must be an integer >= {}", name, min)), 0;
    return f->get<int64_t>();
  }
  // A finite, non-negative number of microseconds.
  double micros(const char* name) {
    const Json* f = field(name, true);
    if (!f) return 0;
    if (!f->is_number() || !std::isfinite(f->get<double>()) || f->get<double>() < 0)
      return fail(fmt::format("\"{}\" must be a non-negative number of microseconds", name)), 0;
    return f->get<double>();
  }
  void fail(const std::string& what) {
    if (ok()) error_ = where_ + ": " + what;
  }

 private:
  const Json& object_;
  std::string where_;
  std::string error_;
};

}  // namespace rammer::sim::jsonio
