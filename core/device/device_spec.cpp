#include "core/device/device_spec.h"

#include <algorithm>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <type_traits>

#include "core/device/device_presets.h"

namespace rammer::device {

namespace {

using nlohmann::json;

// Field name in JSON, member pointer; one table keeps read and write in step.
template <class T>
struct Field {
  const char* key;
  T DeviceSpec::*member;
  bool required;
};

const Field<int> kIntFields[] = {
    {"compute_major", &DeviceSpec::computeMajor, false},
    {"compute_minor", &DeviceSpec::computeMinor, false},
    {"sms", &DeviceSpec::sms, true},
    {"warp_size", &DeviceSpec::warpSize, true},
    {"sub_partitions", &DeviceSpec::subPartitions, false},
    {"max_threads_per_block", &DeviceSpec::maxThreadsPerBlock, true},
    {"max_threads_per_sm", &DeviceSpec::maxThreadsPerSM, true},
    {"max_blocks_per_sm", &DeviceSpec::maxBlocksPerSM, true},
    {"regs_per_sm", &DeviceSpec::regsPerSM, true},
    {"regs_per_block", &DeviceSpec::regsPerBlock, false},
    {"max_regs_per_thread", &DeviceSpec::maxRegsPerThread, false},
    {"reg_alloc_unit", &DeviceSpec::regAllocUnit, false},
    {"shared_alloc_unit", &DeviceSpec::sharedAllocUnit, false},
};
const Field<int64_t> kInt64Fields[] = {
    {"shared_per_sm", &DeviceSpec::sharedPerSM, true},
    {"shared_per_block", &DeviceSpec::sharedPerBlock, true},
    {"shared_per_block_optin", &DeviceSpec::sharedPerBlockOptin, false},
    {"shared_reserved_per_block", &DeviceSpec::sharedReservedPerBlock, false},
    {"l2_bytes", &DeviceSpec::l2Bytes, false},
};
const Field<double> kDoubleFields[] = {
    {"clock_ghz", &DeviceSpec::clockGHz, true},
    {"memory_bandwidth_gbs", &DeviceSpec::memoryBandwidthGBs, true},
    {"l2_bandwidth_gbs", &DeviceSpec::l2BandwidthGBs, false},
    {"peak_fp32_tflops", &DeviceSpec::peakFp32Tflops, true},
    {"launch_overhead_us", &DeviceSpec::launchOverheadUs, false},
    {"barrier_latency_us", &DeviceSpec::barrierLatencyUs, false},
    {"dispatch_latency_us", &DeviceSpec::dispatchLatencyUs, false},
};
const Field<std::string> kStringFields[] = {
    {"id", &DeviceSpec::id, true},
    {"name", &DeviceSpec::name, true},
    {"vendor", &DeviceSpec::vendor, true},
    {"arch", &DeviceSpec::arch, true},
};

// An integer field: a JSON integer that fits T. (Converting 1.1e16 or
// 5e9 to int is undefined behaviour; the device fuzz target found it.)
template <class T>
T integerField(const json& v, const std::string& key) {
  const auto refuse = [&] {
    return std::runtime_error("'" + key + "' must be an integer from " + std::to_string(std::numeric_limits<T>::min()) +
                              " to " + std::to_string(std::numeric_limits<T>::max()) + ", not " + v.dump());
  };
  if (!v.is_number_integer()) throw refuse();
  if (v.is_number_unsigned()) {
    const auto u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<T>::max())) throw refuse();
    return static_cast<T>(u);
  }
  const auto s = v.get<int64_t>();
  if (s < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
      s > static_cast<int64_t>(std::numeric_limits<T>::max()))
    throw refuse();
  return static_cast<T>(s);
}

template <class T>
void readFields(const json& j, DeviceSpec& d, const auto& fields, std::vector<std::string>& missing) {
  for (const Field<T>& f : fields) {
    if (!j.contains(f.key)) {
      if (f.required) missing.push_back(f.key);
    } else if constexpr (std::is_integral_v<T>) {
      d.*(f.member) = integerField<T>(j.at(f.key), f.key);
    } else {
      d.*(f.member) = j.at(f.key).template get<T>();
    }
  }
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

std::vector<std::string> presetIds() {
  std::vector<std::string> ids;
  for (const auto& p : devicePresetTexts()) ids.emplace_back(p.name);
  return ids;
}

ir::Result<DeviceSpec> parseDeviceJson(const std::string& text, const std::string& source) {
  json j;
  try {
    j = json::parse(text);
  } catch (const std::exception& e) {
    return ir::makeError(std::string("not valid JSON: ") + e.what(), {}, source);
  }
  if (!j.is_object()) return ir::makeError("a device file must hold a JSON object", {}, source);
  DeviceSpec d;
  std::vector<std::string> missing;
  try {
    readFields<int>(j, d, kIntFields, missing);
    readFields<int64_t>(j, d, kInt64Fields, missing);
    readFields<double>(j, d, kDoubleFields, missing);
    readFields<std::string>(j, d, kStringFields, missing);
    if (j.contains("shared_carveouts_kb")) {
      const json& kb = j.at("shared_carveouts_kb");
      if (!kb.is_array()) throw std::runtime_error("'shared_carveouts_kb' must be an array of integers");
      for (const json& v : kb) d.sharedCarveoutsKB.push_back(integerField<int>(v, "shared_carveouts_kb"));
    }
    if (j.contains("kernel_efficiency")) {
      const json& ke = j.at("kernel_efficiency");
      if (!ke.is_object() || !ke.contains("families") || !ke.at("families").is_object())
        throw std::runtime_error("'kernel_efficiency' must be {\"source\": text, \"families\": {family: number}}");
      if (ke.contains("source")) d.kernelEfficiencySource = ke.at("source").get<std::string>();
      for (const auto& [family, v] : ke.at("families").items()) {
        if (!v.is_number() || !(v.get<double>() > 0) || v.get<double>() > 10)
          throw std::runtime_error("kernel efficiency of '" + family + "' must be a number in (0, 10], not " +
                                   v.dump());
        d.kernelEfficiency[family] = v.get<double>();
      }
    }
  } catch (const std::exception& e) {
    return ir::makeError(std::string("a field has the wrong type: ") + e.what(), {}, source);
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
    return ir::makeError("missing fields: " + list, {}, source);
  }
  if (!j.contains("shared_per_block_optin")) d.sharedPerBlockOptin = d.sharedPerBlock;
  if (!j.contains("regs_per_block")) d.regsPerBlock = d.regsPerSM;
  if (d.sms <= 0 || d.warpSize <= 0 || d.maxThreadsPerSM < d.warpSize || d.maxBlocksPerSM <= 0 || d.regsPerSM <= 0 ||
      d.sharedPerSM < 0 || d.clockGHz <= 0 || d.memoryBandwidthGBs <= 0 || d.peakFp32Tflops <= 0 ||
      d.subPartitions <= 0 || d.regAllocUnit <= 0 || d.sharedAllocUnit <= 0)
    return ir::makeError("device limits must be positive (sms, warp_size, threads, blocks, registers, rates)", {},
                         source);
  // Optional facts: 0 means unknown, a negative number is a typo.
  if (d.l2Bytes < 0) return ir::makeError("l2_bytes must not be negative (0 = unknown)", {}, source);
  if (d.l2BandwidthGBs < 0) return ir::makeError("l2_bandwidth_gbs must not be negative (0 = unknown)", {}, source);
  return d;
}

ir::Result<DeviceSpec> presetDevice(const std::string& id) {
  const std::string want = lower(id);
  for (const auto& p : devicePresetTexts())
    if (p.name == want) return parseDeviceJson(std::string(p.text), "preset " + std::string(p.name));
  std::string ids;
  for (const auto& p : devicePresetTexts()) ids += (ids.empty() ? "" : ", ") + std::string(p.name);
  return ir::makeError("unknown device '" + id + "'; presets: " + ids + " (or a path to a JSON file)");
}

ir::Result<DeviceSpec> loadDevice(const std::string& idOrPath) {
  const bool looksLikeFile = idOrPath.find('/') != std::string::npos || idOrPath.ends_with(".json");
  if (!looksLikeFile) return presetDevice(idOrPath);
  std::ifstream in(idOrPath);
  if (!in) return ir::makeError("cannot open device file", {}, idOrPath);
  std::stringstream ss;
  ss << in.rdbuf();
  return parseDeviceJson(ss.str(), idOrPath);
}

std::string deviceToJson(const DeviceSpec& d) {
  json j;
  for (const auto& f : kStringFields) j[f.key] = d.*(f.member);
  for (const auto& f : kIntFields) j[f.key] = d.*(f.member);
  for (const auto& f : kInt64Fields) j[f.key] = d.*(f.member);
  for (const auto& f : kDoubleFields) j[f.key] = d.*(f.member);
  j["shared_carveouts_kb"] = d.sharedCarveoutsKB;
  if (!d.kernelEfficiency.empty())
    j["kernel_efficiency"] = {{"source", d.kernelEfficiencySource}, {"families", d.kernelEfficiency}};
  return j.dump(2);
}

}  // namespace rammer::device
