#pragma once
// A library opened with dlopen at run time. The CUDA driver and NVRTC are
// loaded this way, never linked, so the tools start on machines without
// them and can say plainly which one is missing.
#include <memory>
#include <string>
#include <vector>

#include "core/ir/diagnostic.h"

namespace rammer::runtime {

class SharedLibrary {
 public:
  // Opens the first of `candidates` that loads (names searched the usual
  // dlopen way, or paths). The error lists every candidate and dlerror's text.
  static ir::Result<std::shared_ptr<SharedLibrary>> open(const std::vector<std::string>& candidates);
  ~SharedLibrary();
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;

  const std::string& name() const { return name_; }
  // The symbol's address, or nullptr.
  void* find(const std::string& symbol) const;

  // Looks up `symbol` into `fn`; records it as missing otherwise, so one
  // message can list every missing entry point.
  template <class Fn>
  void bind(Fn& fn, const char* symbol, std::vector<std::string>& missing) const {
    fn = reinterpret_cast<Fn>(find(symbol));
    if (!fn) missing.push_back(symbol);
  }

 private:
  SharedLibrary(void* handle, std::string name) : handle_(handle), name_(std::move(name)) {}
  void* handle_ = nullptr;
  std::string name_;
};

}  // namespace rammer::runtime
