#include "profiler/activity_tracer.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>

#include "profiler/activity_decode.h"
#include "profiler/cupti_errors.h"

namespace rammer::profiler {

KernelAttribution attributeKernelRecords(std::vector<KernelRecord> records,
                                         const std::vector<codegen::KernelLaunch>& launches, int skipRuns) {
  KernelAttribution out;
  std::map<std::string, std::vector<size_t>> launchesByName;
  for (size_t i = 0; i < launches.size(); ++i) {
    out.launches.push_back(LaunchTimes{launches[i].program, launches[i].kernel, {}});
    launchesByName[launches[i].kernel].push_back(i);
  }
  // One stream: launch order is start order (correlation ids break ties).
  std::stable_sort(records.begin(), records.end(), [](const KernelRecord& a, const KernelRecord& b) {
    return a.startNs != b.startNs ? a.startNs < b.startNs : a.correlationId < b.correlationId;
  });
  std::map<std::string, size_t> seen;
  for (const KernelRecord& r : records) {
    if (!r.complete()) {
      ++out.incomplete;
      continue;
    }
    auto it = launchesByName.find(r.name);
    if (it == launchesByName.end()) {
      ++out.unmatched;
      continue;
    }
    const size_t k = seen[r.name]++;
    const size_t n = it->second.size();
    if (static_cast<int64_t>(k / n) < skipRuns) continue;
    out.launches[it->second[k % n]].us.push_back(r.durationUs());
  }
  return out;
}

#if RAMMER_HAVE_CUPTI_HEADERS

std::optional<KernelRecord> decodeKernelActivity(const CUpti_Activity& record) {
  if (record.kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record.kind != CUPTI_ACTIVITY_KIND_KERNEL)
    return std::nullopt;
  // CUPTI's documented way: the record is the kind's struct.
  const auto& k = reinterpret_cast<const CUpti_ActivityKernel10&>(record);
  KernelRecord r;
  r.name = k.name ? k.name : "";
  r.startNs = k.start;
  r.endNs = k.end;
  r.correlationId = k.correlationId;
  r.deviceId = k.deviceId;
  r.contextId = k.contextId;
  r.streamId = k.streamId;
  r.gridX = k.gridX, r.gridY = k.gridY, r.gridZ = k.gridZ;
  r.blockX = k.blockX, r.blockY = k.blockY, r.blockZ = k.blockZ;
  r.registers = k.registersPerThread;
  r.staticSharedBytes = k.staticSharedMemory;
  r.dynamicSharedBytes = k.dynamicSharedMemory;
  return r;
}

namespace {

using GetNextRecordFn = decltype(&cuptiActivityGetNextRecord);
using GetDroppedFn = decltype(&cuptiActivityGetNumDroppedRecords);

std::vector<KernelRecord> decodeBuffer(GetNextRecordFn next, uint8_t* buffer, size_t validBytes) {
  std::vector<KernelRecord> out;
  if (!next || !buffer || validBytes == 0) return out;
  CUpti_Activity* record = nullptr;
  while (next(buffer, validBytes, &record) == CUPTI_SUCCESS && record)
    if (auto k = decodeKernelActivity(*record)) out.push_back(std::move(*k));
  return out;
}

// CUPTI's buffer callbacks carry no user pointer, and its activity state is
// per process anyway, so the running tracer is reached through this one
// guarded slot. It holds copies of the two entry points the callback needs
// (libcupti is never unloaded, see cupti_loader.cpp), never a pointer to a
// CuptiLibrary that may be gone when CUPTI flushes at exit.
struct CallbackSlot {
  std::mutex mutex;
  ActivityTracer* tracer = nullptr;
  GetNextRecordFn next = nullptr;
  GetDroppedFn dropped = nullptr;
};

CallbackSlot& callbackSlot() {
  static CallbackSlot slot;
  return slot;
}

constexpr size_t kBufferBytes = size_t{4} << 20;
constexpr size_t kBufferAlign = 8;  // CUPTI requires 8-byte aligned buffers

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxNumRecords) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlign, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *maxNumRecords = 0;  // as many as fit
}

void CUPTIAPI bufferCompleted(CUcontext, uint32_t streamId, uint8_t* buffer, size_t, size_t validSize) {
  {
    CallbackSlot& slot = callbackSlot();
    std::lock_guard<std::mutex> lock(slot.mutex);
    std::vector<KernelRecord> records = decodeBuffer(slot.next, buffer, validSize);
    size_t dropped = 0;
    if (slot.dropped) slot.dropped(nullptr, streamId, &dropped);
    if (slot.tracer) slot.tracer->deliver(std::move(records), dropped);
  }
  std::free(buffer);
}

// Points the callbacks at `cupti`'s entry points and registers them.
int registerCallbacks(const CuptiLibrary& cupti) {
  const CuptiApi& api = cupti.api();
  {
    CallbackSlot& slot = callbackSlot();
    std::lock_guard<std::mutex> lock(slot.mutex);
    slot.next = api.activityGetNextRecord;
    slot.dropped = api.activityGetNumDroppedRecords;
  }
  return api.activityRegisterCallbacks(bufferRequested, bufferCompleted);
}

std::string explain(const CuptiLibrary& cupti, int r, const std::string& call) {
  return explainCuptiError(r, cupti.resultName(r), call);
}

}  // namespace

std::vector<KernelRecord> decodeActivityBuffer(const CuptiLibrary& cupti, uint8_t* buffer, size_t validBytes) {
  return decodeBuffer(cupti.api().activityGetNextRecord, buffer, validBytes);
}

ir::Result<std::unique_ptr<ActivityTracer>> ActivityTracer::start(std::shared_ptr<const CuptiLibrary> cupti) {
  if (!cupti) return ir::makeError("kernel timestamps unavailable: CUPTI is not loaded");
  std::unique_ptr<ActivityTracer> t(new ActivityTracer(cupti));
  {
    CallbackSlot& slot = callbackSlot();
    std::lock_guard<std::mutex> lock(slot.mutex);
    if (slot.tracer) return ir::makeError("another CUPTI activity trace is already running in this process");
    slot.tracer = t.get();
  }
  auto release = [] {
    std::lock_guard<std::mutex> lock(callbackSlot().mutex);
    callbackSlot().tracer = nullptr;
  };
  if (int r = registerCallbacks(*cupti); r != CUPTI_SUCCESS) {
    release();
    return ir::makeError(explain(*cupti, r, "cuptiActivityRegisterCallbacks"));
  }
  if (int r = cupti->api().activityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); r != CUPTI_SUCCESS) {
    release();
    return ir::makeError(explain(*cupti, r, "cuptiActivityEnable(CONCURRENT_KERNEL)"));
  }
  t->running_ = true;
  return t;
}

ir::Result<std::vector<KernelRecord>> ActivityTracer::stop() {
  if (!running_) return ir::makeError("the activity trace is not running");
  running_ = false;
  const CuptiApi& api = cupti_->api();
  const int disabled = api.activityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  // Completed buffers first, then whatever is left (records without an end
  // time are counted as incomplete by attributeKernelRecords).
  int flushed = api.activityFlushAll(0);
  if (flushed == CUPTI_SUCCESS) flushed = api.activityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::vector<KernelRecord> records;
  {
    std::lock_guard<std::mutex> lock(callbackSlot().mutex);
    callbackSlot().tracer = nullptr;
    records = std::move(records_);
  }
  if (flushed != CUPTI_SUCCESS) return ir::makeError(explain(*cupti_, flushed, "cuptiActivityFlushAll"));
  if (disabled != CUPTI_SUCCESS) return ir::makeError(explain(*cupti_, disabled, "cuptiActivityDisable"));
  return records;
}

ActivityTracer::~ActivityTracer() {
  if (running_) (void)stop();
}

void ActivityTracer::deliver(std::vector<KernelRecord> records, size_t dropped) {
  records_.insert(records_.end(), std::make_move_iterator(records.begin()), std::make_move_iterator(records.end()));
  dropped_ += dropped;
}

ir::Result<bool> checkActivityApi(const CuptiLibrary& cupti) {
  {
    std::lock_guard<std::mutex> lock(callbackSlot().mutex);
    if (callbackSlot().tracer) return true;  // a tracer is running: it works
  }
  if (int r = registerCallbacks(cupti); r != CUPTI_SUCCESS)
    return ir::makeError(explain(cupti, r, "cuptiActivityRegisterCallbacks"));
  if (int r = cupti.api().activityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); r != CUPTI_SUCCESS)
    return ir::makeError(explain(cupti, r, "cuptiActivityEnable(CONCURRENT_KERNEL)"));
  cupti.api().activityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cupti.api().activityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  return true;
}

#else  // built without the CUPTI headers

std::vector<KernelRecord> decodeActivityBuffer(const CuptiLibrary&, uint8_t*, size_t) { return {}; }

ir::Result<std::unique_ptr<ActivityTracer>> ActivityTracer::start(std::shared_ptr<const CuptiLibrary>) {
  return ir::makeError("kernel timestamps unavailable: this build was made without the CUPTI headers");
}
ir::Result<std::vector<KernelRecord>> ActivityTracer::stop() { return ir::makeError("the activity trace is not running"); }
ActivityTracer::~ActivityTracer() = default;
void ActivityTracer::deliver(std::vector<KernelRecord> records, size_t dropped) {
  records_.insert(records_.end(), records.begin(), records.end());
  dropped_ += dropped;
}
ir::Result<bool> checkActivityApi(const CuptiLibrary&) {
  return ir::makeError("kernel timestamps unavailable: this build was made without the CUPTI headers");
}

#endif

}  // namespace rammer::profiler
