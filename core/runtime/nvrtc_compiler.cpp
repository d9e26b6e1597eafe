#include "core/runtime/nvrtc_compiler.h"

namespace rammer::runtime {

namespace {
constexpr int kNvrtcSuccess = 0;
constexpr int kNvrtcInvalidOption = 5;  // NVRTC_ERROR_INVALID_OPTION
}

std::vector<std::string> NvrtcCompiler::defaultCandidates() {
  return {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so", "/usr/local/cuda/lib64/libnvrtc.so"};
}

ir::Result<std::shared_ptr<const NvrtcCompiler>> NvrtcCompiler::load(const std::vector<std::string>& candidates) {
  auto lib = SharedLibrary::open(candidates);
  if (!lib) return ir::makeError("no NVRTC (the CUDA runtime compiler, libnvrtc.so) found: " + lib.errorText());
  std::shared_ptr<NvrtcCompiler> c(new NvrtcCompiler());
  c->library_ = lib.value();
  std::vector<std::string> missing;
  const SharedLibrary& l = *c->library_;
  l.bind(c->version_, "nvrtcVersion", missing);
  l.bind(c->errorString_, "nvrtcGetErrorString", missing);
  l.bind(c->create_, "nvrtcCreateProgram", missing);
  l.bind(c->compile_, "nvrtcCompileProgram", missing);
  l.bind(c->destroy_, "nvrtcDestroyProgram", missing);
  l.bind(c->logSize_, "nvrtcGetProgramLogSize", missing);
  l.bind(c->log_, "nvrtcGetProgramLog", missing);
  l.bind(c->cubinSize_, "nvrtcGetCUBINSize", missing);
  l.bind(c->cubin_, "nvrtcGetCUBIN", missing);
  l.bind(c->ptxSize_, "nvrtcGetPTXSize", missing);
  l.bind(c->ptx_, "nvrtcGetPTX", missing);
  if (!missing.empty()) {
    std::string names;
    for (const auto& m : missing) names += (names.empty() ? "" : ", ") + m;
    return ir::makeError(l.name() + " is too old for cubin output (NVRTC 11.1 or newer needed): missing " + names);
  }
  return std::shared_ptr<const NvrtcCompiler>(std::move(c));
}

std::string NvrtcCompiler::version() const {
  int major = 0, minor = 0;
  if (version_(&major, &minor) != kNvrtcSuccess) return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

ir::Result<NvrtcOutput> NvrtcCompiler::compile(const std::string& source, const std::string& fileName,
                                               const std::string& arch,
                                               const std::vector<std::string>& extraOptions) const {
  auto text = [this](Status s) { return std::string(errorString_ ? errorString_(s) : "NVRTC error"); };
  Program prog = nullptr;
  if (Status s = create_(&prog, source.c_str(), fileName.c_str(), 0, nullptr, nullptr); s != kNvrtcSuccess)
    return ir::makeError("nvrtcCreateProgram failed: " + text(s));
  // Released on every path below.
  struct Guard {
    const NvrtcCompiler* c;
    Program* p;
    ~Guard() { c->destroy_(p); }
  } guard{this, &prog};

  // A real architecture (sm_XX, not compute_XX) so NVRTC runs ptxas and
  // the log reports registers, shared memory and spills per kernel.
  // --no-cache: with a driver present NVRTC 13 serves a repeated source from
  // the driver's compute cache, and ptxas, which never runs then, reports
  // nothing (seen on an H200). NVRTC versions that do not know the option
  // reject it as invalid, and the compile is retried without it.
  std::vector<std::string> options = {"--gpu-architecture=" + arch, "--std=c++17", "--ptxas-options=--verbose",
                                      "--no-cache"};
  options.insert(options.end(), extraOptions.begin(), extraOptions.end());
  auto run = [&] {
    std::vector<const char*> argv;
    for (const auto& o : options) argv.push_back(o.c_str());
    return compile_(prog, static_cast<int>(argv.size()), argv.data());
  };
  Status compiled = run();
  if (compiled == kNvrtcInvalidOption) {
    options.erase(options.begin() + 3);
    destroy_(&prog);
    if (Status s = create_(&prog, source.c_str(), fileName.c_str(), 0, nullptr, nullptr); s != kNvrtcSuccess)
      return ir::makeError("nvrtcCreateProgram failed: " + text(s));
    compiled = run();
  }

  NvrtcOutput out;
  size_t size = 0;
  if (logSize_(prog, &size) == kNvrtcSuccess && size > 1) {
    out.log.resize(size);
    log_(prog, out.log.data());
    out.log.resize(size - 1);  // drop the terminating NUL
  }
  if (compiled != kNvrtcSuccess)
    return ir::makeError("NVRTC could not compile " + fileName + " for " + arch + ": " + text(compiled) + "\n" +
                         out.log);
  if (Status s = cubinSize_(prog, &size); s != kNvrtcSuccess) return ir::makeError("nvrtcGetCUBINSize: " + text(s));
  out.cubin.resize(size);
  if (Status s = cubin_(prog, out.cubin.data()); s != kNvrtcSuccess) return ir::makeError("nvrtcGetCUBIN: " + text(s));
  if (ptxSize_(prog, &size) == kNvrtcSuccess && size > 1) {
    out.ptx.resize(size);
    if (ptx_(prog, out.ptx.data()) == kNvrtcSuccess) out.ptx.resize(size - 1);
    else out.ptx.clear();
  }
  return out;
}

}  // namespace rammer::runtime
