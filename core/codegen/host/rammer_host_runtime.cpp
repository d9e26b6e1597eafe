// The host target's runtime: runs the launches of a generated program on
// the CPU (rammer_host.h has the mapping from CUDA). Compiled into every
// host program and export, never into rammer itself.
//
// Workers: W OS threads (one per core by default). A persistent launch
// gives worker w the vEUs w, w+W, ...; each vEU is a fiber that runs the
// kernel as its block's leader and yields back to the worker when a barrier
// finds a step short, so any number of vEUs shares W cores. A worker with
// nothing runnable sleeps on a futex until a step is published; when every
// worker is stuck and no step moved, the launch is a deadlock and fails with
// the vEUs and what they wait for. Ordinary launches (RammerBase) hand out
// blocks one by one and run each on the worker itself.
//
// CUDA threads: an rTask with __syncthreads runs its threads as fibers in a
// chain: the leader resumes thread 0; each thread, at its next
// __syncthreads (or its end), resumes the next one, and the last resumes
// the leader, so a round of the chain is one barrier at one switch per
// thread (a switch to the leader and back after each thread cost twice
// that, half of a host run's time on GEMM mainloops). Fibers never move between OS
// threads (TLS stays valid) and never end, except the CUDA thread fibers a
// ThreadSanitizer build retires to stay under TSan's limit (ensureThreads). They are Boost.Context's
// fcontext (make_fcontext / jump_fcontext): an uninstrumented jump, so the
// ThreadSanitizer annotation sits immediately before the switch.
//
// ThreadSanitizer (built with -fsanitize=thread): every fiber is a TSan
// fiber and every switch is announced without synchronisation, so TSan
// sees vEUs and CUDA threads as the concurrent agents they are on a GPU.
// The happens-before edges are only the real ones: the step counters'
// acquire/release, __syncthreads (explicit release/acquire per barrier,
// alternating two sync objects so a later barrier's arrivals never leak
// into an earlier one's), the fan-out's start and end, and the kernel
// boundary. Scheduler bookkeeping shared between a worker and its fibers
// is atomic, so it adds no edges. CUDA thread fibers belong to one vEU
// (not shared by the worker's vEUs), so one vEU's work is never program-
// ordered before another's; when a worker retires them, the vEU's next ones
// are new TSan fibers on renewed stacks. Blocks of an ordinary launch that share a
// worker are ordered: races between them are not seen. An rTask without
// __syncthreads runs its threads as a loop in TSan builds too (its threads
// share no shared memory; a race between two of them on global memory,
// i.e. two threads writing one element, is not seen).
#define RAMMER_HOST_NO_CUDA_NAMES 1
#include "rammer_host.h"

#include <linux/futex.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <boost/context/detail/fcontext.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>
#include <chrono>
#include <algorithm>
#include <climits>
#include <map>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#if defined(__SANITIZE_THREAD__)
#define RAMMER_HOST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RAMMER_HOST_TSAN 1
#endif
#endif
#ifdef RAMMER_HOST_TSAN
#include <sanitizer/tsan_interface.h>
#include <sys/mman.h>
// Exported by every ThreadSanitizer runtime, declared by no header of GCC 12's.
extern "C" void __tsan_ignore_thread_begin();
extern "C" void __tsan_ignore_thread_end();
#endif

namespace rammer_host {
namespace {

namespace bc = boost::context;
namespace bcd = boost::context::detail;

// --- ThreadSanitizer annotations (nothing in other builds) ---
#ifdef RAMMER_HOST_TSAN
constexpr bool kTsan = true;
void* tsanCurrent() { return __tsan_get_current_fiber(); }
void* tsanCreate(const std::string& name) {
  void* f = __tsan_create_fiber(0);
  __tsan_set_fiber_name(f, name.c_str());
  return f;
}
// Immediately before a jump: the switch itself orders nothing.
void tsanSwitch(void* fiber) { __tsan_switch_to_fiber(fiber, __tsan_switch_to_fiber_no_sync); }
void tsanRelease(void* sync) { __tsan_release(sync); }
void tsanAcquire(void* sync) { __tsan_acquire(sync); }
void tsanDestroy(void* fiber) { __tsan_destroy_fiber(fiber); }
// The runtime's own bookkeeping across vEUs of one worker (one OS thread):
// not part of the program, so neither a race nor an edge.
struct TsanIgnore {
  TsanIgnore() { __tsan_ignore_thread_begin(); }
  ~TsanIgnore() { __tsan_ignore_thread_end(); }
};
// A stack a retired fiber ran on, made new for the next one: a fresh
// anonymous mapping, which ThreadSanitizer records as the caller's write
// (ordered before a fiber the caller then creates) in place of the old
// fiber's accesses. In pieces under its clear_shadow_mmap_threshold (64 KiB),
// so that TSan writes the shadow rather than remapping it: stacks unmapped
// and mapped whole passed vm.max_map_count (docs/RELIABILITY.md).
void tsanRenewStack(const bc::stack_context& s) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE)), piece = 32 << 10;
  char* top = static_cast<char*>(s.sp);
  char* bottom = top - s.size + page;  // above the guard page
  for (char* p = bottom; p < top; p += piece) {
    const size_t n = std::min(piece, static_cast<size_t>(top - p));
    if (mmap(p, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
      trap("a ThreadSanitizer build could not renew a CUDA thread fiber's stack (mmap failed)");
  }
}
constexpr size_t kLeaderStack = 512 << 10, kThreadStack = 128 << 10;
#else
constexpr bool kTsan = false;
void* tsanCurrent() { return nullptr; }
void* tsanCreate(const std::string&) { return nullptr; }
void tsanSwitch(void*) {}
void tsanRelease(void*) {}
void tsanAcquire(void*) {}
void tsanDestroy(void*) {}
struct TsanIgnore {
  TsanIgnore() {}  // user-provided: a scope guard, not an unused variable
};
void tsanRenewStack(const bc::stack_context&) {}
// Guarded stacks; only touched pages cost memory.
constexpr size_t kLeaderStack = 256 << 10, kThreadStack = 64 << 10;
#endif

// Thrown through the kernel text to end a block early.
struct Trap {
  std::string what;
};
struct Aborted {};

enum State : int { kReady, kRunning, kAtBarrier, kBlocked, kDone, kFailed };
enum Mode : int { kLeader, kLoop, kFibers };

struct Worker;
struct Block;

// A suspended execution context on a guarded stack of its own.
struct Context {
  bcd::fcontext_t fctx = nullptr;
  bc::stack_context stack;
};

void makeContext(Context& c, size_t size, void (*entry)(bcd::transfer_t)) {
  bc::protected_fixedsize_stack alloc(size);
  c.stack = alloc.allocate();
  c.fctx = bcd::make_fcontext(c.stack.sp, c.stack.size, entry);
}

// Switches to `to` (as ThreadSanitizer fiber `tsan`) and returns, when
// someone switches back, the context that did; `data` reaches the target.
bcd::transfer_t switchTo(bcd::fcontext_t to, void* tsan, void* data);

// One CUDA thread of a block while an rTask runs on fibers.
struct ThreadFiber {
  Context context;  // its stack and first context
  // Where it resumes: stored by whoever it switched to (the next thread or
  // the leader). Atomic: chain bookkeeping, no happens-before edge for TSan.
  std::atomic<bcd::fcontext_t> resumeAt{nullptr};
  void* tsan = nullptr;
  std::atomic<int> state{kReady};
  std::atomic<int> barriers{0};  // __syncthreads reached in this rTask
  int tid = 0;
  struct ThreadSet* set = nullptr;
};

// The CUDA threads of one vEU (ThreadSanitizer) or of one worker.
struct ThreadSet {
  std::vector<std::unique_ptr<ThreadFiber>> fibers;
  // The fan-out being run; written by the leader before `start` is released.
  void (*body)(void*, int) = nullptr;
  void* context = nullptr;
  std::atomic<void*> leaderTsan{nullptr};
  // The chain of the running round: `count` threads; `from` is who switched
  // last (a tid, or -1 for the leader): the resumed fiber stores the
  // context it receives there.
  std::atomic<bcd::fcontext_t> leader{nullptr};
  std::atomic<int> count{0};
  std::atomic<int> from{-1};
  bool poisoned = false;  // threads left mid-rTask by a divergence: never resumed again
  uint64_t lastUse = 0;   // ThreadSanitizer: the owner worker's fan-out count at its last fan-out
  char start = 0, end = 0, phase[2] = {0, 0};  // ThreadSanitizer sync addresses
};

// A block: a vEU of a persistent launch (a fiber of its own), or a
// worker's slot for the blocks of ordinary launches.
struct Block {
  std::atomic<int> index{0};
  std::atomic<int> state{kReady};
  std::vector<float> smem;
  ThreadSet threads;  // ThreadSanitizer builds only
  // The rTask being fanned out over the block's threads.
  Fanout fanout;
  const char* function = "";
  int syncs = 0;
  bool veu = false;
  Worker* worker = nullptr;
  // vEU fibers: contexts, and what a blocked vEU waits for.
  Context context;                      // held by the worker
  bcd::fcontext_t scheduler = nullptr;  // held by this fiber
  void* tsan = nullptr;
  std::atomic<const unsigned long long*> waitStep{nullptr};
  std::atomic<unsigned long long> waitWant{0};
  std::atomic<int> waitVeu{0}, waitOrder{0};
};

struct Worker {
  int id = 0;
  void* tsan = nullptr;
  std::atomic<Block*> block{nullptr};          // the block running now
  std::atomic<ThreadFiber*> thread{nullptr};   // the CUDA thread fiber running now
  std::atomic<int> mode{kLeader};
  ThreadSet threads;  // shared by this worker's vEUs (non-ThreadSanitizer builds)
  // ThreadSanitizer builds: the CUDA thread fibers its vEUs' sets hold, the
  // stacks of retired ones, and its fan-outs so far (the sets' recency).
  int threadFibers = 0;
  std::vector<bc::stack_context> spareStacks;
  uint64_t fanouts = 0;
  Block slot;         // ordinary launches
  std::vector<std::unique_ptr<Block>> veus;  // persistent launches: a pool of vEU fibers
  size_t active = 0;  // of them, in this launch
};

struct LaunchState {
  LaunchConfig config;
  float* const* buffers = nullptr;
  unsigned long long* steps = nullptr;
  unsigned long long epoch = 0;
  unsigned long long* timing = nullptr;
  int index = 0;
};

// A captured memset, or a launch with its arguments (rammer_host.h, "graphs").
struct GraphStep {
  bool isMemset = false;
  LaunchState launch;
  void* at = nullptr;
  int value = 0;
  size_t bytes = 0;
};

}  // namespace

struct Graph {
  std::vector<GraphStep> steps;
};

namespace {

struct Runtime {
  int workerCount = 0;
  std::vector<std::unique_ptr<Worker>> workers;
  std::mutex mutex;
  std::condition_variable wake, finished;
  uint64_t job = 0;
  int done = 0;
  LaunchState launch;
  std::atomic<unsigned> nextBlock{0};
  std::atomic<uint32_t> progress{0};  // bumped after every publish; workers sleep on it
  std::atomic<int> sleepers{0};
  std::atomic<bool> aborting{false};
  // Deadlock detection (under `mutex`): per worker the progress value at
  // which it found nothing to run, or kBusy.
  std::vector<uint64_t> idleAt;
  std::string error;  // the launch's failure (first one wins)
  bool failed = false;
  std::string lastError;
  char launchStart = 0, launchEnd = 0;  // ThreadSanitizer sync addresses
  std::unique_ptr<Graph> capture;       // open between beginCapture and endCapture
};

constexpr uint64_t kBusy = UINT64_MAX;

Runtime& rt() {
  static Runtime* r = new Runtime;  // never destroyed: workers and fibers live until exit
  return *r;
}

thread_local Worker* tlsWorker = nullptr;

Worker& self() {
  if (!tlsWorker) trap("a kernel function was called outside a launch");
  return *tlsWorker;
}

void futexWait(std::atomic<uint32_t>* word, uint32_t value, int ms) {
  timespec ts{ms / 1000, (ms % 1000) * 1000000L};
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, value, &ts, nullptr, 0);
}
void futexWakeAll(std::atomic<uint32_t>* word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

// Records the launch's failure and makes every worker wind down.
void fail(const std::string& message) {
  Runtime& r = rt();
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    if (r.error.empty()) r.error = message;
  }
  r.aborting.store(true, std::memory_order_relaxed);
  r.progress.fetch_add(1, std::memory_order_relaxed);
  futexWakeAll(&r.progress);
}

std::string where(const Worker& w) {
  const Block* b = w.block.load(std::memory_order_relaxed);
  std::string s = "program " + std::to_string(rt().launch.config.program);
  if (b) s += (b->veu ? ", vEU " : ", block ") + std::to_string(b->index.load(std::memory_order_relaxed));
  if (b && w.mode.load(std::memory_order_relaxed) != kLeader) s += std::string(", ") + b->function;
  return s;
}

// --- CUDA threads ---

bcd::transfer_t switchTo(bcd::fcontext_t to, void* tsan, void* data) {
  tsanSwitch(tsan);
  return bcd::jump_fcontext(to, data);
}

// A thread fiber has just been resumed by `t`: keep the switcher's context
// and become the worker's current CUDA thread.
void resumed(ThreadFiber* f, bcd::transfer_t t) {
  ThreadSet* set = f->set;
  // The leader grows `fibers` before it releases an rTask's start; a thread
  // resumed for a new rTask has not acquired it yet (no edge a GPU lacks:
  // every thread of an rTask is ordered after its start anyway).
  tsanAcquire(&set->start);
  const int from = set->from.load(std::memory_order_relaxed);
  if (from < 0) set->leader.store(t.fctx, std::memory_order_relaxed);
  else set->fibers[static_cast<size_t>(from)]->resumeAt.store(t.fctx, std::memory_order_relaxed);
  tlsWorker->thread.store(f, std::memory_order_relaxed);
}

// At a __syncthreads or the end of its rTask: resumes the next thread of the
// round, or the leader after the last; returns when resumed again. `done`
// (the end of an rTask: the set's `end`) is released after the set is read
// and before the switch, so that the leader, which acquires it before it
// grows `fibers` for a later rTask, is ordered after these reads too
// (ThreadSanitizer saw the reallocation race them).
void passOn(ThreadFiber* f, void* done = nullptr) {
  ThreadSet* set = f->set;
  set->from.store(f->tid, std::memory_order_relaxed);
  const int next = f->tid + 1;
  bcd::fcontext_t to;
  void* tsan;
  ThreadFiber* n = nullptr;
  if (next < set->count.load(std::memory_order_relaxed)) {
    n = set->fibers[static_cast<size_t>(next)].get();
    to = n->resumeAt.load(std::memory_order_relaxed);
    tsan = n->tsan;
  } else {
    to = set->leader.load(std::memory_order_relaxed);
    tsan = set->leaderTsan.load(std::memory_order_relaxed);
  }
  if (done) tsanRelease(done);
  resumed(f, switchTo(to, tsan, n));
}

[[noreturn]] void threadMain(ThreadFiber* f) {
  for (;;) {
    ThreadSet* set = f->set;
    tsanAcquire(&set->start);
    f->barriers.store(0, std::memory_order_relaxed);
    f->state.store(kRunning, std::memory_order_relaxed);
    int outcome = kDone;
    try {
      set->body(set->context, f->tid);
    } catch (const Trap& t) {
      fail(where(*tlsWorker) + ", thread " + std::to_string(f->tid) + ": " + t.what);
      outcome = kFailed;
    } catch (const Aborted&) {
      outcome = kFailed;
    } catch (...) {
      fail(where(*tlsWorker) + ", thread " + std::to_string(f->tid) + ": an exception escaped the rTask");
      outcome = kFailed;
    }
    f->state.store(outcome, std::memory_order_relaxed);
    passOn(f, &set->end);
  }
}

void threadEntry(bcd::transfer_t t) {
  auto* f = static_cast<ThreadFiber*>(t.data);  // every switch to a thread fiber passes the fiber
  resumed(f, t);
  threadMain(f);
}

// ThreadSanitizer holds at most 8128 threads and fibers at once, and a plan
// may fan out on more vEUs x CUDA threads than that (a GraphTurbo group on
// 30 vEUs of 256 threads). A worker keeps the thread sets of its vEUs within
// its share of kTsanFiberLimit (less the fibers never retired: the vEUs',
// and the workers' threads for ordinary launches; RAMMER_HOST_TSAN_FIBERS
// lowers it, for tests): to grow one set it retires the sets of the vEUs it
// fanned out on least recently (their TSan fibers destroyed, their stacks
// kept), and a retired stack is renewed before a new fiber starts on it.
// A retired set's vEU gets new fibers at its next fan-out: fresh TSan
// identities, ordered after nothing but their creator, so recycling hides no
// race (it costs about 0.5 ms per fiber).
constexpr int kTsanFiberLimit = 7000;
std::atomic<int> tsanFixedFibers{0};

int tsanFiberLimit() {
  static const int limit = [] {
    const char* e = std::getenv("RAMMER_HOST_TSAN_FIBERS");
    const int n = e ? std::atoi(e) : 0;
    return n > 0 ? std::min(n, kTsanFiberLimit) : kTsanFiberLimit;
  }();
  return limit;
}

void retireThreads(Worker& w, ThreadSet& set) {
  for (auto& f : set.fibers) {
    tsanDestroy(f->tsan);
    w.spareStacks.push_back(f->context.stack);
  }
  w.threadFibers -= static_cast<int>(set.fibers.size());
  set.fibers.clear();
}

// Makes room in worker `w`'s share for `grow` more fibers of `owner`'s set.
void makeRoom(Worker& w, const Block& owner, int grow) {
  const int share = (tsanFiberLimit() - tsanFixedFibers.load(std::memory_order_relaxed)) / rt().workerCount;
  while (w.threadFibers + grow > share) {
    Block* oldest = nullptr;
    for (auto& v : w.veus)
      if (v.get() != &owner && !v->threads.fibers.empty() && (!oldest || v->threads.lastUse < oldest->threads.lastUse))
        oldest = v.get();
    if (!oldest) break;
    retireThreads(w, oldest->threads);
  }
  if (w.threadFibers + grow > share)
    trap(("a ThreadSanitizer build gives every CUDA thread a fiber, and ThreadSanitizer holds at most 8128: this "
          "block's " +
          std::to_string(static_cast<int>(owner.threads.fibers.size()) + grow) + " threads pass a worker's share of " +
          std::to_string(share) + " (" + std::to_string(rt().workerCount) + " workers, " +
          std::to_string(tsanFixedFibers.load()) + " other fibers): run with fewer workers")
             .c_str());
  w.threadFibers += grow;
}

void ensureThreads(ThreadSet& set, int count, Worker& w, const Block* owner) {
  if (kTsan && owner) {
    TsanIgnore ignore;
    set.lastUse = ++w.fanouts;
    if (static_cast<int>(set.fibers.size()) < count) makeRoom(w, *owner, count - static_cast<int>(set.fibers.size()));
  } else if (kTsan && static_cast<int>(set.fibers.size()) < count) {
    tsanFixedFibers.fetch_add(count - static_cast<int>(set.fibers.size()), std::memory_order_relaxed);
  }
  while (static_cast<int>(set.fibers.size()) < count) {
    auto f = std::make_unique<ThreadFiber>();
    f->tid = static_cast<int>(set.fibers.size());
    f->set = &set;
    if (kTsan && !w.spareStacks.empty()) {
      {
        TsanIgnore ignore;
        f->context.stack = w.spareStacks.back();
        w.spareStacks.pop_back();
      }
      tsanRenewStack(f->context.stack);
      f->context.fctx = bcd::make_fcontext(f->context.stack.sp, f->context.stack.size, threadEntry);
    } else {
      makeContext(f->context, kThreadStack, threadEntry);
    }
    f->resumeAt.store(f->context.fctx, std::memory_order_relaxed);
    // Created after the record is written: TSan orders the creator's writes before the fiber.
    f->tsan = tsanCreate((owner ? "vEU " + std::to_string(owner->index.load()) : "worker " + std::to_string(w.id)) +
                         " thread " + std::to_string(f->tid));
    set.fibers.push_back(std::move(f));
  }
}

// --- vEUs ---

void toScheduler(Block* b) { b->scheduler = switchTo(b->scheduler, b->worker->tsan, nullptr).fctx; }

void runKernel(const LaunchState& l) { l.config.kernel(l.buffers, l.steps, l.epoch, l.timing, l.index); }

void prepareSmem(Block& b, size_t bytes) {
  const size_t words = (bytes + sizeof(float) - 1) / sizeof(float);
  if (b.smem.size() < words) b.smem.resize(words);
}

[[noreturn]] void veuMain(Block* b) {
  for (;;) {
    tsanAcquire(&rt().launchStart);  // the launch's arguments, and every earlier launch's work
    const LaunchState& l = rt().launch;
    prepareSmem(*b, l.config.sharedBytes);
    int outcome = kDone;
    try {
      if (!rt().aborting.load(std::memory_order_relaxed)) runKernel(l);
    } catch (const Aborted&) {
    } catch (const Trap& t) {
      fail(where(*b->worker) + ": " + t.what);
      outcome = kFailed;
    } catch (...) {
      fail(where(*b->worker) + ": an exception escaped the kernel");
      outcome = kFailed;
    }
    tsanRelease(&rt().launchEnd);
    b->state.store(outcome, std::memory_order_relaxed);
    toScheduler(b);
  }
}

void veuEntry(bcd::transfer_t t) {
  auto* b = static_cast<Block*>(t.data);
  b->scheduler = t.fctx;
  veuMain(b);
}

void ensureVeus(Worker& w, size_t count) {
  while (w.veus.size() < count) {
    auto b = std::make_unique<Block>();
    b->veu = true;
    b->worker = &w;
    b->index = static_cast<int>(w.id + w.veus.size() * static_cast<size_t>(rt().workerCount));
    makeContext(b->context, kLeaderStack, veuEntry);
    b->tsan = tsanCreate("vEU " + std::to_string(b->index.load()));
    if (kTsan) tsanFixedFibers.fetch_add(1, std::memory_order_relaxed);
    w.veus.push_back(std::move(b));
  }
}

bool ready(const Block& b) {
  const unsigned long long* s = b.waitStep.load(std::memory_order_relaxed);
  return std::atomic_ref<unsigned long long>(*const_cast<unsigned long long*>(s)).load(std::memory_order_acquire) >=
         b.waitWant.load(std::memory_order_relaxed);
}

// Under rt().mutex: the blocked vEUs as a message, a wait cycle first
// (following each vEU to the one it waits for), then the rest by index.
std::string describeDeadlock() {
  Runtime& r = rt();
  struct Wait {
    int veu, order;
    long long completed;  // of the awaited vEU, this run
  };
  std::map<int, Wait> blocked;
  std::map<int, int> state;
  const uint64_t tag = r.launch.epoch << 32;
  for (const auto& w : r.workers)
    for (size_t i = 0; i < w->active; ++i) {
      const Block& b = *w->veus[i];
      state[b.index.load()] = b.state.load(std::memory_order_relaxed);
      if (b.state.load(std::memory_order_relaxed) != kBlocked) continue;
      const unsigned long long* step = b.waitStep.load(std::memory_order_relaxed);
      const unsigned long long have =
          std::atomic_ref<unsigned long long>(*const_cast<unsigned long long*>(step)).load(std::memory_order_acquire);
      blocked[b.index.load()] = {b.waitVeu.load(), b.waitOrder.load(), have >= tag ? static_cast<long long>(have - tag) : 0};
    }
  auto line = [&](int v) {
    const Wait& w = blocked.at(v);
    if (w.veu < 0)
      return "\n  vEU " + std::to_string(v) + " waits for ready-queue entry " + std::to_string(w.order) +
             ", which no finishing rTask has filled (an operator's gate never opened)";
    std::string s = "\n  vEU " + std::to_string(v) + " waits for vEU " + std::to_string(w.veu) +
                    " to complete its instruction " + std::to_string(w.order) + " (it has completed " +
                    std::to_string(w.completed) + ")";
    if (state.count(w.veu) && state[w.veu] == kDone) s += ", but that vEU has finished";
    return s;
  };
  std::string s = "deadlock in program " + std::to_string(r.launch.config.program) +
                  ": every vEU left waits, at a barrier or on the ready queue, and no step can change.";
  std::vector<int> cycle;
  if (!blocked.empty()) {
    std::map<int, int> seen;
    int v = blocked.begin()->first;
    for (int k = 0; blocked.count(v) && !seen.count(v); ++k) {
      seen[v] = k;
      cycle.push_back(v);
      v = blocked.at(v).veu;
    }
    if (seen.count(v)) cycle.erase(cycle.begin(), cycle.begin() + seen[v]);  // the cycle itself
    else cycle.clear();
  }
  int listed = 0;
  if (!cycle.empty()) {
    s += " A wait cycle:";
    for (int v : cycle) s += line(v), ++listed;
    s += "\n  Also blocked:";
  }
  for (const auto& [v, w] : blocked) {
    if (std::find(cycle.begin(), cycle.end(), v) != cycle.end()) continue;
    if (listed++ >= 8) {
      s += "\n  ... and " + std::to_string(blocked.size() - 8) + " more blocked vEUs";
      break;
    }
    s += line(v);
  }
  return s;
}

// Worker `w` found nothing to run after reading progress `seen` (or has
// finished: kBusy - 1). Deadlock: every worker is finished or found nothing
// at the progress value that still holds, and someone is blocked.
bool stalled(int w, uint64_t seen) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.idleAt[static_cast<size_t>(w)] = seen;
  const uint64_t now = r.progress.load(std::memory_order_acquire);
  bool anyBlocked = false;
  for (uint64_t at : r.idleAt) {
    if (at == kBusy - 1) continue;
    if (at != now) return false;
    anyBlocked = true;
  }
  if (!anyBlocked || r.aborting.load(std::memory_order_relaxed)) return false;
  if (r.error.empty()) r.error = describeDeadlock();
  return true;
}

void busy(int w) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.idleAt[static_cast<size_t>(w)] = kBusy;
}

void runPersistent(Worker& w) {
  Runtime& r = rt();
  const unsigned grid = r.launch.config.grid;
  const size_t mine = w.id < static_cast<int>(grid) ? (grid - static_cast<unsigned>(w.id) - 1) / static_cast<unsigned>(r.workerCount) + 1 : 0;
  ensureVeus(w, mine);
  w.active = mine;
  for (size_t i = 0; i < mine; ++i) w.veus[i]->state.store(kReady, std::memory_order_relaxed);
  bool idle = false;
  for (;;) {
    const uint32_t seen = r.progress.load(std::memory_order_acquire);
    const bool aborting = r.aborting.load(std::memory_order_relaxed);
    bool ran = false;
    size_t live = 0;
    for (size_t i = 0; i < mine; ++i) {
      Block* b = w.veus[i].get();
      const int s = b->state.load(std::memory_order_relaxed);
      if (s == kDone || s == kFailed) continue;
      ++live;
      if (s == kBlocked && !aborting && !ready(*b)) continue;
      w.block.store(b, std::memory_order_relaxed);
      b->context.fctx = switchTo(b->context.fctx, b->tsan, b).fctx;
      w.block.store(nullptr, std::memory_order_relaxed);
      ran = true;
    }
    if (live == 0) break;
    if (ran) {
      if (idle) busy(w.id);
      idle = false;
      continue;
    }
    idle = true;
    if (stalled(w.id, seen)) {
      fail("");  // the message is already set
      continue;
    }
    r.sleepers.fetch_add(1, std::memory_order_seq_cst);
    if (r.progress.load(std::memory_order_seq_cst) == seen) futexWait(&r.progress, seen, 50);
    r.sleepers.fetch_sub(1, std::memory_order_relaxed);
  }
  // Finished: maybe the others are stuck waiting on nothing this worker will do.
  if (stalled(w.id, kBusy - 1)) fail("");
}

void runOrdinary(Worker& w) {
  Runtime& r = rt();
  Block& b = w.slot;
  b.worker = &w;
  prepareSmem(b, r.launch.config.sharedBytes);
  for (;;) {
    const unsigned i = r.nextBlock.fetch_add(1, std::memory_order_relaxed);
    if (i >= r.launch.config.grid || r.aborting.load(std::memory_order_relaxed)) break;
    b.index.store(static_cast<int>(i), std::memory_order_relaxed);
    w.block.store(&b, std::memory_order_relaxed);
    try {
      runKernel(r.launch);
    } catch (const Trap& t) {
      fail(where(w) + ": " + t.what);
    } catch (const Aborted&) {
    }
    w.block.store(nullptr, std::memory_order_relaxed);
  }
}

void onFault(int sig, siginfo_t* info, void*);

void installFaultHandler() {
  static thread_local std::vector<char> altStack(1 << 16);
  stack_t ss{};
  ss.ss_sp = altStack.data();
  ss.ss_size = altStack.size();
  sigaltstack(&ss, nullptr);
}

void workerMain(Worker* w) {
  tlsWorker = w;
  w->tsan = tsanCurrent();
  installFaultHandler();
  Runtime& r = rt();
  uint64_t seenJob = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(r.mutex);
      r.wake.wait(lock, [&] { return r.job != seenJob; });
      seenJob = r.job;
    }
    if (r.launch.config.persistent) runPersistent(*w);
    else runOrdinary(*w);
    {
      std::lock_guard<std::mutex> lock(r.mutex);
      ++r.done;
    }
    r.finished.notify_all();
  }
}

// A fault in the generated code: say where, then end the process (a child
// of rammer, which reports it).
void onFault(int sig, siginfo_t* info, void*) {
  char buf[512];
  const Worker* w = tlsWorker;
  const uintptr_t addr = reinterpret_cast<uintptr_t>(info->si_addr);
  const char* what = "";
  // The guard page is the lowest page of a fiber's stack; a big frame may jump past it.
  auto inGuard = [addr](const bc::stack_context& s) {
    const uintptr_t bottom = reinterpret_cast<uintptr_t>(s.sp) - s.size;
    return s.size && addr < bottom + 4096 && addr + 65536 >= bottom;
  };
  int block = -1, thread = -1;
  if (w) {
    const Block* b = w->block.load(std::memory_order_relaxed);
    const ThreadFiber* t = w->thread.load(std::memory_order_relaxed);
    if (b) block = b->index.load(std::memory_order_relaxed);
    if (t && w->mode.load(std::memory_order_relaxed) == kFibers) {
      thread = t->tid;
      if (inGuard(t->context.stack)) what = " (stack overflow of a CUDA thread fiber)";
    }
    if (b && b->veu && inGuard(b->context.stack)) what = " (stack overflow of a vEU fiber)";
  }
  const int n = std::snprintf(buf, sizeof buf,
                              "error: host program: %s at address %p%s in program %d, block %d, thread %d\n",
                              sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : "SIGFPE", info->si_addr, what,
                              rt().launch.config.program, block, thread);
  if (n > 0) (void)!write(2, buf, static_cast<size_t>(n));
  _exit(4);
}

void start() {
  Runtime& r = rt();
  if (!r.workers.empty()) return;
  if (r.workerCount <= 0) {
    int n = 0;
    if (const char* e = std::getenv("RAMMER_HOST_THREADS")) n = std::atoi(e);
    // Under ThreadSanitizer each worker needs a share of its fibers (ensureThreads): at most 4 unless asked.
    r.workerCount =
        n > 0 ? n : std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, kTsan ? 4 : INT_MAX);
  }
  struct sigaction sa {};
  sa.sa_sigaction = onFault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigaction(SIGSEGV, &sa, nullptr);
  sigaction(SIGBUS, &sa, nullptr);
  sigaction(SIGFPE, &sa, nullptr);
  r.idleAt.assign(static_cast<size_t>(r.workerCount), kBusy);
  for (int i = 0; i < r.workerCount; ++i) {
    auto w = std::make_unique<Worker>();
    w->id = i;
    std::thread(workerMain, w.get()).detach();
    r.workers.push_back(std::move(w));
  }
}

}  // namespace

// --- kernel side ---

Index3 threadIndex() {
  Worker& w = self();
  switch (w.mode.load(std::memory_order_relaxed)) {
    case kFibers: return {static_cast<unsigned>(w.thread.load(std::memory_order_relaxed)->tid), 0, 0};
    case kLoop: return {static_cast<unsigned>(w.block.load(std::memory_order_relaxed)->fanout.tid), 0, 0};
    default: return {0, 0, 0};  // the leader speaks for thread 0
  }
}

Index3 blockIndex() {
  const Block* b = self().block.load(std::memory_order_relaxed);
  return {b ? static_cast<unsigned>(b->index.load(std::memory_order_relaxed)) : 0u, 0, 0};
}

Index3 blockDimension() { return {rt().launch.config.block, 1, 1}; }
Index3 gridDimension() { return {rt().launch.config.grid, 1, 1}; }

float* dynamicShared() {
  Block* b = self().block.load(std::memory_order_relaxed);
  if (!b) trap("shared memory used outside a block");
  return b->smem.data();
}

void syncThreads() {
  Worker& w = self();
  switch (w.mode.load(std::memory_order_relaxed)) {
    case kLeader: return;  // the kernel text's own barriers: the block's threads are converged there
    case kLoop: {
      std::string m = std::string(w.block.load(std::memory_order_relaxed)->function) +
                      " calls __syncthreads() but declares syncCount 0";
      trap(m.c_str());
    }
    default: break;
  }
  ThreadFiber* f = w.thread.load(std::memory_order_relaxed);
  const int k = f->barriers.load(std::memory_order_relaxed);  // only this thread writes it
  f->barriers.store(k + 1, std::memory_order_relaxed);
  f->state.store(kAtBarrier, std::memory_order_relaxed);
  tsanRelease(&f->set->phase[k % 2]);
  passOn(f);
  tsanAcquire(&f->set->phase[k % 2]);
  f->state.store(kRunning, std::memory_order_relaxed);
}

void blockOn(const unsigned long long* step, unsigned long long want, int veu, int order) {
  Worker& w = self();
  Block* b = w.block.load(std::memory_order_relaxed);
  if (!b || !b->veu) trap("a barrier in a launch whose blocks are not co-resident");
  if (w.mode.load(std::memory_order_relaxed) != kLeader) trap("a barrier inside an rTask");
  b->waitStep.store(step, std::memory_order_relaxed);
  b->waitWant.store(want, std::memory_order_relaxed);
  b->waitVeu.store(veu, std::memory_order_relaxed);
  b->waitOrder.store(order, std::memory_order_relaxed);
  b->state.store(kBlocked, std::memory_order_relaxed);
  toScheduler(b);
  b->state.store(kRunning, std::memory_order_relaxed);
  if (rt().aborting.load(std::memory_order_relaxed)) throw Aborted{};
}

void published() {
  Runtime& r = rt();
  // Release only: a vEU never acquires from another vEU through this counter.
  r.progress.fetch_add(1, std::memory_order_release);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (r.sleepers.load(std::memory_order_relaxed) > 0) futexWakeAll(&r.progress);
}

Fanout* fanoutBegin(const char* function, int syncs) {
  Worker& w = self();
  Block* b = w.block.load(std::memory_order_relaxed);
  if (!b) trap("an rTask outside a block");
  if (w.mode.load(std::memory_order_relaxed) != kLeader) trap("an rTask started inside another rTask");
  b->function = function;
  b->syncs = syncs;
  b->fanout.threads = static_cast<int>(rt().launch.config.block);
  b->fanout.tid = 0;
  w.mode.store(syncs == 0 ? kLoop : kFibers, std::memory_order_relaxed);
  return &b->fanout;
}

void fanoutEnd(Fanout* f) {
  Worker& w = self();
  f->tid = 0;
  w.mode.store(kLeader, std::memory_order_relaxed);
  w.thread.store(nullptr, std::memory_order_relaxed);
}

void fanoutFibers(Fanout* fanout, void (*body)(void*, int), void* context) {
  Worker& w = self();
  Block* b = w.block.load(std::memory_order_relaxed);
  ThreadSet& set = kTsan && b->veu ? b->threads : w.threads;
  if (set.poisoned) trap("the CUDA threads of this block were left inside an rTask by an earlier failure");
  const int n = fanout->threads;
  ensureThreads(set, n, w, kTsan && b->veu ? b : nullptr);
  set.body = body;
  set.context = context;
  set.leaderTsan.store(tsanCurrent(), std::memory_order_relaxed);
  set.count.store(n, std::memory_order_relaxed);
  tsanRelease(&set.start);
  for (int phase = 0;; ++phase) {
    // One round of the chain: thread 0 on, the last thread back here.
    set.from.store(-1, std::memory_order_relaxed);
    ThreadFiber* first = set.fibers[0].get();  // it names itself the current thread (resumed)
    const bcd::transfer_t back = switchTo(first->resumeAt.load(std::memory_order_relaxed), first->tsan, first);
    set.fibers[static_cast<size_t>(set.from.load(std::memory_order_relaxed))]->resumeAt.store(
        back.fctx, std::memory_order_relaxed);
    int atBarrier = 0, done = 0, failed = 0, firstDone = -1, firstWaiting = -1;
    for (int t = 0; t < n; ++t) {
      ThreadFiber* f = set.fibers[static_cast<size_t>(t)].get();
      switch (f->state.load(std::memory_order_relaxed)) {
        case kAtBarrier:
          if (firstWaiting < 0) firstWaiting = t;
          ++atBarrier;
          break;
        case kFailed: ++failed; break;
        default:
          if (firstDone < 0) firstDone = t;
          ++done;
      }
    }
    w.thread.store(nullptr, std::memory_order_relaxed);
    if (atBarrier == n) continue;
    if (done + failed == n) break;
    // Some threads returned while others wait at a __syncthreads: on a GPU
    // that hangs or corrupts shared memory; here it ends the launch.
    set.poisoned = true;
    if (failed) throw Aborted{};
    std::string m = std::string(b->function) + ": threads diverge at __syncthreads (thread " +
                    std::to_string(firstWaiting) + " waits at barrier " + std::to_string(phase + 1) + ", thread " +
                    std::to_string(firstDone) + " has returned); surplus threads must reach every barrier";
    trap(m.c_str());
  }
  tsanAcquire(&set.end);
  for (int t = 0; t < n; ++t) {
    ThreadFiber* f = set.fibers[static_cast<size_t>(t)].get();
    if (f->state.load(std::memory_order_relaxed) == kFailed) throw Aborted{};
    const int reached = f->barriers.load(std::memory_order_relaxed);
    if (reached != b->syncs) {
      std::string m = std::string(b->function) + " declares syncCount " + std::to_string(b->syncs) + " but thread " +
                      std::to_string(t) + " reached " + std::to_string(reached) + " __syncthreads()";
      trap(m.c_str());
    }
  }
}

void trap(const char* what) { throw Trap{what}; }

unsigned long long clockNs() {
  return static_cast<unsigned long long>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

unsigned long long workerId() { return tlsWorker ? static_cast<unsigned long long>(tlsWorker->id) : 0; }

// --- harness side ---

namespace {

// Runs one launch to its end on the workers.
int runLaunch(const LaunchState& state) {
  Runtime& r = rt();
  if (r.failed) {
    r.lastError = "an earlier launch failed (" + r.error + "); the host device takes no more work";
    return 1;
  }
  start();
  r.launch = state;
  r.nextBlock.store(0, std::memory_order_relaxed);
  r.aborting.store(false, std::memory_order_relaxed);
  {
    std::unique_lock<std::mutex> lock(r.mutex);
    r.error.clear();
    r.idleAt.assign(static_cast<size_t>(r.workerCount), kBusy);
    r.done = 0;
    tsanRelease(&r.launchStart);
    ++r.job;
    r.wake.notify_all();
    r.finished.wait(lock, [&] { return r.done == r.workerCount; });
  }
  tsanAcquire(&r.launchEnd);
  if (!r.error.empty()) {
    r.failed = true;
    r.lastError = r.error;
    return 1;
  }
  return 0;
}

int refuse(const char* why) {
  rt().lastError = why;
  return 1;
}

}  // namespace

int launch(const LaunchConfig& config, void** args) {
  Runtime& r = rt();
  if (!config.kernel || config.grid == 0 || config.block == 0)
    return refuse("invalid launch (no kernel, or an empty grid or block)");
  LaunchState l;
  l.config = config;
  l.buffers = *static_cast<float* const**>(args[0]);
  l.steps = *static_cast<unsigned long long**>(args[1]);
  l.epoch = *static_cast<unsigned long long*>(args[2]);
  l.timing = *static_cast<unsigned long long**>(args[3]);
  l.index = *static_cast<int*>(args[4]);
  if (r.capture) {
    r.capture->steps.push_back(GraphStep{false, l, nullptr, 0, 0});
    return 0;
  }
  return runLaunch(l);
}

int memsetAsync(void* p, int value, size_t bytes) {
  Runtime& r = rt();
  if (r.capture)
    r.capture->steps.push_back(GraphStep{true, {}, p, value, bytes});
  else
    std::memset(p, value, bytes);
  return 0;
}

int beginCapture() {
  if (rt().capture) return refuse("a capture is already open");
  rt().capture = std::make_unique<Graph>();
  return 0;
}

int endCapture(Graph** graph) {
  if (!rt().capture) return refuse("no capture is open");
  *graph = rt().capture.release();
  return 0;
}

Graph* instantiate(const Graph* graph) { return new Graph(*graph); }

int replay(const Graph* graph) {
  if (rt().capture) return refuse("a graph replayed while a capture is open");
  for (const GraphStep& step : graph->steps) {
    if (step.isMemset)
      std::memset(step.at, step.value, step.bytes);
    else if (runLaunch(step.launch) != 0)
      return 1;
  }
  return 0;
}

void destroyGraph(Graph* graph) { delete graph; }

const char* lastError() { return rt().lastError.c_str(); }

void setWorkers(int n) {
  if (rt().workers.empty()) rt().workerCount = n;
}

int workers() {
  start();
  return rt().workerCount;
}

}  // namespace rammer_host
