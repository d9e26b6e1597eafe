#include "core/runtime/host_execution.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include "core/codegen/code_generator.h"
#include "core/codegen/project_export.h"
#include "core/ir/words.h"
#include "core/runtime/subprocess.h"
#include "core/runtime/timing_decoder.h"

namespace rammer::runtime {

namespace fs = std::filesystem;

namespace {

// A folder for one run's data, removed when the run is over unless given.
struct WorkDir {
  fs::path path;
  bool owned = false;
  explicit WorkDir(const fs::path& given) {
    if (!given.empty()) {
      path = given;
      return;
    }
    static std::atomic<int> counter{0};
    path = fs::temp_directory_path() / fmt::format("rammer-host-{}-{}", ::getpid(), counter++);
    owned = true;
  }
  ~WorkDir() {
    std::error_code ec;
    if (owned) fs::remove_all(path, ec);
  }
};

ir::Result<std::vector<char>> readBytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary | std::ios::ate);
  if (!in) return ir::makeError("the host program did not write " + p.string());
  std::vector<char> bytes(static_cast<size_t>(in.tellg()));
  in.seekg(0);
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return bytes;
}

}  // namespace

std::vector<ir::Diagnostic> hostRunFailure(const SubprocessResult& r) {
  std::vector<ir::Diagnostic> out;
  std::istringstream in(r.output);
  std::string line, current;
  auto flush = [&] {
    if (!current.empty()) out.push_back(ir::makeError(current));
    current.clear();
  };
  while (std::getline(in, line)) {
    if (line.rfind("error: ", 0) == 0) {
      flush();
      current = line.substr(7);
    } else if (!current.empty() && line.rfind("  ", 0) == 0) {
      current += "\n" + line;  // a deadlock's list of vEUs
    } else {
      flush();
    }
  }
  flush();
  if (r.cancelled) {
    out.insert(out.begin(), ir::makeError("cancelled"));
  } else if (r.timedOut || r.signal || out.empty() || !r.started) {
    // With no "error:" line of its own (a sanitizer's or the C++ runtime's
    // abort), the program's last lines say why.
    std::string why = "the host program " + r.describe();
    if (out.empty()) {
      std::vector<std::string> tail;
      std::istringstream lines(r.output);
      while (std::getline(lines, line))
        if (line.find_first_not_of(" \t=") != std::string::npos) tail.push_back(line);
      if (tail.size() > 4) tail.erase(tail.begin(), tail.end() - 4);
      for (const std::string& l : tail) why += "\n  " + l;
    }
    out.insert(out.begin(), ir::makeError(why));
  }
  return out;
}

namespace {

// ThreadSanitizer's reports, one diagnostic each with its summary line and
// the first frames of both accesses; empty when it found nothing.
std::vector<ir::Diagnostic> sanitizerReports(const std::string& output) {
  std::vector<ir::Diagnostic> out;
  size_t at = 0;
  int count = 0;
  while ((at = output.find("WARNING: ThreadSanitizer:", at)) != std::string::npos) {
    ++count;
    const size_t end = output.find("==================", at);
    std::string report = output.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (count <= 3) {
      // Keep the headline, the access lines and their first frame.
      std::istringstream in(report);
      std::string line, kept;
      int frames = 0;
      while (std::getline(in, line)) {
        if (line.rfind("WARNING", 0) == 0 || line.rfind("SUMMARY", 0) == 0 || line.find(" of size ") != std::string::npos) {
          kept += line + "\n";
          frames = 0;
        } else if (line.find("    #") == 0 && frames++ < 2) {
          kept += line + "\n";
        }
      }
      out.push_back(ir::makeError(kept));
    }
    at += 8;
  }
  if (count > 0)
    out.insert(out.begin(), ir::makeError(fmt::format("ThreadSanitizer reported {} problem(s) in the host program{}",
                                                      count, count > 3 ? "; the first 3 follow" : "")));
  return out;
}

// The plan's words for a deadlock line "vEU 2 waits for vEU 3 to complete
// its instruction 7": the waiting vEU's barrier (its position in the vEU's
// stream) and the awaited rTask, so the message names the work too.
std::string explainSlots(const schedule::Plan& plan, int program, const std::string& message) {
  if (program < 0 || static_cast<size_t>(program) >= plan.programs.size()) return message;
  const schedule::RProgram& prog = plan.programs[static_cast<size_t>(program)].program;
  static const std::regex slot(R"(vEU (\d+) waits for vEU (\d+) to complete its instruction (\d+))");
  std::string out;
  std::istringstream in(message);
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, slot)) {
      const int waiter = std::stoi(m[1].str()), veu = std::stoi(m[2].str()), order = std::stoi(m[3].str());
      if (waiter >= 0 && waiter < prog.numVEUs()) {
        const auto& stream = prog.stream(waiter);
        for (size_t k = 0; k < stream.size(); ++k) {
          const auto* b = std::get_if<schedule::Barrier>(&stream[k]);
          if (!b || std::find(b->waits.begin(), b->waits.end(), schedule::Slot{veu, order}) == b->waits.end()) continue;
          const std::string at = "vEU " + m[1].str();
          line.replace(static_cast<size_t>(m.position(0)), at.size(), fmt::format("{} (its barrier, instruction {})", at, k));
          break;
        }
      }
      if (veu >= 0 && veu < prog.numVEUs() && order >= 0 && static_cast<size_t>(order) < prog.stream(veu).size()) {
        const schedule::Instr& ins = prog.stream(veu)[static_cast<size_t>(order)];
        if (const auto* e = std::get_if<schedule::Exec>(&ins); e && e->task.op >= 0 &&
                                                              static_cast<size_t>(e->task.op) < plan.ops.size())
          line += fmt::format(": rTask {} of '{}'", e->task.rtask, plan.ops[static_cast<size_t>(e->task.op)].name);
        else
          line += ": a barrier";
      }
    }
    out += (first ? "" : "\n") + line;
    first = false;
  }
  return out;
}

}  // namespace

ir::Result<HostProgram> buildHostPlan(const schedule::Plan& plan, const ir::Graph& graph,
                                      const HostExecutionOptions& options) {
  codegen::CodegenOptions co;
  co.target = codegen::Target::Host;
  co.instrument = true;  // one build serves runs with and without a trace
  auto program = codegen::generateProgram(plan, graph, co);
  if (!program) return program.errors();
  HostCompilerOptions build = options.build;
  if (!build.cancel) build.cancel = options.cancel;
  if (!build.status) build.status = options.status;
  auto built = buildHostProgram(*program, build);
  if (!built) return built.errors();
  return HostProgram{std::move(program).value(), std::move(built).value()};
}

ir::Result<HostExecution> executeOnHost(const schedule::Plan& plan, const ir::Graph& graph,
                                        const std::vector<ir::Tensor>& inputs, const HostExecutionOptions& options) {
  auto built = buildHostPlan(plan, graph, options);
  if (!built) return built.errors();
  return runHostProgram(*built, plan, graph, inputs, options);
}

ir::Result<HostExecution> runHostProgram(const HostProgram& built, const schedule::Plan& plan, const ir::Graph& given,
                                         const std::vector<ir::Tensor>& inputs, const HostExecutionOptions& options) {
  const ir::Graph& graph = schedule::graphOf(plan, given);  // the plan's own after a merge
  if (options.repeat < 1) return ir::makeError("repeat must be at least 1");
  if (inputs.size() != graph.inputs().size())
    return ir::makeError(fmt::format("the model has {} inputs, {} given", graph.inputs().size(), inputs.size()));
  auto say = [&](const std::string& s) {
    if (options.status) options.status(s);
  };
  const codegen::GeneratedProgram& program = built.program;
  HostExecution out;
  out.build = built.build;

  WorkDir work(options.workDir);
  codegen::ExportData data;
  data.modelName = "model";
  data.policy = plan.policy;
  data.device = plan.device.id;
  data.inputs = inputs;  // written as words (ir/words.h), checked there
  say("writing the weights and inputs...");
  if (auto w = codegen::writeProgramData(work.path, program, graph, data); !w) return w.errors();
  const fs::path outDir = work.path / "out", timingFile = work.path / "timing.bin";
  std::error_code ec;
  fs::create_directories(outDir, ec);

  std::vector<std::string> argv = {out.build.executable.string(), work.path.string(),
                                   "--runs", std::to_string(options.repeat),
                                   "--warmup", std::to_string(std::max(options.warmup, 0)),
                                   "--outputs", outDir.string()};
  if (options.workers > 0) argv.insert(argv.end(), {"--threads", std::to_string(options.workers)});
  if (options.measureTrace) argv.insert(argv.end(), {"--timing", timingFile.string()});
  argv.insert(argv.end(), {"--launch", launchModeName(options.launch)});
  SubprocessOptions so;
  so.timeoutSeconds = options.timeoutSeconds;
  so.cancel = options.cancel;
  say("running the generated program on the CPU...");
  const SubprocessResult r = runSubprocess(argv, so);
  out.processSeconds = r.seconds;
  if (auto races = sanitizerReports(r.output); !races.empty()) return races;
  if (!r.ok()) {
    std::vector<ir::Diagnostic> errors = hostRunFailure(r);
    // A stream run names the launch's program; a graph replay's deadlock names it itself.
    static const std::regex running(R"((?:running|deadlock in) program (\d+))");
    for (ir::Diagnostic& d : errors) {
      std::smatch m;
      if (std::regex_search(d.message, m, running)) d.message = explainSlots(plan, std::stoi(m[1].str()), d.message);
    }
    return errors;
  }

  // What the harness printed: "running on the host CPU (2 worker threads)",
  // "time: X ms per run (..., stream|graph launch)", "memory: peak RSS N KiB".
  static const std::regex device(R"(running on (the host CPU \((\d+) worker threads?\)))");
  static const std::regex time(R"(time: ([0-9.]+) ms per run \(.*, (stream|graph) launch\))");
  std::smatch m;
  if (std::regex_search(r.output, m, device)) {
    out.deviceName = m[1].str();
    out.workers = std::stoi(m[2].str());
  }
  if (std::regex_search(r.output, m, time)) {
    out.meanRunMs = std::stod(m[1].str());
    out.launch = parseLaunchMode(m[2].str()).value_or(LaunchMode::Stream);
  }
  if (out.launch != options.launch)
    return ir::makeError(fmt::format("the host program was asked for {} launches but reports {} ones",
                                     launchModeName(options.launch), launchModeName(out.launch)));
  static const std::regex memory(R"(memory: peak RSS (\d+) KiB)");
  if (std::regex_search(r.output, m, memory)) out.peakRssKib = std::stoll(m[1].str());

  for (size_t k = 0; k < graph.outputs().size(); ++k) {
    const ir::Value& v = graph.value(graph.outputs()[k]);
    auto bytes = readBytes(outDir / fmt::format("output_{}.bin", k));
    if (!bytes) return bytes.errors();
    if (!v.type.fullyKnown() || static_cast<int64_t>(bytes->size()) != ir::numElements(v.type.shape) * 4)
      return ir::makeError(fmt::format("output '{}' ({}) does not match the {} bytes the program wrote", v.name,
                                       ir::typeToString(v.type), bytes->size()));
    std::vector<float> words(bytes->size() / sizeof(float));
    std::memcpy(words.data(), bytes->data(), words.size() * sizeof(float));
    out.outputs.push_back(ir::fromWords(v.type.dtype, v.type.shape, words));
  }
  if (options.measureTrace) {
    auto bytes = readBytes(timingFile);
    if (!bytes) return bytes.errors();
    std::vector<uint64_t> words(bytes->size() / sizeof(uint64_t));
    std::memcpy(words.data(), bytes->data(), words.size() * sizeof(uint64_t));
    TimingSource source;
    source.deviceName = out.deviceName.empty() ? "the host CPU" : out.deviceName;
    source.clock = "steady clock";
    source.sms = out.workers;
    auto trace = decodeTiming(plan, program, words, source);
    if (!trace) return trace.errors();
    out.trace = std::move(trace).value();
  }
  return out;
}

}  // namespace rammer::runtime
