#pragma once
// NVRTC for the compile tests, loaded with dlopen like the runtime does
// (never linked): the tests build and run where the toolkit is absent and
// skip there.
#include <dlfcn.h>

#include <string>
#include <vector>

namespace rammer::testing {

class Nvrtc {
 public:
  struct Result {
    bool ok = false;
    std::string log;
    size_t cubinBytes = 0;
    std::string ptx;
  };

  Nvrtc() {
    for (const char* path : {"libnvrtc.so", "/usr/local/cuda/lib64/libnvrtc.so", "/usr/local/cuda/lib64/libnvrtc.so.13"})
      if ((handle_ = dlopen(path, RTLD_NOW | RTLD_LOCAL))) break;
    if (!handle_) return;
    create_ = reinterpret_cast<CreateFn>(dlsym(handle_, "nvrtcCreateProgram"));
    compile_ = reinterpret_cast<CompileFn>(dlsym(handle_, "nvrtcCompileProgram"));
    logSize_ = reinterpret_cast<SizeFn>(dlsym(handle_, "nvrtcGetProgramLogSize"));
    log_ = reinterpret_cast<TextFn>(dlsym(handle_, "nvrtcGetProgramLog"));
    cubinSize_ = reinterpret_cast<SizeFn>(dlsym(handle_, "nvrtcGetCUBINSize"));
    ptxSize_ = reinterpret_cast<SizeFn>(dlsym(handle_, "nvrtcGetPTXSize"));
    ptx_ = reinterpret_cast<TextFn>(dlsym(handle_, "nvrtcGetPTX"));
    destroy_ = reinterpret_cast<DestroyFn>(dlsym(handle_, "nvrtcDestroyProgram"));
  }
  ~Nvrtc() {
    if (handle_) dlclose(handle_);
  }
  Nvrtc(const Nvrtc&) = delete;
  Nvrtc& operator=(const Nvrtc&) = delete;

  bool available() const { return create_ && compile_ && logSize_ && log_ && cubinSize_ && ptxSize_ && ptx_ && destroy_; }

  // Compiles `source` to a cubin for `arch` ("sm_90").
  Result compile(const std::string& source, const std::string& name, const std::string& arch) const {
    Result r;
    void* prog = nullptr;
    if (create_(&prog, source.c_str(), name.c_str(), 0, nullptr, nullptr) != 0) {
      r.log = "nvrtcCreateProgram failed";
      return r;
    }
    const std::string archOption = "-arch=" + arch;
    const char* options[] = {archOption.c_str(), "-std=c++17"};
    const int status = compile_(prog, 2, options);
    size_t n = 0;
    logSize_(prog, &n);
    r.log.assign(n, '\0');
    if (n) log_(prog, r.log.data());
    while (!r.log.empty() && (r.log.back() == '\0' || r.log.back() == '\n')) r.log.pop_back();
    r.ok = status == 0;
    if (r.ok) {
      cubinSize_(prog, &r.cubinBytes);
      size_t p = 0;
      ptxSize_(prog, &p);
      r.ptx.assign(p, '\0');
      if (p) ptx_(prog, r.ptx.data());
    }
    destroy_(&prog);
    return r;
  }

 private:
  using CreateFn = int (*)(void**, const char*, const char*, int, const char* const*, const char* const*);
  using CompileFn = int (*)(void*, int, const char* const*);
  using SizeFn = int (*)(void*, size_t*);
  using TextFn = int (*)(void*, char*);
  using DestroyFn = int (*)(void**);
  void* handle_ = nullptr;
  CreateFn create_ = nullptr;
  CompileFn compile_ = nullptr;
  SizeFn logSize_ = nullptr;
  TextFn log_ = nullptr;
  SizeFn cubinSize_ = nullptr;
  SizeFn ptxSize_ = nullptr;
  TextFn ptx_ = nullptr;
  DestroyFn destroy_ = nullptr;
};

}  // namespace rammer::testing
