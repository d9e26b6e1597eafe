#pragma once
// The profile database: measured per-rTask times of rKernels on one device,
// filled by `rammer profile` (profiler/) and read by the profiled cost model
// (profiled_cost_model.h), which prefers a measurement to the analytic model.
//
// An entry is keyed by the rKernel's key (profileKey: its name, tiling and
// shape parameters, rTask count, thread shape and work) and by the vEUs per
// SM of the program it ran in, since an rTask shares its SM with that many
// others. One file holds one device (DeviceSpec id); its JSON is
//   {"format": "rammer-profile-db", "version": 1, "device": "h100",
//    "gpu": "NVIDIA H100 80GB HBM3",
//    "entries": [{"key": ..., "kernel": "gemm_64x64", "op_type": "Gemm",
//                 "veus_per_sm": 2, "rtasks": 64, "runs": 1,
//                 "task_us": {"samples": 64, "median": 3.1, "mean": 3.2, "min": 2.9, "max": 4.0},
//                 "kernel_us": {...}}]}      (kernel_us only when measured)
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/ir/diagnostic.h"
#include "core/kernels/rkernel.h"

namespace rammer::sim {

// A summary of measured durations in microseconds; samples == 0: none.
struct TimeStats {
  int64_t samples = 0;
  double medianUs = 0;
  double meanUs = 0;
  double minUs = 0;
  double maxUs = 0;
};

// Median (mean of the middle two for an even count), mean, min and max.
TimeStats summarizeTimes(std::vector<double> us);
// Two summaries as one: counts add, mean and extremes are exact; the median
// is the sample-weighted mean of the two medians (the samples themselves
// are not kept, and their medians are what the cost model reads).
TimeStats mergeTimes(const TimeStats& a, const TimeStats& b);

struct ProfileEntry {
  std::string key;      // profileKey(kernel)
  std::string kernelName;  // RKernel::name, for people reading the file
  std::string opType;   // an operator type it served ("Conv")
  int veusPerSM = 0;
  int64_t numRTasks = 0;
  int runs = 1;         // profile runs merged into this entry
  TimeStats taskTime;    // one rTask on one vEU
  TimeStats kernelTime;  // the whole operator, when it ran alone in a launch; else samples == 0
};

class ProfileDB {
 public:
  static constexpr const char* kFormat = "rammer-profile-db";
  static constexpr int kVersion = 1;

  ProfileDB() = default;
  explicit ProfileDB(std::string device, std::string gpu = {}) : device_(std::move(device)), gpu_(std::move(gpu)) {}

  const std::string& device() const { return device_; }  // DeviceSpec id
  const std::string& gpu() const { return gpu_; }        // the GPU measured on
  void setGpu(std::string gpu) { gpu_ = std::move(gpu); }

  // Adds an entry, or merges it into the one with the same key and vEUs per SM.
  void add(const ProfileEntry& entry);
  // The entry measured at exactly this occupancy, or nullptr.
  const ProfileEntry* find(const std::string& key, int veusPerSM) const;
  // The entry for `kernel` at `veusPerSM`, else the one measured at the
  // nearest occupancy (the lower on a tie), else nullptr.
  const ProfileEntry* lookup(const kernels::RKernel& kernel, int veusPerSM) const;

  // Sorted by key, then vEUs per SM.
  std::vector<ProfileEntry> entries() const;
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

 private:
  std::string device_;
  std::string gpu_;
  std::map<std::pair<std::string, int>, ProfileEntry> entries_;
};

// What identifies an rKernel's rTask across models and runs:
// "gemm_64x64{K=512,M=128,...} tasks=8 block=16x16x1 smem=8192 flops=3.4e+07 bytes=1.2e+06".
std::string profileKey(const kernels::RKernel& kernel);

// Adds every entry of `from` to `into`. An error (and no change) when the
// two hold different devices.
std::vector<ir::Diagnostic> mergeProfileDB(ProfileDB& into, const ProfileDB& from);

// `source` names the text in messages (a file name). Errors say what is
// wrong and where: JSON syntax (with line and column), a missing or
// mistyped field (with the entry's index and key), an unknown format or
// a newer version, a duplicate entry, a negative or non-finite time.
ir::Result<ProfileDB> parseProfileDB(const std::string& text, const std::string& source);
std::string profileDBToJson(const ProfileDB& db);

ir::Result<ProfileDB> loadProfileDB(const std::filesystem::path& file);
// Writes through a temporary file in the same folder, renamed over `file`,
// so a crash never leaves half a database.
std::vector<ir::Diagnostic> saveProfileDB(const ProfileDB& db, const std::filesystem::path& file);

}  // namespace rammer::sim
