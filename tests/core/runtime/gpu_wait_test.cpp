// The CUDA/HIP barrier-rTask wait (core/codegen/device_prelude.cpp,
// rammer_wait), its own text compiled for the host with the GPU built-ins
// stood in for: for barriers of many shapes (runs of 1-40 vEUs, 1-80 runs,
// blocks of 32-256 threads), the block's threads together poll exactly the
// awaited step counters, each once, for the order of its run, and each
// thread at most ceil(counters / threads) times, which is what makes a
// barrier of many runs one round trip (PERFORMANCE.md, "Fourth GPU lease").
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/codegen/device_prelude.h"
#include "core/runtime/host_compiler.h"
#include "core/runtime/subprocess.h"

namespace rammer::runtime {
namespace {

namespace fs = std::filesystem;

// The checker around the wait: every thread of a block runs it in turn on
// counters that show exactly their orders, then with one counter a step
// short (the wait must stop there: rammer_pause throws).
constexpr const char* kChecker = R"(
#include <cstdio>
#include <map>
#include <random>
#include <vector>
#define __device__
#define __forceinline__ inline
struct Dim { int x; } blockDim;
const unsigned long long* base = nullptr;
std::map<long, int> polls;  // counter -> times read
int threadPolls = 0;
struct Short {};
unsigned long long rammer_load_acquire(const unsigned long long* p) {
  ++polls[p - base];
  ++threadPolls;
  return *p;
}
void rammer_pause() { throw Short{}; }  // a counter was short: the wait would spin
void __threadfence() {}
void __syncthreads() {}
WAIT_TEXT
int main() {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 3000; ++trial) {
    const int threads = 32 << (trial % 4);
    const int runs = 1 + static_cast<int>(rng() % (trial % 3 == 0 ? 80 : 8));
    std::vector<int> waits;
    int veus = 0;
    for (int r = 0; r < runs; ++r) {
      const int first = veus + static_cast<int>(rng() % 3);  // vEUs between runs are not awaited
      const int n = 1 + static_cast<int>(rng() % (trial % 5 == 0 ? 40 : 6));
      waits.insert(waits.end(), {first, n, static_cast<int>(rng() % 9)});
      veus = first + n;
    }
    const unsigned long long tag = 5ULL << 32;
    std::vector<unsigned long long> steps(static_cast<size_t>(veus), 0);
    std::vector<long> awaited;
    for (int r = 0; r < runs; ++r)
      for (int j = 0; j < waits[3 * r + 1]; ++j) {
        awaited.push_back(waits[3 * r] + j);
        steps[static_cast<size_t>(waits[3 * r] + j)] = tag | static_cast<unsigned long long>(waits[3 * r + 2] + 1);
      }
    const int counters = static_cast<int>(awaited.size());
    base = steps.data();
    blockDim.x = threads;
    // Every counter shows exactly its order: no thread waits, each counter is read once.
    polls.clear();
    for (int t = 0; t < threads; ++t) {
      threadPolls = 0;
      try {
        rammer_wait(steps.data(), tag, waits.data(), runs, t);
      } catch (Short) {
        std::printf("FAIL: trial %d: thread %d found a counter short\n", trial, t);
        return 1;
      }
      if (threadPolls > (counters + threads - 1) / threads) {
        std::printf("FAIL: trial %d: thread %d read %d counters of %d over %d threads\n", trial, t, threadPolls,
                    counters, threads);
        return 1;
      }
    }
    std::map<long, int> want;
    for (long v : awaited) want[v] = 1;
    if (polls != want) {
      std::printf("FAIL: trial %d: the counters read are not the awaited ones, once each\n", trial);
      return 1;
    }
    // One awaited counter one step short: the thread that reads it waits,
    // so the wait asks for each run's own order, not a lower one.
    const long v = awaited[rng() % awaited.size()];
    steps[static_cast<size_t>(v)] -= 1;
    bool waited = false;
    for (int t = 0; t < threads && !waited; ++t) {
      try {
        rammer_wait(steps.data(), tag, waits.data(), runs, t);
      } catch (Short) {
        waited = true;
      }
    }
    if (!waited) {
      std::printf("FAIL: trial %d: vEU %ld one step short did not hold the barrier\n", trial, v);
      return 1;
    }
  }
  std::puts("ok");
  return 0;
}
)";

// rammer_wait's definition, cut out of the CUDA prelude.
std::string waitText() {
  const std::string prelude = codegen::devicePrelude(codegen::Target::Cuda);
  const size_t begin = prelude.find("__device__ __forceinline__ void rammer_wait(");
  const size_t end = prelude.find("\n}\n", begin);
  if (begin == std::string::npos || end == std::string::npos) return {};
  return prelude.substr(begin, end + 3 - begin);
}

TEST(GpuWait, TheBlockPollsEveryAwaitedCounterOnceAndEachThreadAtMostItsShare) {
  auto compiler = findHostCompiler();
  if (!compiler.ok()) GTEST_SKIP() << compiler.errorText();
  const std::string wait = waitText();
  ASSERT_FALSE(wait.empty()) << "no rammer_wait in the CUDA prelude";
  std::string source = kChecker;
  source.replace(source.find("WAIT_TEXT"), 9, wait);
  const fs::path dir = fs::temp_directory_path() / ("rammer_gpu_wait_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "wait.cpp") << source;
  const std::string cxx = compiler->substr(0, compiler->find(' '));
  auto build = runSubprocess({cxx, "-std=c++17", "-O1", "-o", (dir / "wait").string(), (dir / "wait.cpp").string()});
  ASSERT_TRUE(build.ok()) << build.describe() << "\n" << build.output;
  auto run = runSubprocess({(dir / "wait").string()});
  EXPECT_TRUE(run.ok()) << run.describe() << "\n" << run.output;
  EXPECT_EQ(run.output, "ok\n");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rammer::runtime
