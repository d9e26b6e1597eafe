// The CUDA/HIP barrier-rTask wait (core/codegen/device_prelude.cpp,
// rammer_wait), its own text compiled for the host with the GPU built-ins
// stood in for: for wait lists of many shapes (1-600 awaited vEUs, blocks
// of 32-256 threads), thread t polls exactly the counters of pairs t,
// t + blockDim.x, ... of the list, in that order, each once when it is
// ready: every awaited counter is polled, none twice, and a thread finds
// its counter without walking the list (a barrier of up to blockDim.x
// counters is one round trip; PERFORMANCE.md, "Hand-offs, and copies that
// need not copy"). A counter one step short holds the thread that owns it.
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
#include <random>
#include <vector>
#define __device__
#define __forceinline__ inline
struct Dim { int x; } blockDim;
const unsigned long long* base = nullptr;
std::vector<long> polled;  // the counters this thread read, in order
struct Short {};
unsigned long long rammer_load_acquire(const unsigned long long* p) {
  polled.push_back(p - base);
  return *p;
}
void rammer_pause() { throw Short{}; }  // a counter was short: the wait would spin
unsigned rammer_threads() { return blockDim.x; }
unsigned long long rammer_opaque(unsigned long long v) { return v; }
void __threadfence() {}
void __syncthreads() {}
WAIT_TEXT
int main() {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 3000; ++trial) {
    const int threads = 32 << (trial % 4);
    const int wanted = 1 + static_cast<int>(rng() % (trial % 3 == 0 ? 600 : 40));
    std::vector<int> waits;  // pairs {vEU, order}, increasing vEUs with gaps
    int veu = 0;
    for (int j = 0; j < wanted; ++j) {
      veu += 1 + static_cast<int>(rng() % 3);
      waits.insert(waits.end(), {veu, static_cast<int>(rng() % 9)});
    }
    const unsigned long long tag = 5ULL << 32;
    std::vector<unsigned long long> steps(static_cast<size_t>(veu + 1), 0);
    for (int j = 0; j < wanted; ++j)
      steps[static_cast<size_t>(waits[2 * j])] = tag | static_cast<unsigned long long>(waits[2 * j + 1] + 1);
    base = steps.data();
    blockDim.x = threads;
    // Every counter shows exactly its order: no thread waits, and thread t
    // reads the counters of pairs t, t + threads, ..., once each.
    std::vector<int> seen(static_cast<size_t>(veu + 1), 0);
    for (int t = 0; t < threads; ++t) {
      polled.clear();
      try {
        rammer_wait(steps.data(), 5, waits.data(), wanted, t);
      } catch (Short) {
        std::printf("FAIL: trial %d: thread %d found a counter short\n", trial, t);
        return 1;
      }
      std::vector<long> want;
      for (int j = t; j < wanted; j += threads) want.push_back(waits[2 * j]);
      if (polled != want) {
        std::printf("FAIL: trial %d: thread %d of %d polled %zu counters, not the %zu of its pairs\n", trial, t,
                    threads, polled.size(), want.size());
        return 1;
      }
      for (long v : polled) ++seen[static_cast<size_t>(v)];
    }
    for (int j = 0; j < wanted; ++j)
      if (seen[static_cast<size_t>(waits[2 * j])] != 1) {
        std::printf("FAIL: trial %d: vEU %d polled %d times\n", trial, waits[2 * j], seen[static_cast<size_t>(waits[2 * j])]);
        return 1;
      }
    // One awaited counter one step short: the thread that reads it waits,
    // so the wait asks for each pair's own order, not a lower one.
    const int j = static_cast<int>(rng() % static_cast<unsigned>(wanted));
    steps[static_cast<size_t>(waits[2 * j])] -= 1;
    try {
      polled.clear();
      rammer_wait(steps.data(), 5, waits.data(), wanted, j % threads);
      std::printf("FAIL: trial %d: vEU %d one step short did not hold thread %d\n", trial, waits[2 * j], j % threads);
      return 1;
    } catch (Short) {
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

TEST(GpuWait, EachThreadPollsTheCountersOfItsOwnPairsOnceAndNoOther) {
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
