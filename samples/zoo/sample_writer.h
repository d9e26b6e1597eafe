#pragma once
// Builds one sample model, summarises it and writes it as ONNX: what the
// rammer-samples tool does per model, kept out of main() for the tests.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "core/ir/diagnostic.h"
#include "core/onnx/exporter.h"
#include "core/ops/model_summary.h"
#include "samples/zoo/sample_catalog.h"

namespace rammer::samples {

struct WriteOptions {
  SampleConfig config;
  // Write the batch dim as the symbol "batch" instead of config.batch.
  bool symbolicBatch = false;
  // Refuse models whose weights exceed this many bytes (keeps big models out
  // of the source tree).
  std::optional<int64_t> maxWeightBytes;
};

struct WrittenSample {
  std::string name;
  std::filesystem::path file;
  ops::ModelSummary summary;
  std::uintmax_t fileBytes = 0;
};

ir::Result<WrittenSample> writeSample(const SampleModel& model, const std::filesystem::path& outDir,
                                      const WriteOptions& options);

// "resnext29_cifar   params 68.2 M (paper 68.1 M, +0.1%)  nodes 101  10.7 GFLOP  272.9 MB"
std::string summaryLine(const WrittenSample& written, double publishedParams);

// The exporter options the samples are written with.
onnx_export::ExportOptions sampleExportOptions(bool symbolicBatch);

}  // namespace rammer::samples
