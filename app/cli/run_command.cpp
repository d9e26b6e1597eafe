// rammer run MODEL --backend reference (--inputs DIR | --random [--seed N])
//            --outputs DIR [--json] [--batch N]
// rammer run MODEL --backend cuda [--policy P] [--trace T.json] [--metrics]
//            [--repeat N] [--launch stream|graph] (run_cuda.h)
// rammer run MODEL --backend emulator [--policy P] [--threads N] [--trace T.json]
//            with inputs and outputs as for reference (run_emulator.h)
// rammer run MODEL --backend host [--policy P] [--threads N] [--trace T.json]
//            [--repeat N] [--tsan] [--launch stream|graph], inputs and outputs as for reference: the
//            generated program itself on the CPU (run_host.h)
#include <fmt/core.h>

#include <chrono>
#include <memory>
#include <optional>

#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/output_check_report.h"
#include "app/cli/memory_option.h"
#include "app/cli/model_loading.h"
#include "app/cli/optimize.h"
#include "app/cli/run_cuda.h"
#include "app/cli/run_emulator.h"
#include "app/cli/run_host.h"
#include "core/exec/random_inputs.h"
#include "core/pipeline/run_stage.h"
#include "core/onnx/tensor_file.h"
#include "core/ops/type_inference.h"

namespace rammer::cli {

namespace {

struct RunOptions {
  std::string model;
  std::string backend = "reference";
  std::string inputsDir;
  bool random = false;
  uint64_t seed = 0;
  std::string outputsDir;
  bool json = false;
  int64_t batch = 0;  // 0: not given
  bool optimize = false;
  // Scheduled backends (cuda): the plan, and what to measure.
  pipeline::PlanChoices plan;
  std::string traceFile;
  bool metrics = false;
  int repeat = 0;   // timed runs; 0: the backend's default (cuda 10, host 1)
  double watchdog = 10;  // cuda: seconds before a run counts as hung
  std::string gpuLock;   // cuda: a file locked around each use of the GPU
  int64_t maxMemory = 0;  // bytes the CPU side may use; 0: half this machine's memory
  int threads = 0;  // emulator or host workers; 0: one per core
  bool tsan = false;  // host: build with ThreadSanitizer
  bool noCheck = false;  // emulator, host, cuda: skip the reference run and the output check
  std::string launch;    // cuda, host: "stream" or "graph"; empty: not given (stream)
};

// The backends that run the inputs given and write outputs (cuda only checks them).
bool writesOutputs(const std::string& backend) {
  return backend == "reference" || backend == "emulator" || backend == "host";
}

struct OutputFile {
  std::string name;
  std::string file;
  ir::TensorType type;
};

std::vector<onnx_import::NamedTensor> readInputs(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) throw CliError(dir.string() + ": inputs folder not found");
  auto inputs = onnx_import::readTensorDir(dir, "input");
  if (!inputs) throwDiagnostics(inputs.errors(), "reading inputs from " + dir.string());
  if (inputs->empty()) throw CliError(dir.string() + ": no input_0.pb in the inputs folder");
  return std::move(inputs).value();
}

// Imports with the given inputs' shapes bound to the graph inputs (in order),
// so symbolic dims take their values before type inference. The input names
// come from a first, inference-free pass; when the declared shapes already
// are the given ones, that graph only needs its types inferred (what the
// importer would do next) instead of a second parse.
std::shared_ptr<const ir::Graph> importForInputs(const RunOptions& o,
                                                 const std::vector<onnx_import::NamedTensor>& inputs,
                                                 const Progress& progress) {
  onnx_import::ImportOptions probe;
  probe.inferTypes = false;
  const std::shared_ptr<const ir::Graph> probed = loadModel(o.model, probe, progress);
  const ir::Graph& graph = *probed;
  if (graph.inputs().size() != inputs.size())
    throw CliError(fmt::format("the model has {} inputs, {} has {} input files", graph.inputs().size(),
                               o.inputsDir, inputs.size()));
  bool declaredAsGiven = true;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::TensorType& t = graph.value(graph.inputs()[i]).type;
    declaredAsGiven = declaredAsGiven && t.fullyKnown() && t.shape == inputs[i].tensor.shape();
  }
  if (declaredAsGiven) {
    auto typed = std::make_shared<ir::Graph>(graph);  // a copy is cheaper than a second parse
    if (auto errs = ops::inferTypes(*typed); !errs.empty()) throwDiagnostics(errs, o.model);
    return typed;
  }
  onnx_import::ImportOptions options;
  if (o.batch > 0) options.batch = o.batch;
  for (size_t i = 0; i < inputs.size(); ++i)
    options.inputShapes[graph.value(graph.inputs()[i]).name] = inputs[i].tensor.shape();
  return loadModel(o.model, options, Progress::silent());
}

std::vector<ir::Tensor> randomInputs(const RunOptions& o, const ir::Graph& graph) {
  auto inputs = exec::makeRandomInputs(graph, o.seed, o.maxMemory);
  if (inputs) return std::move(inputs).value();
  std::vector<ir::Diagnostic> errors = inputs.errors();
  bool unknownDims = false;
  for (ir::ValueId id : graph.inputs()) unknownDims = unknownDims || !graph.value(id).type.fullyKnown();
  if (unknownDims)
    errors.push_back(ir::makeError(o.batch > 0 ? "--batch does not bind every unknown dim of the inputs; use --inputs DIR"
                                               : "pass --batch N to bind the symbolic dims of the inputs"));
  throwDiagnostics(errors);
}

// `host`: what the host backend adds (its build and run figures), or null;
// `check`: the Run stage's output check (emulator, host), or null.
void printResult(const RunOptions& o, const std::vector<OutputFile>& outputs, double importSeconds,
                 double runSeconds, size_t nodes, const HostRunReport* host, const pipeline::OutputCheck* check) {
  if (o.json) {
    Json j;
    j["model"] = o.model;
    j["backend"] = o.backend;
    j["inputs"] = o.random ? Json(fmt::format("random (seed {})", o.seed)) : Json(o.inputsDir);
    j["nodes"] = nodes;
    j["import_seconds"] = importSeconds;
    j["run_seconds"] = runSeconds;
    if (host) j["launch"] = runtime::launchModeName(host->launch);
    if (host) j["host"] = host->json;
    if (check) j["output_check"] = outputCheckJson(*check);
    j["outputs"] = Json::array();
    for (const auto& out : outputs) {
      Json e;
      e["name"] = out.name;
      e["dtype"] = std::string(ir::dtypeName(out.type.dtype));
      e["shape"] = shapeToJson(out.type);
      e["file"] = out.file;
      j["outputs"].push_back(e);
    }
    fmt::print("{}\n", j.dump(2));
    return;
  }
  fmt::print("model    {}\n", o.model);
  fmt::print("backend  {}\n", o.backend);
  fmt::print("import   {}\n", formatSeconds(importSeconds));
  fmt::print("run      {} ({} nodes)\n", formatSeconds(runSeconds), nodes);
  if (host)
    for (const std::string& line : host->lines) fmt::print("{}\n", line);
  if (check)
    for (const std::string& line : outputCheckLines(*check)) fmt::print("{}\n", line);
  fmt::print("outputs\n");
  size_t width = 0;
  for (const auto& out : outputs) width = std::max(width, out.name.size());
  for (const auto& out : outputs)
    fmt::print("  {:<{}}  {} {} -> {}\n", out.name, width, ir::dtypeName(out.type.dtype), shapeText(out.type),
               out.file);
}

// --launch: only the backends that launch generated kernels take it.
runtime::LaunchMode launchModeOf(const RunOptions& o) {
  if (o.launch.empty()) return runtime::LaunchMode::Stream;
  if (o.backend != "cuda" && o.backend != "host")
    throw CliError("--launch needs --backend cuda or host: it says how the generated kernels are launched, and the " +
                   o.backend + " backend launches none");
  return *runtime::parseLaunchMode(o.launch);  // CLI11 checked the spelling
}

int runRun(const RunOptions& o, const GlobalOptions& global) {
  const runtime::LaunchMode launch = launchModeOf(o);
  if (o.backend == "cuda") {
    CudaRunRequest r{o.model, o.plan, o.inputsDir, o.seed, o.outputsDir, o.traceFile, o.metrics, o.repeat > 0 ? o.repeat : 10};
    r.plan.batch = o.batch;
    r.json = o.json;
    r.watchdogSeconds = o.watchdog;
    r.gpuLock = o.gpuLock;
    r.maxMemoryBytes = o.maxMemory;
    r.checkOutputs = !o.noCheck;
    r.launch = launch;
    return runCudaBackend(r, global);
  }
  if (!writesOutputs(o.backend))
    throw CliError("backend '" + o.backend + "' is not available; choose reference, emulator, host or cuda");
  if (o.tsan && o.backend != "host") throw CliError("--tsan needs --backend host");
  requireFile(o.model, "model");
  Progress progress(global);

  auto start = std::chrono::steady_clock::now();
  std::shared_ptr<const ir::Graph> imported;
  std::vector<ir::Tensor> inputs;
  if (o.random) {
    onnx_import::ImportOptions options;
    if (o.batch > 0) options.batch = o.batch;
    imported = loadModel(o.model, options, progress);
    inputs = randomInputs(o, *imported);
  } else {
    std::vector<onnx_import::NamedTensor> named = readInputs(o.inputsDir);
    imported = importForInputs(o, named, progress);
    for (auto& n : named) inputs.push_back(std::move(n.tensor));
  }
  std::shared_ptr<const ir::Graph> ran = imported;  // the graph whose outputs are written
  if (o.optimize && o.backend == "reference") ran = optimizeGraph(imported, progress).graph;
  const double importSeconds = secondsSince(start);

  // The emulator and the host run a plan: the pipeline optimizes the graph,
  // schedules, validates and runs.
  start = std::chrono::steady_clock::now();
  ir::Result<std::vector<ir::Tensor>> results = std::vector<ir::Tensor>{};
  std::optional<HostRunReport> host;
  std::optional<pipeline::OutputCheck> check;
  if (o.backend == "emulator") {
    PlanRunOutputs run = runOnEmulator(
        imported, o.model, inputs, EmulatorRunRequest{o.plan, o.threads, o.traceFile, o.maxMemory, !o.noCheck}, progress);
    ran = std::move(run.optimized);
    results = std::move(run.outputs);
    check = std::move(run.check);
  } else if (o.backend == "host") {
    host = runOnHost(imported, o.model, inputs,
                     HostRunRequest{o.plan, o.threads, o.repeat > 0 ? o.repeat : 1, o.traceFile, o.tsan, o.maxMemory,
                                    !o.noCheck, launch},
                     progress);
    ran = host->optimized;
    results = host->outputs;
    check = host->check;
  } else {
    results = pipeline::runReferenceModel(*ran, inputs, o.maxMemory, [&progress](size_t done, size_t total) {
      progress.steps("running", done, total);
    });
  }
  const double runSeconds = secondsSince(start);
  if (!results) throwDiagnostics(results.errors(), o.model);

  const std::filesystem::path outDir(o.outputsDir);
  std::error_code ec;
  std::filesystem::create_directories(outDir, ec);
  if (ec) throw CliError(outDir.string() + ": cannot create the outputs folder: " + ec.message());
  std::vector<OutputFile> written;
  for (size_t i = 0; i < results->size(); ++i) {
    const ir::Tensor& t = (*results)[i];
    const std::string name = ran->value(ran->outputs()[i]).name;
    const std::filesystem::path file = outDir / fmt::format("output_{}.pb", i);
    if (auto errs = onnx_import::writeTensorFile(file, t, name); !errs.empty()) throwDiagnostics(errs, file.string());
    written.push_back(OutputFile{name, file.string(), t.type()});
  }
  printResult(o, written, importSeconds, runSeconds, ran->numNodes(), host ? &*host : nullptr,
              check ? &*check : nullptr);
  return check && !check->match ? 1 : 0;
}

}  // namespace

Command addRunCommand(CLI::App& app, const GlobalOptions& global) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* sub = app.add_subcommand("run", "Run a model on given or seeded random inputs and write its outputs");
  sub->add_option("MODEL", opts->model, "ONNX model file")->required();
  sub->add_option("--backend", opts->backend,
                  "Execution backend: reference, emulator (the plan rTask by rTask on the CPU), host (the generated code on the "
                  "CPU), cuda")
      ->capture_default_str();
  CLI::Option_group* source = sub->add_option_group("input source", "Where the inputs come from (one of)");
  source->add_option("--inputs", opts->inputsDir, "Folder with input_0.pb, input_1.pb, ... bound in order");
  CLI::Option* random = source->add_flag("--random", opts->random, "Seeded random inputs (floats in [-1, 1], ints 0..9)");
  source->require_option(0, 1);
  sub->add_option("--seed", opts->seed, "Seed for --random")->capture_default_str()->needs(random);
  sub->add_option("--outputs", opts->outputsDir, "Folder to write output_0.pb, output_1.pb, ... into");
  sub->add_flag("--json", opts->json, "Print one JSON object instead of text");
  sub->add_option("--batch", opts->batch, "Bind symbolic leading dims of the inputs to N")->check(CLI::PositiveNumber);
  sub->add_flag("--optimize", opts->optimize, "Run the graph passes before running");
  addPolicyOption(sub, opts->plan.policy, "Scheduling policy (emulator, host, cuda)");
  addFuseAttentionFlag(sub, opts->plan.attention);
  addFuseEpiloguesFlag(sub, opts->plan.epilogues);
  addIosOptions(sub, opts->plan.ios);
  addGraphTurboOptions(sub, opts->plan.graphturbo);
  addProgramFlags(sub, opts->plan);
  sub->add_option("--device", opts->plan.device, "Device preset or JSON the plan is made for (emulator, host, cuda)")
      ->capture_default_str();
  sub->add_option("--schedule", opts->plan.scheduleFile, "Schedule edits JSON (emulator, host, cuda)");
  sub->add_option("--trace", opts->traceFile,
                  "Write the measured (cuda, host) or emulated (emulator) Chrome trace JSON here");
  sub->add_option("--threads", opts->threads, "Worker threads (emulator, host; default: one per core)")
      ->check(CLI::PositiveNumber);
  sub->add_flag("--metrics", opts->metrics, "Report hardware metrics (cuda)");
  sub->add_option("--repeat", opts->repeat, "Timed runs (cuda: default 10, host: 1)")->check(CLI::PositiveNumber);
  addMaxMemoryOption(sub, opts->maxMemory);
  sub->add_option("--watchdog", opts->watchdog,
                  "Seconds a GPU run may take before it counts as hung (cuda; raise it under compute-sanitizer)")
      ->check(CLI::Range(0.1, 86400.0))
      ->capture_default_str();
  sub->add_option("--gpu-lock", opts->gpuLock,
                  "A file locked (flock) around each use of the GPU, so runs started side by side compile at once "
                  "but time the GPU one at a time (cuda)");
  sub->add_flag("--no-check", opts->noCheck,
                "Skip the reference run that checks a plan's outputs (emulator, host, cuda; every backend is checked "
                "by one rule otherwise, and a mismatch exits with 1)");
  sub->add_option("--launch", opts->launch,
                  "How a run's kernels are launched (cuda, host): stream (each program launched in turn, every "
                  "run; the default) or graph (one run's memsets and launches captured once into a CUDA graph and "
                  "replayed per run). A plan of many programs, such as --policy sequential's kernel per operator, "
                  "then pays the launch cost torch.compile's reduce-overhead mode and TensorRT pay: one graph "
                  "launch per run")
      ->check(CLI::IsMember({"stream", "graph"}));
  sub->add_flag("--tsan", opts->tsan,
                "Build the host program with ThreadSanitizer and fail on any data race (host; every CUDA thread "
                "becomes a fiber, so a plan for a small device runs faster)");
  // The reference backend reads given inputs and writes outputs; the GPU
  // defaults to seeded random inputs and only checks its outputs.
  sub->parse_complete_callback([opts] {
    if (!writesOutputs(opts->backend)) return;
    if (opts->inputsDir.empty() && !opts->random) throw CLI::RequiredError("--inputs or --random");
    if (opts->outputsDir.empty()) throw CLI::RequiredError("--outputs");
  });
  return Command{sub, [opts, &global] { return runRun(*opts, global); }};
}

}  // namespace rammer::cli
