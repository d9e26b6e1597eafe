#include "viz/models/capability_report.h"

#include <QStringList>

#ifdef RAMMER_HAVE_PROFILER
#include "profiler/capability.h"
#endif

namespace rammer::viz {

namespace {

// The shortest true reason a run falls back to the simulator.
QString missingPart(const runtime::CudaCapability& c) {
  if (!c.driverLoaded) return QStringLiteral("no CUDA driver");
  if (c.deviceCount == 0) return QStringLiteral("CUDA driver but no device");
  if (!c.nvrtcLoaded) return QStringLiteral("no NVRTC to compile kernels");
  return QStringLiteral("unknown reason");
}

}  // namespace

CapabilityReport describeCapability(const runtime::CudaCapability& cuda, const std::optional<CuptiStatus>& cupti) {
  CapabilityReport r;
  r.cuda = cuda;
  r.cupti = cupti;
  QString detail = QString::fromStdString(cuda.message);
  if (r.gpu()) {
    QString profiling;
    if (!cupti)
      profiling = QStringLiteral("CUPTI not checked");
    else if (cupti->counters)
      profiling = QStringLiteral("CUPTI counters available");
    else if (cupti->activity)
      profiling = QStringLiteral("CUPTI timings only (no counters)");
    else
      profiling = QStringLiteral("no CUPTI");
    r.text = QStringLiteral("GPU: %1 \u2014 %2").arg(QString::fromStdString(cuda.deviceName), profiling);
  } else {
    r.text = QStringLiteral("simulated: no GPU (%1)").arg(missingPart(cuda));
    detail += QStringLiteral(
        ". Schedules are predicted by the simulator; Compile & Run uses the CPU emulator and labels its "
        "timeline as emulated, or (Run > Run On) runs the generated code itself on the CPU.");
  }
  if (cupti && !cupti->message.isEmpty()) detail += QStringLiteral("\nCUPTI: ") + cupti->message;
  r.detail = detail;
  return r;
}

CapabilityReport probeCapability() {
#ifdef RAMMER_HAVE_PROFILER
  const profiler::ProfilerCapability p = profiler::probeProfiler();
  if (!p.canRun()) return describeCapability(p.cuda, std::nullopt);
  CuptiStatus cupti;
  cupti.activity = p.kernelTimestamps;
  cupti.counters = p.counters;
  QStringList parts;
  if (!p.timestampsMessage.empty()) parts << QStringLiteral("kernel times: ") + QString::fromStdString(p.timestampsMessage);
  if (!p.countersMessage.empty()) parts << QStringLiteral("counters: ") + QString::fromStdString(p.countersMessage);
  cupti.message = parts.join(QStringLiteral("; "));
  return describeCapability(p.cuda, cupti);
#else
  return describeCapability(runtime::probeCuda(), std::nullopt);
#endif
}

}  // namespace rammer::viz
