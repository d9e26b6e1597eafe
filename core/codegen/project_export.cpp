#include "core/codegen/project_export.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "core/codegen/harness_source.h"
#include "core/codegen/host_sources.h"
#include "core/codegen/zero_ranges.h"
#include "core/ir/words.h"

namespace rammer::codegen {

namespace {

namespace fs = std::filesystem;

const char* kindName(BufferInfo::Kind k) {
  switch (k) {
    case BufferInfo::Kind::Input: return "input";
    case BufferInfo::Kind::Output: return "output";
    case BufferInfo::Kind::Weight: return "weight";
    case BufferInfo::Kind::Intermediate: return "intermediate";
    case BufferInfo::Kind::Table: return "table";
  }
  return "intermediate";
}

// Manifest names are the rest of a line: keep them on one.
std::string oneLine(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s.empty() ? "_" : s;
}

bool hasInitialData(const BufferInfo& b, size_t index) {
  return b.storage == static_cast<int32_t>(index) &&
         (b.kind == BufferInfo::Kind::Input || b.kind == BufferInfo::Kind::Weight || b.kind == BufferInfo::Kind::Table);
}

std::string dataFile(size_t index) { return fmt::format("data/b{}.bin", index); }
std::string expectedFile(size_t k) { return fmt::format("data/expected_{}.bin", k); }

// The buffer of each graph output, in graph.outputs() order.
std::vector<int32_t> outputBuffers(const GeneratedProgram& program, const ir::Graph& graph) {
  std::map<ir::ValueId, int32_t> byValue;
  for (size_t i = 0; i < program.buffers.size(); ++i) byValue.emplace(program.buffers[i].value, static_cast<int32_t>(i));
  std::vector<int32_t> out;
  for (ir::ValueId v : graph.outputs()) {
    auto it = byValue.find(v);
    out.push_back(it == byValue.end() ? -1 : it->second);
  }
  return out;
}

struct Writer {
  fs::path dir;
  ExportSummary summary;
  std::vector<ir::Diagnostic> errors;

  void text(const std::string& name, const std::string& content) {
    const fs::path p = dir / name;
    std::ofstream out(p, std::ios::binary);
    out << content;
    if (!out) errors.push_back(ir::makeError("cannot write " + p.string()));
    else summary.files.push_back(p);
  }

  void bytes(const std::string& name, const void* data, size_t size) {
    const fs::path p = dir / name;
    std::ofstream out(p, std::ios::binary);
    // Raw 4-byte words as the host holds them; every supported host is little-endian.
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) {
      errors.push_back(ir::makeError("cannot write " + p.string()));
      return;
    }
    summary.files.push_back(p);
    summary.dataBytes += static_cast<int64_t>(size);
  }

  // A tensor as the words the program holds it in (ir/words.h).
  void words(const std::string& name, const ir::Tensor& t, int64_t numel, const std::string& what) {
    auto w = ir::toWords(t, numel, what);
    if (!w) {
      for (ir::Diagnostic d : w.errors()) errors.push_back(std::move(d));
      return;
    }
    bytes(name, w->data(), w->size() * sizeof(float));
  }
};

}  // namespace

const char* targetName(Target target) {
  switch (target) {
    case Target::Hip: return "hip";
    case Target::Host: return "host";
    case Target::Cuda: break;
  }
  return "cuda";
}

std::string buildCommand(Target target) {
  switch (target) {
    case Target::Hip: return "hipcc -O2 -std=c++17 --offload-arch=gfx90a -o prog *.hip";
    case Target::Host: {
      std::string s = "c++";
      for (const std::string& f : hostCompileFlags()) s += " " + f;
      return s + " -o prog kernels.cpp main.cpp rammer_host_runtime.cpp -lboost_context";
    }
    case Target::Cuda: break;
  }
  return "nvcc -O2 -arch=sm_90 -o prog *.cu";
}

std::vector<std::string> distinctKernels(const GeneratedProgram& program) {
  std::vector<std::string> names;
  for (const KernelLaunch& l : program.launches)
    if (std::find(names.begin(), names.end(), l.kernel) == names.end()) names.push_back(l.kernel);
  return names;
}

std::string kernelsFileSource(const GeneratedProgram& program) {
  std::string s = program.source;
  const std::vector<std::string> names = distinctKernels(program);
  s += "\n// ---- host side: kernel addresses, indexed by the manifest's launch records ----\n";
  s += "#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)\n";
  s += "extern \"C\" const void* const rammer_kernel_table[] = {\n";
  for (const std::string& n : names) s += "  (const void*)" + n + ",\n";
  if (names.empty()) s += "  nullptr,\n";
  s += "};\n";
  s += fmt::format("extern \"C\" const int rammer_kernel_count = {};\n", names.size());
  s += "#endif\n";
  return s;
}

std::string manifestText(const GeneratedProgram& program, const ExportData& data) {
  std::string s = "# Rammer Studio export: read by main.cu/main.hip; one record a line.\n";
  s += "# buffer INDEX KIND NUMEL STORAGE FILE|- NAME; buffer_offset INDEX ELEMENTS (where a view starts in its storage)\n";
  s += "# launch PROGRAM KERNEL GRID BLOCK SHARED_BYTES PERSISTENT VEUS_PER_SM NZERO ZERO_BUFFERS...\n";
  s += "# output BUFFER EXPECTED_FILE NAME; int_output K (output K holds int32 words)\n";
  s += "# arena WORDS; in_arena BUFFER OFFSET; clear LAUNCH OFFSET WORDS (the split-K outputs, cleared together)\n";
  s += "format 1\n";
  s += fmt::format("model {}\npolicy {}\ndevice {}\n", oneLine(data.modelName), oneLine(data.policy), oneLine(data.device));
  s += fmt::format("target {}\n", targetName(program.target));
  s += fmt::format("steps {}\ntimed_events {}\n", program.numSteps, program.numTimedEvents);
  for (size_t i = 0; i < program.buffers.size(); ++i) {
    const BufferInfo& b = program.buffers[i];
    s += fmt::format("buffer {} {} {} {} {} {}\n", i, kindName(b.kind), b.numel, b.storage,
                     hasInitialData(b, i) ? dataFile(i) : "-", oneLine(b.name));
    if (b.storageOffset != 0) s += fmt::format("buffer_offset {} {}\n", i, b.storageOffset);
  }
  const std::vector<std::string> names = distinctKernels(program);
  for (const KernelLaunch& l : program.launches) {
    const auto kernel = std::find(names.begin(), names.end(), l.kernel) - names.begin();
    s += fmt::format("launch {} {} {} {} {} {} {} {}", l.program, kernel, l.gridBlocks, l.blockThreads, l.dynamicSharedBytes,
                     l.persistent ? 1 : 0, l.veusPerSM, l.zeroBuffers.size());
    for (int32_t z : l.zeroBuffers) s += fmt::format(" {}", z);
    s += "\n";
  }
  // The buffers launches clear lie side by side, so a launch clears them
  // with a memset or two, not one per buffer (zero_ranges.h).
  if (auto zero = layOutZeroedBuffers(program.buffers, program.launches); zero.ok() && zero->arenaWords > 0) {
    s += fmt::format("arena {}\n", zero->arenaWords);
    for (size_t i = 0; i < zero->arenaOffset.size(); ++i)
      if (zero->arenaOffset[i] >= 0) s += fmt::format("in_arena {} {}\n", i, zero->arenaOffset[i]);
    for (size_t k = 0; k < zero->clears.size(); ++k)
      for (const WordRange& c : zero->clears[k]) s += fmt::format("clear {} {} {}\n", k, c.offset, c.words);
  }
  return s;
}

namespace {

// Manifest and data/ into `w.dir`; an empty `data.expected` writes output
// records without expected values ("-": the harness does not check them).
void writeData(Writer& w, const GeneratedProgram& program, const ir::Graph& graph, const ExportData& data) {
  // Initial contents: weights from the graph, inputs from `data`.
  for (size_t i = 0; i < program.buffers.size(); ++i) {
    const BufferInfo& b = program.buffers[i];
    if (!hasInitialData(b, i)) continue;
    if (b.kind == BufferInfo::Kind::Table) {
      if (static_cast<int64_t>(program.tableWords.size()) != b.numel) {
        w.errors.push_back(ir::makeError("the instruction table has " + std::to_string(program.tableWords.size()) +
                                         " words, its buffer " + std::to_string(b.numel)));
        continue;
      }
      w.bytes(dataFile(i), program.tableWords.data(), program.tableWords.size() * sizeof(int32_t));
    } else if (b.kind == BufferInfo::Kind::Weight) {
      const ir::Value& v = graph.value(b.value);
      if (!v.constant) {
        w.errors.push_back(ir::makeError("weight '" + b.name + "' has no constant data", b.name));
        continue;
      }
      w.words(dataFile(i), *v.constant, b.numel, "weight '" + b.name + "'");
    } else {
      if (b.inputIndex < 0 || static_cast<size_t>(b.inputIndex) >= data.inputs.size()) {
        w.errors.push_back(ir::makeError("no input tensor given for graph input '" + b.name + "'", b.name));
        continue;
      }
      w.words(dataFile(i), data.inputs[static_cast<size_t>(b.inputIndex)], b.numel, "input '" + b.name + "'");
    }
  }
  std::string manifest = manifestText(program, data);
  const std::vector<int32_t> outs = outputBuffers(program, graph);
  const bool check = !data.expected.empty();
  for (size_t k = 0; k < outs.size(); ++k) {
    const std::string name = graph.value(graph.outputs()[k]).name;
    if (outs[k] < 0 || (check && k >= data.expected.size())) {
      w.errors.push_back(ir::makeError("no buffer or expected tensor for graph output '" + name + "'", name));
      continue;
    }
    if (check)
      w.words(expectedFile(k), data.expected[k], program.buffers[static_cast<size_t>(outs[k])].numel,
               "expected output '" + name + "'");
    manifest += fmt::format("output {} {} {}\n", outs[k], check ? expectedFile(k) : "-", oneLine(name));
    if (ir::wordKindOf(graph.value(graph.outputs()[k]).type.dtype) == ir::WordKind::Int)
      manifest += fmt::format("int_output {}\n", k);
  }
  w.text("manifest.txt", manifest);
}

}  // namespace

ir::Result<ExportSummary> writeProgramData(const fs::path& dir, const GeneratedProgram& program, const ir::Graph& graph,
                                           const ExportData& data) {
  std::error_code ec;
  fs::create_directories(dir / "data", ec);
  if (ec) return ir::makeError("cannot create " + (dir / "data").string() + ": " + ec.message());
  Writer w{dir, {}, {}};
  writeData(w, program, graph, data);
  if (!w.errors.empty()) return w.errors;
  return std::move(w.summary);
}

ir::Result<ExportSummary> writeProject(const fs::path& dir, const GeneratedProgram& program, const ir::Graph& graph,
                                       const ExportData& data) {
  std::error_code ec;
  fs::create_directories(dir / "data", ec);
  if (ec) return ir::makeError("cannot create " + (dir / "data").string() + ": " + ec.message());
  const Target target = program.target;
  const std::string ext = target == Target::Hip ? "hip" : target == Target::Host ? "cpp" : "cu";

  Writer w{dir, {}, {}};
  writeData(w, program, graph, data);
  w.summary.buildCommand = buildCommand(target);
  w.text("kernels." + ext, kernelsFileSource(program));
  w.text("main." + ext, harnessSource(target));
  if (target == Target::Host)
    for (const ir::TextFile& f : hostSourceFiles()) w.text(std::string(f.name), std::string(f.text));
  w.text("CMakeLists.txt", projectCMakeLists(target));
  const char* graphKind = target == Target::Hip ? "HIP" : target == Target::Host ? "host-emulated CUDA" : "CUDA";
  w.text("README.txt",
         fmt::format("Rammer Studio export of {} (policy {}, planned for {}, {} code).\n\n"
                     "Build:  cd this folder && {}\n"
                     "   or:  cmake -B build && cmake --build build{}\n"
                     "Run:    ./prog [this folder] [--runs N] [--rtol X] [--atol X] [--launch stream|graph]\n\n"
                     "prog loads data/ (raw little-endian float32), runs the {} kernel launch(es), compares every\n"
                     "output with the reference executor's (|got - want| <= atol + rtol |want|, default 1e-4 each),\n"
                     "prints the max error and PASS/FAIL (exit 1 on FAIL), and times repeated runs{}.\n"
                     "--launch graph captures one run's launches into a {} graph once and replays it per run.\n",
                     data.modelName, data.policy, data.device, targetName(target), w.summary.buildCommand,
                     target == Target::Host ? "   (-DRAMMER_TSAN=ON: with ThreadSanitizer)" : "",
                     program.launches.size(),
                     target == Target::Host ? " on the CPU (the generated kernels, run by rammer_host_runtime.cpp)"
                                            : " with GPU events",
                     graphKind));
  if (!w.errors.empty()) return w.errors;
  return std::move(w.summary);
}

}  // namespace rammer::codegen
