#pragma once
// Diagnostics are values: every stage returns either its result or a list of
// these, and never aborts the process on bad input.
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace rammer::ir {

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string message;
  std::string file;  // model or edits file, when known
  std::string node;  // node (or value) name, when the problem has one
  // The pipeline stage that raised it ("import", "optimize", "schedule",
  // "validate", "simulate", "run"); set by core/pipeline, not by the stage.
  std::string stage;
  // The rTask it is about, when it names one: the operator's index into the
  // plan and the rTask id (a schedule::RTask, which ir cannot name).
  int32_t rtaskOp = -1;
  int64_t rtask = -1;
  bool hasRTask() const { return rtaskOp >= 0 && rtask >= 0; }
};

// "file: node 'x': message"
std::string formatDiagnostic(const Diagnostic& d);
std::string formatDiagnostics(const std::vector<Diagnostic>& ds);

Diagnostic makeError(std::string message, std::string node = {}, std::string file = {});

// Either a T or the diagnostics that explain why there is none.
template <class T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Diagnostic d) : value_(std::vector<Diagnostic>{std::move(d)}) {}
  Result(std::vector<Diagnostic> ds) : value_(std::move(ds)) {}

  bool ok() const { return value_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(value_); }
  const T& value() const& { return std::get<0>(value_); }
  T&& value() && { return std::get<0>(std::move(value_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  const std::vector<Diagnostic>& errors() const { return std::get<1>(value_); }
  std::string errorText() const { return ok() ? std::string() : formatDiagnostics(errors()); }

 private:
  std::variant<T, std::vector<Diagnostic>> value_;
};

}  // namespace rammer::ir
