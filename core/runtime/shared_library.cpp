#include "core/runtime/shared_library.h"

#include <dlfcn.h>

namespace rammer::runtime {

namespace {

// NVRTC and CUPTI carry their own libstdc++, whose 72 KB exception arena
// LeakSanitizer reports as a leak it cannot name once the library is
// unloaded; under AddressSanitizer those libraries stay loaded instead.
// (The stand-in driver of the tests must unload: it reads its settings
// when it loads.)
int keepLoaded(const std::string& name) {
#if defined(__SANITIZE_ADDRESS__)
  for (const char* nvidia : {"nvrtc", "cupti", "nvperf"})
    if (name.find(nvidia) != std::string::npos) return RTLD_NODELETE;
#endif
  (void)name;
  return 0;
}

}  // namespace

ir::Result<std::shared_ptr<SharedLibrary>> SharedLibrary::open(const std::vector<std::string>& candidates) {
  std::string tried;
  for (const std::string& name : candidates) {
    // RTLD_LOCAL: the symbols stay private to us, so two copies of a
    // library (driver stub and real driver) never resolve into each other.
    if (void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL | keepLoaded(name)))
      return std::shared_ptr<SharedLibrary>(new SharedLibrary(handle, name));
    const char* why = dlerror();
    tried += "\n  " + name + ": " + (why ? why : "not found");
  }
  if (candidates.empty()) return ir::makeError("no library name to load");
  return ir::makeError("cannot load any of:" + tried);
}

SharedLibrary::~SharedLibrary() {
  if (handle_) dlclose(handle_);
}

void* SharedLibrary::find(const std::string& symbol) const { return handle_ ? dlsym(handle_, symbol.c_str()) : nullptr; }

}  // namespace rammer::runtime
