#pragma once
// Collects the importer's diagnostics so that one pass can report every
// problem of a kind at once (all dangling inputs, not just the first), while
// keeping a pathological model from producing an unbounded list.
#include <string>
#include <vector>

#include "core/ir/diagnostic.h"

namespace rammer::onnx_import {

class ErrorList {
 public:
  explicit ErrorList(std::string file, size_t limit = 50) : file_(std::move(file)), limit_(limit) {}

  void add(std::string message, std::string node = {}) {
    if (list_.size() < limit_) list_.push_back(ir::makeError(std::move(message), std::move(node), file_));
    else ++dropped_;
  }
  // Diagnostics from another stage: keeps them, filling in the file name.
  void add(std::vector<ir::Diagnostic> ds) {
    for (auto& d : ds) {
      if (d.file.empty()) d.file = file_;
      if (list_.size() < limit_) list_.push_back(std::move(d));
      else ++dropped_;
    }
  }
  bool empty() const { return list_.empty(); }
  const std::string& file() const { return file_; }

  std::vector<ir::Diagnostic> take() {
    if (dropped_ > 0)
      list_.push_back(ir::makeError("... and " + std::to_string(dropped_) + " more errors", {}, file_));
    dropped_ = 0;
    return std::move(list_);
  }

 private:
  std::string file_;
  size_t limit_;
  size_t dropped_ = 0;
  std::vector<ir::Diagnostic> list_;
};

}  // namespace rammer::onnx_import
