#include "core/sim/measured_trace.h"

#include <fmt/core.h>
#include <lzma.h>

#include <algorithm>
#include <map>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/device/device_spec.h"
#include "core/sim/simulator.h"

namespace rammer::sim {

namespace {

using Json = nlohmann::json;

constexpr int kVersion = 1;
constexpr unsigned char kXzMagic[] = {0xFD, '7', 'z', 'X', 'Z', 0x00};

bool isXz(const std::string& data) {
  if (data.size() < sizeof kXzMagic) return false;
  for (size_t i = 0; i < sizeof kXzMagic; ++i)
    if (static_cast<unsigned char>(data[i]) != kXzMagic[i]) return false;
  return true;
}

// One column of `tasks`, summed back where it is delta-coded.
ir::Result<std::vector<int64_t>> column(const Json& tasks, const std::string& name, bool delta) {
  auto it = tasks.find(name);
  if (it == tasks.end() || !it->is_array()) return ir::makeError("\"tasks\"." + name + " must be an array of integers");
  std::vector<int64_t> out;
  out.reserve(it->size());
  int64_t acc = 0;
  for (const Json& v : *it) {
    if (!v.is_number_integer()) return ir::makeError("\"tasks\"." + name + " must be an array of integers");
    acc = delta ? acc + v.get<int64_t>() : v.get<int64_t>();
    out.push_back(acc);
  }
  return out;
}

}  // namespace

ir::Result<std::string> decompressXz(const std::string& data, size_t maxBytes) {
  lzma_stream s = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&s, UINT64_MAX, 0) != LZMA_OK) return ir::makeError("cannot start the xz decoder");
  std::string out;
  std::string chunk(1 << 20, '\0');
  s.next_in = reinterpret_cast<const uint8_t*>(data.data());
  s.avail_in = data.size();
  lzma_ret r = LZMA_OK;
  while (r == LZMA_OK) {
    s.next_out = reinterpret_cast<uint8_t*>(chunk.data());
    s.avail_out = chunk.size();
    r = lzma_code(&s, LZMA_FINISH);
    out.append(chunk.data(), chunk.size() - s.avail_out);
    if (out.size() > maxBytes) {
      lzma_end(&s);
      return ir::makeError(fmt::format("decompresses to more than {} MB", maxBytes >> 20));
    }
  }
  lzma_end(&s);
  if (r == LZMA_STREAM_END) return out;
  if (r == LZMA_BUF_ERROR) return ir::makeError("the xz data is truncated");
  return ir::makeError(fmt::format("the xz data is corrupt (liblzma error {})", static_cast<int>(r)));
}

ir::Result<Trace> parseMeasuredTrace(const std::string& text, const std::string& source) {
  auto error = [&source](const std::string& m) { return ir::makeError("measured trace: " + m, {}, source); };
  Json j;
  try {
    j = Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return error(std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object() || j.value("format", std::string()) != kMeasuredTraceFormat)
    return error(fmt::format("not a measured trace: \"format\" must be \"{}\"", kMeasuredTraceFormat));
  if (!j.value("version", Json()).is_number_integer() || j["version"].get<int>() > kVersion)
    return error(fmt::format("\"version\" must be an integer this build reads (up to {})", kVersion));
  try {
    Trace t;
    const Json& other = j.at("other");
    t.measured = other.value("measured", true);
    t.source = other.value("source", std::string("measured"));
    t.device = other.value("device", std::string());
    t.totalUs = other.value("total_us", 0.0);
    t.smEfficiency = other.value("sm_efficiency", 0.0);

    // Ops by index: names and rKernels; the others (views) stay unnamed.
    const Json& ops = j.at("ops");
    const Json& kernels = j.at("kernels");
    std::vector<std::pair<int64_t, std::string>> indexed;  // (op index, its key in "ops")
    int64_t numOps = 0;
    for (const auto& [key, name] : ops.items()) {
      const int64_t i = std::stoll(key);
      if (i < 0 || i >= 10'000'000) return error("op index " + key + " in \"ops\" is out of range");
      indexed.emplace_back(i, key);
      numOps = std::max(numOps, i + 1);
    }
    t.opNames.assign(static_cast<size_t>(numOps), std::string());
    t.opTypes.assign(static_cast<size_t>(numOps), std::string());
    t.kernelNames.assign(static_cast<size_t>(numOps), std::string());
    for (const auto& [i, key] : indexed) {
      t.opNames[static_cast<size_t>(i)] = ops[key].get<std::string>();
      if (kernels.contains(key)) t.kernelNames[static_cast<size_t>(i)] = kernels[key].get<std::string>();
    }

    for (const Json& p : j.at("programs")) {
      ProgramEvent e;
      e.program = p.at("program").get<int32_t>();
      e.numVEUs = p.at("veus").get<int32_t>();
      e.veusPerSM = p.value("veus_per_sm", 0);
      e.startUs = 1e-3 * p.at("start_ns").get<double>();
      e.endUs = e.startUs + 1e-3 * p.at("dur_ns").get<double>();
      t.programs.push_back(e);
    }

    const Json& tasks = j.at("tasks");
    const Json delta = tasks.value("delta", Json::array());
    auto coded = [&delta](const char* name) { return std::find(delta.begin(), delta.end(), name) != delta.end(); };
    std::vector<std::vector<int64_t>> cols;
    for (const char* name : {"op", "rtask", "program", "veu", "order", "sm", "start_ns", "dur_ns"}) {
      auto c = column(tasks, name, coded(name));
      if (!c.ok()) return error(c.errorText());
      if (!cols.empty() && c->size() != cols.front().size())
        return error(
            fmt::format("\"tasks\".{} has {} elements, \"tasks\".op {}", name, c->size(), cols.front().size()));
      cols.push_back(std::move(c).value());
    }
    int32_t maxSm = -1;
    t.tasks.reserve(cols[0].size());
    for (size_t i = 0; i < cols[0].size(); ++i) {
      TaskEvent e;
      e.task = schedule::RTask{static_cast<int32_t>(cols[0][i]), cols[1][i]};
      if (e.task.op < 0 || e.task.op >= numOps)
        return error(fmt::format("rTask {} names op {}, which \"ops\" does not list", i, e.task.op));
      e.program = static_cast<int32_t>(cols[2][i]);
      e.veu = static_cast<int32_t>(cols[3][i]);
      e.order = static_cast<int32_t>(cols[4][i]);
      e.sm = static_cast<int32_t>(cols[5][i]);
      e.startUs = 1e-3 * static_cast<double>(cols[6][i]);
      e.endUs = e.startUs + 1e-3 * static_cast<double>(cols[7][i]);
      maxSm = std::max(maxSm, e.sm);
      t.tasks.push_back(e);
    }
    // The card's SMs when its preset is known, else as many as the trace used.
    auto spec = device::loadDevice(t.device);
    t.sms = spec.ok() ? spec->sms : maxSm + 1;
    if (t.totalUs <= 0)
      for (const TaskEvent& e : t.tasks) t.totalUs = std::max(t.totalUs, e.endUs);
    if (t.smEfficiency <= 0) t.smEfficiency = computeSmEfficiency(t.tasks, t.sms, t.totalUs);
    return t;
  } catch (const Json::exception& e) {
    return error(std::string("a field is missing or of the wrong type: ") + e.what());
  } catch (const std::exception& e) {
    return error(std::string("an op index is not a number: ") + e.what());
  }
}

Trace alignToPlan(Trace measured, const schedule::Plan& plan, size_t* dropped) {
  // The measured side's op tables and rTasks, renumbered into `t`.
  const std::vector<std::string> names = std::move(measured.opNames), kernels = std::move(measured.kernelNames);
  const std::vector<TaskEvent> tasks = std::move(measured.tasks);
  Trace t = std::move(measured);
  t.opNames.clear();
  t.opTypes.clear();
  t.tasks.clear();
  t.kernelNames.assign(plan.ops.size(), std::string());
  std::map<std::string, int32_t> byName;
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    byName.emplace(plan.ops[i].name, static_cast<int32_t>(i));
    t.opNames.push_back(plan.ops[i].name);
    t.opTypes.push_back(plan.ops[i].opType);
  }
  std::vector<int32_t> to(names.size(), -1);
  for (size_t i = 0; i < names.size(); ++i) {
    auto it = byName.find(names[i]);
    if (it == byName.end()) continue;
    to[i] = it->second;
    if (i < kernels.size()) t.kernelNames[static_cast<size_t>(it->second)] = kernels[i];
  }
  size_t lost = 0;
  for (TaskEvent e : tasks) {
    const auto from = static_cast<size_t>(e.task.op);
    const int32_t op = e.task.op >= 0 && from < to.size() ? to[from] : -1;
    if (op < 0) {
      ++lost;
      continue;
    }
    e.task.op = op;
    t.tasks.push_back(e);
  }
  if (dropped) *dropped = lost;
  return t;
}

ir::Result<std::string> readPossiblyXz(const std::filesystem::path& file, size_t maxBytes, const std::string& what) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return ir::makeError("cannot open the " + what, {}, file.string());
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) return ir::makeError("cannot read the " + what, {}, file.string());
  std::string text = s.str();
  if (!isXz(text)) return text;
  auto plain = decompressXz(text, maxBytes);
  if (!plain.ok()) return ir::makeError(what + ": " + plain.errorText(), {}, file.string());
  return std::move(plain).value();
}

ir::Result<Trace> loadMeasuredTrace(const std::filesystem::path& file, size_t maxBytes) {
  auto text = readPossiblyXz(file, maxBytes, "measured trace");
  if (!text) return text.errors();
  return parseMeasuredTrace(*text, file.string());
}

}  // namespace rammer::sim
