#pragma once
// Small models and devices the host-target tests share.
#include <stdexcept>
#include <string>

#include "core/device/device_spec.h"
#include "core/ir/graph.h"
#include "core/passes/pass_manager.h"
#include "samples/builder/rnn_layers.h"
#include "samples/zoo/sample_config.h"

namespace rammer::samples_test {

// A sequence model in miniature, lstm_tc's shape, optimized: stacked LSTM
// layers whose cells wait for their own step's input projection and their
// previous step (3 layers of 8 steps, hidden 64).
inline ir::Graph miniStackedLstm(const std::string& name) {
  samples::ModelBuilder b(name, samples::kSampleOpset, 1);
  const ir::ValueId x = b.input("input", {8, 1, 64}, {"", samples::kBatchDim, ""});
  b.output(samples::lstmStack(b, "rnn", x, 3, 64).back().y, 1);
  ir::Graph g = b.take();
  passes::PassContext ctx;
  auto records = passes::standardPipeline({}).run(g, ctx);
  if (!records) throw std::runtime_error(records.errorText());
  return g;
}

// The V100 preset cut down to `sms` SMs: a handful of vEUs, still with
// barriers (ThreadSanitizer holds at most 8128 fibers).
inline device::DeviceSpec v100WithSMs(int sms, const std::string& forWhat) {
  auto d = device::loadDevice("v100");
  if (!d) throw std::runtime_error(d.errorText());
  d->id = "v100_" + std::to_string(sms) + "sm";
  d->name = "V100 with " + std::to_string(sms) + " SMs (" + forWhat + ")";
  d->sms = sms;
  return std::move(d).value();
}

}  // namespace rammer::samples_test
