#pragma once
// What the compiler knows about a GPU: the limits that decide how many vEUs
// fit on an SM, and the rates the cost model turns work into time with.
// Presets (H100, H200, A100, V100, MI50, MI250X) live as JSON in
// resources/devices and are compiled in; users can load their own file.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/ir/diagnostic.h"

namespace rammer::device {

struct DeviceSpec {
  std::string id;      // "h100"
  std::string name;    // "NVIDIA H100 SXM5 80GB"
  std::string vendor;  // "nvidia" or "amd"
  std::string arch;    // "sm_90", "gfx90a"
  int computeMajor = 0;
  int computeMinor = 0;

  int sms = 0;  // SMs (CUs on AMD)
  int warpSize = 32;
  int subPartitions = 4;  // register files per SM
  int maxThreadsPerBlock = 1024;
  int maxThreadsPerSM = 2048;
  int maxBlocksPerSM = 32;
  int regsPerSM = 65536;
  int regsPerBlock = 65536;
  int maxRegsPerThread = 255;
  int regAllocUnit = 256;  // registers are allocated per warp in these units
  int64_t sharedPerSM = 0;
  int64_t sharedPerBlock = 49152;       // without opt-in
  int64_t sharedPerBlockOptin = 49152;  // with cudaFuncAttributeMaxDynamicSharedMemorySize
  int64_t sharedReservedPerBlock = 0;   // taken by the driver per block (sm_80+)
  int sharedAllocUnit = 256;
  std::vector<int> sharedCarveoutsKB;  // selectable shared-memory sizes per SM

  double clockGHz = 1.0;
  double memoryBandwidthGBs = 1000;
  double peakFp32Tflops = 10;
  int64_t l2Bytes = 0;
  double launchOverheadUs = 3;   // host launch + drain, per kernel
  double barrierLatencyUs = 0.7; // one global-memory release/acquire round trip

  int maxWarpsPerSM() const { return maxThreadsPerSM / warpSize; }
};

// Preset ids, in display order.
std::vector<std::string> presetIds();
// A preset by id (case-insensitive); an error listing the presets otherwise.
ir::Result<DeviceSpec> presetDevice(const std::string& id);
// A preset id, or a path to a JSON file in the presets' format.
ir::Result<DeviceSpec> loadDevice(const std::string& idOrPath);
ir::Result<DeviceSpec> parseDeviceJson(const std::string& text, const std::string& source);
std::string deviceToJson(const DeviceSpec& spec);

}  // namespace rammer::device
