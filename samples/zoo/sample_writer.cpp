#include "samples/zoo/sample_writer.h"

#include <cmath>
#include <cstdio>
#include <system_error>

namespace rammer::samples {

onnx_export::ExportOptions sampleExportOptions(bool symbolicBatch) {
  onnx_export::ExportOptions o;
  o.producerName = "rammer-samples";
  o.symbolicDims = symbolicBatch;
  return o;
}

ir::Result<WrittenSample> writeSample(const SampleModel& model, const std::filesystem::path& outDir,
                                      const WriteOptions& options) {
  const std::filesystem::path file = outDir / (model.name + ".onnx");
  WrittenSample out;
  out.name = model.name;
  out.file = file;
  try {
    const ir::Graph graph = model.build(options.config);
    out.summary = ops::summarize(graph);
    if (options.maxWeightBytes && out.summary.parameterBytes > *options.maxWeightBytes)
      return ir::makeError("has " + ops::formatBytes(out.summary.parameterBytes) + " of weights, over the limit of " +
                               ops::formatBytes(*options.maxWeightBytes),
                           {}, file.string());
    auto errors = onnx_export::exportModel(graph, file, sampleExportOptions(options.symbolicBatch));
    if (!errors.empty()) return errors;
  } catch (const std::exception& e) {
    return ir::makeError(std::string("building the model failed: ") + e.what(), {}, file.string());
  }
  std::error_code ec;
  out.fileBytes = std::filesystem::file_size(file, ec);
  return out;
}

std::string summaryLine(const WrittenSample& w, double publishedParams) {
  const ops::ModelSummary& s = w.summary;
  std::string paper;
  if (publishedParams > 0) {
    const double diff = 100.0 * (static_cast<double>(s.parameterCount) - publishedParams) / publishedParams;
    char buf[64];
    std::snprintf(buf, sizeof buf, " (paper %s, %+.1f%%)",
                  ops::formatCount(static_cast<int64_t>(std::llround(publishedParams))).c_str(), diff);
    paper = buf;
  }
  char line[256];
  std::snprintf(line, sizeof line, "%-16s params %-9s%s  nodes %-5zu %s  %s", w.name.c_str(),
                ops::formatCount(s.parameterCount).c_str(), paper.c_str(), s.nodeCount, ops::formatFlops(s.flops).c_str(),
                ops::formatBytes(static_cast<int64_t>(w.fileBytes)).c_str());
  return line;
}

}  // namespace rammer::samples
