// What the host runtime's ThreadSanitizer fiber recycling rests on
// (core/codegen/host/rammer_host_runtime.cpp, ensureThreads), checked
// against the TSan runtime this machine has; run_tsan_fiber_check.sh builds
// it with -fsanitize=thread and runs each mode:
//   reuse   a fiber writes a stack-sized region, is destroyed, and a new
//           fiber writes it: TSan reports a race (the old accesses stay)
//   renew   the same with the region mapped anew in 32 KiB pieces before
//           the new fiber is created: no report
//   annotate the same with AnnotateNewMemory instead: a report (it does not
//           clear the region in GCC 12's runtime)
//   maps    12,800 recycles (64 stacks x 200) with renewal: the process's
//           memory mappings before and after (bounded, not growing)
//   memory  resident memory per live TSan fiber
#include <sanitizer/tsan_interface.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

extern "C" void AnnotateNewMemory(const char* file, int line, const volatile void* mem, long size);

namespace {

constexpr size_t kStack = 128 << 10, kPiece = 32 << 10;

int mappings() {
  std::ifstream f("/proc/self/maps");
  std::string line;
  int n = 0;
  while (std::getline(f, line)) ++n;
  return n;
}

long residentKb() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  return 0;
}

__attribute__((noinline)) void touch(char* p, size_t n) {
  for (size_t i = 0; i < n; i += 64) p[i] = static_cast<char>(p[i] + 1);
}

char* newRegion() {
  void* p = mmap(nullptr, kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) std::abort();
  return static_cast<char*>(p);
}

void renew(char* p) {
  for (size_t o = 0; o < kStack; o += kPiece)
    if (mmap(p + o, kPiece, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
      std::abort();
}

// A fresh fiber touches `p` and is destroyed.
void useOnce(char* p) {
  void* self = __tsan_get_current_fiber();
  void* f = __tsan_create_fiber(0);
  __tsan_switch_to_fiber(f, __tsan_switch_to_fiber_no_sync);
  touch(p, kStack);
  __tsan_switch_to_fiber(self, __tsan_switch_to_fiber_no_sync);
  __tsan_destroy_fiber(f);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "reuse" || mode == "renew" || mode == "annotate") {
    char* p = newRegion();
    useOnce(p);
    if (mode == "renew") renew(p);
    if (mode == "annotate") AnnotateNewMemory(__FILE__, __LINE__, p, static_cast<long>(kStack));
    useOnce(p);
    std::printf("%s: done\n", mode.c_str());
  } else if (mode == "maps") {
    std::vector<char*> stacks(64);
    for (char*& s : stacks) s = newRegion();
    const int before = mappings();
    for (int round = 0; round < 200; ++round)
      for (char* s : stacks) {
        renew(s);
        useOnce(s);
      }
    std::printf("maps: %d mappings before 12800 recycles, %d after\n", before, mappings());
  } else if (mode == "memory") {
    const long before = residentKb();
    std::vector<void*> fibers;
    void* self = __tsan_get_current_fiber();
    for (int i = 0; i < 1000; ++i) {
      fibers.push_back(__tsan_create_fiber(0));
      __tsan_switch_to_fiber(fibers.back(), __tsan_switch_to_fiber_no_sync);
      __tsan_switch_to_fiber(self, __tsan_switch_to_fiber_no_sync);
    }
    std::printf("memory: 1000 live TSan fibers, %ld KB resident more (%.0f KB each)\n", residentKb() - before,
                (residentKb() - before) / 1000.0);
  } else {
    std::fprintf(stderr, "usage: %s reuse|renew|annotate|maps|memory\n", argv[0]);
    return 2;
  }
  return 0;
}
