#pragma once
// What the compiler knows about a GPU: the limits that decide how many vEUs
// fit on an SM, and the rates the cost model turns work into time with.
// Presets (H100, H200, A100, V100, MI50, MI250X) live as JSON in
// resources/devices and are compiled in; users can load their own file.
#include <cstdint>
#include <filesystem>
#include <map>
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
  double memoryBandwidthGBs = 1000;  // DRAM (HBM)
  // L2 bandwidth (GB/s, all slices together; 0 = unknown). Data a consumer
  // finds still in L2 moves at this rate, not the DRAM's: the fact a
  // memory-tier cost model needs to price fused or co-scheduled producer ->
  // consumer traffic (GraphTurbo's argument). Not used for latency yet.
  // Preset values are approximate, and mix measured and peak figures (on
  // V100 they differ by ~1.45x: 2150 measured, 2048 B/clk x 1.53 GHz peak);
  // per GCD on MI250X:
  //   V100 2150: measured L2 load throughput, Jia et al. 2018,
  //     "Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking".
  //   A100 5000: NVIDIA's A100 whitepaper gives 2.3x V100's L2 read bandwidth.
  //   H100/H200 7000: third-party microbenchmarks (e.g. chips and cheese,
  //     2023, H100 PCIe) scaled to the SXM's 132 SMs and clock; the ~12 TB/s
  //     quoted online is no vendor figure. H200 has the same die and L2.
  //   MI250X 6900: 32 L2 channels x 128 B/clk x 1.7 GHz (CDNA 2 whitepaper,
  //     ROCm docs), a peak.
  //   MI50 1750: 16 channels x 64 B/clk x 1.725 GHz (Vega 20), a peak.
  double l2BandwidthGBs = 0;
  double peakFp32Tflops = 10;
  int64_t l2Bytes = 0;
  double launchOverheadUs = 3;    // host launch + drain, per kernel
  double barrierLatencyUs = 0.7;  // one global-memory release/acquire round trip
  // A dynamic program's cost from one rTask's end to a vEU's next rTask when
  // one is ready (schedule/dynamic_program.h): the finished rTask's gate
  // arrivals and the claim of the next are global atomics that every vEU of
  // the program contends for, around two fences and two block barriers. On
  // an H100 it measured 3.3 us (median of 57,841 gaps between two rTasks of
  // one operator on one vEU, 2026-11-27b lease: 5.5 barrier round trips);
  // the other presets take 5.5 x their round trip until measured.
  double dispatchLatencyUs = 3.3;

  // What fraction of the roofline an rKernel family reaches on this GPU
  // ("kernel_efficiency" in the JSON): an rTask takes its roofline time
  // over this. Fitted from a lease's RammerBase traces
  // (tests/bench/gpu/fit_efficiency.py) or estimated where nothing of the
  // family's code has run on the GPU; `kernelEfficiencySource` says which.
  // A family not listed runs at the roofline (1).
  std::map<std::string, double> kernelEfficiency;
  std::string kernelEfficiencySource;

  int maxWarpsPerSM() const { return maxThreadsPerSM / warpSize; }
  double efficiencyOf(const std::string& family) const {
    const auto it = kernelEfficiency.find(family);
    return it == kernelEfficiency.end() ? 1.0 : it->second;
  }
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
