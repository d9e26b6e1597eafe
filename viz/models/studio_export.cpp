#include "viz/models/studio_export.h"

#include <QFileInfo>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/pipeline/pipeline.h"
#include "core/schedule/schedule_edits.h"
#include "core/sim/chrome_trace.h"
#include "viz/models/graph_display.h"

namespace rammer::viz {

namespace {

using Json = nlohmann::ordered_json;

std::string dotQuote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + '"';
}

}  // namespace

std::string scheduleJson(const schedule::Plan& plan, const schedule::Constraints& constraints,
                         const sim::Trace* predicted, const std::string& modelPath) {
  Json j;
  j["format"] = "rammer-schedule";
  j["version"] = 1;
  j["model"] = modelPath;
  j["policy"] = plan.policy;
  j["device"] = plan.device.id;
  j["device_name"] = plan.device.name;
  if (predicted) {
    j["predicted_latency_us"] = predicted->totalUs;
    j["sm_efficiency"] = predicted->smEfficiency;
  }
  j["edits"] = Json::parse(schedule::scheduleEditsToJson(constraints));
  Json ops = Json::array();
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    const auto& op = plan.ops[i];
    Json e;
    e["index"] = i;
    e["name"] = op.name;
    e["type"] = op.opType;
    e["view"] = op.isView;
    if (!op.isView) {
      e["kernel"] = op.kernel.name;
      e["rule"] = op.kernelRule;
      e["rtasks"] = op.kernel.numRTasks;
      e["threads"] = op.kernel.threads();
      e["shared_bytes"] = op.kernel.sharedBytes;
    }
    ops.push_back(std::move(e));
  }
  j["ops"] = std::move(ops);
  Json programs = Json::array();
  for (size_t p = 0; p < plan.programs.size(); ++p) {
    const auto& info = plan.programs[p];
    Json e;
    e["index"] = p;
    e["veus"] = info.program.numVEUs();
    e["veus_per_sm"] = info.veusPerSM;
    e["cut_reason"] = info.cutReason;
    Json streams = Json::array();
    for (const auto& stream : info.program.streams()) {
      Json s = Json::array();
      for (const auto& instr : stream) {
        if (const auto* x = std::get_if<schedule::Exec>(&instr)) {
          s.push_back(Json{{"op", x->task.op}, {"rtask", x->task.rtask}});
        } else {
          Json waits = Json::array();
          for (const auto& slot : std::get<schedule::Barrier>(instr).waits) waits.push_back(Json::array({slot.veu, slot.order}));
          s.push_back(Json{{"wait", std::move(waits)}});
        }
      }
      streams.push_back(std::move(s));
    }
    e["streams"] = std::move(streams);
    programs.push_back(std::move(e));
  }
  j["programs"] = std::move(programs);
  j["decisions"] = plan.decisions;
  return j.dump(1) + "\n";
}

std::string graphDot(const ir::Graph& graph, const schedule::Plan* plan) {
  const GraphDisplay display = buildGraphDisplay(graph);
  std::unordered_map<ir::NodeId, const schedule::PlannedOp*> planned;
  if (plan)
    for (const auto& op : plan->ops) planned[op.node] = &op;
  std::string out = "digraph " + dotQuote(graph.name.empty() ? "model" : graph.name) + " {\n";
  out += "  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=8];\n";
  for (size_t i = 0; i < display.nodes.size(); ++i) {
    const DisplayNode& n = display.nodes[i];
    std::string label;
    std::string attrs;
    if (n.kind == DisplayNodeKind::Operator) {
      label = n.name + "\n" + n.title;
      if (auto it = planned.find(n.id); it != planned.end())
        label += it->second->isView ? "\n(view)" : "\n" + it->second->kernel.name;
      attrs = "shape=box, style=\"rounded,filled\", fillcolor=\"#eef3fb\"";
    } else {
      label = n.name;
      attrs = "shape=ellipse, style=filled, fillcolor=\"#f2f2f2\"";
    }
    out += "  n" + std::to_string(i) + " [label=" + dotQuote(label) + ", " + attrs + "];\n";
  }
  for (const DisplayEdge& e : display.edges)
    out += "  n" + std::to_string(e.from) + " -> n" + std::to_string(e.to) + " [label=" + dotQuote(e.label) + "];\n";
  out += "}\n";
  return out;
}

std::vector<ir::Diagnostic> writeTextFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return {ir::makeError("cannot open the file for writing", {}, path.string())};
  out << text;
  out.close();
  if (!out) return {ir::makeError("writing the file failed (disk full?)", {}, path.string())};
  return {};
}

std::vector<ir::Diagnostic> writeChromeTraceFile(const std::filesystem::path& path, const sim::Trace& trace) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return {ir::makeError("cannot open the file for writing", {}, path.string())};
  sim::writeChromeTrace(trace, out);
  out.close();
  if (!out) return {ir::makeError("writing the trace failed (disk full?)", {}, path.string())};
  return {};
}

ir::Result<codegen::ExportSummary> runProjectExport(const pipeline::Options& options, pipeline::Artifacts given,
                                                    const pipeline::Control& control) {
  pipeline::StagesResult r =
      pipeline::runStages(options, std::move(given), PipelineStage::Generate, PipelineStage::Export, control);
  if (r.report.cancelled) return ir::makeError("cancelled");
  if (!r.report.ok()) return r.report.errors();
  return *r.artifacts.exported;
}

ExportWritten writeExport(ExportKind kind, const std::filesystem::path& file, pipeline::Options options,
                          const pipeline::Artifacts& given, const sim::Trace* measured,
                          const pipeline::Control& control) {
  ExportWritten out;
  const schedule::Plan* plan = given.plan.get();
  switch (kind) {
    case ExportKind::CudaProject:
    case ExportKind::HipProject: {
      options.generate.target = kind == ExportKind::HipProject ? codegen::Target::Hip : codegen::Target::Cuda;
      options.project.dir = file;
      auto written = runProjectExport(options, given, control);
      if (!written) {
        out.errors = written.errors();
        return out;
      }
      out.message = "wrote " + std::to_string(written->files.size()) + " files to " + file.string() +
                    "; build: " + written->buildCommand;
      return out;
    }
    case ExportKind::ScheduleJson:
      out.errors = writeTextFile(file, scheduleJson(*plan, options.constraints, given.predicted.get(), options.modelPath));
      break;
    case ExportKind::PredictedTrace: out.errors = writeChromeTraceFile(file, *given.predicted); break;
    case ExportKind::MeasuredTrace: out.errors = writeChromeTraceFile(file, *measured); break;
    case ExportKind::GraphDot: out.errors = writeTextFile(file, graphDot(*given.planGraph(), plan)); break;
  }
  if (out.errors.empty()) out.message = "wrote " + file.string();
  return out;
}

SideJob exportJob(ExportKind kind, const QString& path, const pipeline::Options& applied,
                  const pipeline::Artifacts& given) {
  const auto tr = sessionText;
  const QString title = tr("Export");
  const std::shared_ptr<const sim::Trace> measured = given.run ? given.run->trace : nullptr;
  const bool needsPlan = kind == ExportKind::CudaProject || kind == ExportKind::HipProject ||
                         kind == ExportKind::ScheduleJson;
  if (path.isEmpty()) return refusedJob(title, tr("no file or folder given"));
  if (needsPlan && !given.plan) return refusedJob(title, tr("there is no valid plan to export"));
  if (kind == ExportKind::PredictedTrace && !given.predicted) return refusedJob(title, tr("there is no predicted trace"));
  if (kind == ExportKind::MeasuredTrace && !measured)
    return refusedJob(title, tr("nothing was run yet (Compile & Run first)"));
  if (kind == ExportKind::GraphDot && !given.optimized) return refusedJob(title, tr("no model is loaded"));
  SideJob job{title, {}, tr("Exporting %1").arg(QFileInfo(path).fileName()), PipelineStage::Export, nullptr, {}};
  job.work = [kind, file = std::filesystem::path(path.toStdString()), options = applied, given,
              measured](const pipeline::Control& control) -> SideJob::Finish {
    auto report = std::make_shared<SideJobReport>(exportReport(writeExport(kind, file, options, given, measured.get(), control)));
    return [report](bool) { return *report; };
  };
  return job;
}

SideJobReport exportReport(ExportWritten written) {
  if (!written.errors.empty())
    return failedReport(PipelineStage::Export, std::move(written.errors),
                        sessionText("Export"));
  SideJobReport r;
  r.ok = r.jobOk = true;
  r.message = QString::fromStdString(written.message);
  r.info(r.message);
  return r;
}

}  // namespace rammer::viz
