#include "core/sim/chrome_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

namespace rammer::sim {

namespace {

constexpr int kPid = 1;

// A JSON string literal, escaped.
std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }

// Microseconds with nanosecond resolution; never NaN or infinity (invalid JSON).
std::string us(double t) { return std::isfinite(t) ? fmt::format("{:.3f}", t) : std::string("0"); }

std::string opLabel(const Trace& trace, int32_t op) {
  const auto i = static_cast<size_t>(op);
  std::string name = i < trace.opNames.size() ? trace.opNames[i] : std::string();
  if (!name.empty()) return name;
  return fmt::format("#{} ({})", op, i < trace.opTypes.size() ? trace.opTypes[i] : std::string("?"));
}

class Writer {
 public:
  explicit Writer(std::ostream& out) : out_(out) {}
  // Starts the next event object: "{" with the separator before it.
  std::ostream& next() {
    out_ << (first_ ? "\n" : ",\n") << '{';
    first_ = false;
    return out_;
  }

 private:
  std::ostream& out_;
  bool first_ = true;
};

}  // namespace

void writeChromeTrace(const Trace& trace, std::ostream& out) {
  // Lanes: every vEU any program used.
  int numVEUs = 0;
  for (const auto& p : trace.programs) numVEUs = std::max(numVEUs, p.numVEUs);
  for (const auto& t : trace.tasks) numVEUs = std::max(numVEUs, t.veu + 1);
  for (const auto& b : trace.barriers) numVEUs = std::max(numVEUs, b.veu + 1);
  const int sms = std::max(trace.sms, 1);

  // Per op: its label and kernel, escaped once.
  const size_t numOps = std::max(trace.opNames.size(), trace.opTypes.size());
  std::vector<std::string> opName(numOps), kernel(numOps);
  for (size_t i = 0; i < numOps; ++i) {
    opName[i] = quoted(opLabel(trace, static_cast<int32_t>(i)));
    kernel[i] = quoted(i < trace.kernelNames.size() ? trace.kernelNames[i] : std::string());
  }
  auto nameOf = [&](int32_t op) {
    return op >= 0 && static_cast<size_t>(op) < numOps ? opName[static_cast<size_t>(op)] : quoted(opLabel(trace, op));
  };
  auto kernelOf = [&](int32_t op) {
    return op >= 0 && static_cast<size_t>(op) < numOps ? kernel[static_cast<size_t>(op)] : quoted("");
  };

  out << "{\"traceEvents\": [";
  Writer w(out);
  const std::string device = trace.device.empty() ? "device" : trace.device;
  w.next() << "\"ph\": \"M\", \"pid\": " << kPid << ", \"name\": \"process_name\", \"args\": {\"name\": "
           << quoted(device + " (" + trace.source + ")") << "}}";
  w.next() << "\"ph\": \"M\", \"pid\": " << kPid << ", \"tid\": 0, \"name\": \"thread_name\", \"args\": {\"name\": "
           << "\"rPrograms\"}}";
  w.next() << "\"ph\": \"M\", \"pid\": " << kPid << ", \"tid\": 0, \"name\": \"thread_sort_index\", \"args\": "
           << "{\"sort_index\": 0}}";
  for (int v = 0; v < numVEUs; ++v) {
    // Lanes grouped by SM (vEU v is on SM v % SMs), as on the device.
    const int sm = predictedSM(v, sms);
    w.next() << "\"ph\": \"M\", \"pid\": " << kPid << ", \"tid\": " << chromeTid(v)
             << ", \"name\": \"thread_name\", \"args\": {\"name\": \"vEU " << v << " (SM " << sm << ")\"}}";
    w.next() << "\"ph\": \"M\", \"pid\": " << kPid << ", \"tid\": " << chromeTid(v)
             << ", \"name\": \"thread_sort_index\", \"args\": {\"sort_index\": "
             << 1 + static_cast<int64_t>(sm) * numVEUs + v / sms << "}}";
  }

  for (const auto& p : trace.programs) {
    w.next() << "\"ph\": \"X\", \"pid\": " << kPid << ", \"tid\": 0, \"cat\": \"program\", \"name\": \"program "
             << p.program << "\", \"ts\": " << us(p.startUs) << ", \"dur\": " << us(p.endUs - p.startUs)
             << ", \"args\": {\"program\": " << p.program << ", \"veus\": " << p.numVEUs
             << ", \"veus_per_sm\": " << p.veusPerSM << "}}";
  }
  for (const auto& t : trace.tasks) {
    const std::string name = nameOf(t.task.op);
    w.next() << "\"ph\": \"X\", \"pid\": " << kPid << ", \"tid\": " << chromeTid(t.veu)
             << ", \"cat\": \"rtask\", \"name\": " << name << ", \"ts\": " << us(t.startUs)
             << ", \"dur\": " << us(t.endUs - t.startUs) << ", \"args\": {\"op\": " << name
             << ", \"op_index\": " << t.task.op << ", \"rtask\": " << t.task.rtask << ", \"kernel\": " << kernelOf(t.task.op)
             << ", \"program\": " << t.program << ", \"order\": " << t.order << ", \"sm\": " << t.sm << "}}";
  }
  for (const auto& b : trace.barriers) {
    w.next() << "\"ph\": \"X\", \"pid\": " << kPid << ", \"tid\": " << chromeTid(b.veu)
             << ", \"cat\": \"barrier\", \"name\": \"barrier\", \"ts\": " << us(b.startUs)
             << ", \"dur\": " << us(b.endUs - b.startUs) << ", \"args\": {\"program\": " << b.program
             << ", \"order\": " << b.order << ", \"released_by_veu\": " << b.lastSlot.veu
             << ", \"released_by_order\": " << b.lastSlot.order << "}}";
  }
  out << "\n], \"displayTimeUnit\": \"ns\", \"otherData\": {\"source\": " << quoted(trace.source)
      << ", \"device\": " << quoted(trace.device) << ", \"measured\": " << (trace.measured ? "true" : "false")
      << ", \"total_us\": " << us(trace.totalUs) << ", \"sm_efficiency\": "
      << (std::isfinite(trace.smEfficiency) ? fmt::format("{:.6f}", trace.smEfficiency) : std::string("0")) << "}}\n";
}

std::string chromeTraceJson(const Trace& trace) {
  std::ostringstream s;
  writeChromeTrace(trace, s);
  return s.str();
}

}  // namespace rammer::sim
