#include "core/sim/profile_db.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>

#include "core/sim/json_fields.h"

namespace rammer::sim {

namespace {

using jsonio::FieldReader;
using jsonio::Json;

Json statsToJson(const TimeStats& s) {
  return Json{{"samples", s.samples}, {"median", s.medianUs}, {"mean", s.meanUs}, {"min", s.minUs}, {"max", s.maxUs}};
}

bool readStats(const Json& entry, const char* name, bool required, const std::string& where, TimeStats& out,
               std::string& error) {
  auto it = entry.find(name);
  if (it == entry.end()) {
    if (required) error = fmt::format("{}: missing \"{}\"", where, name);
    return !required;
  }
  if (!it->is_object()) {
    error = fmt::format("{}: \"{}\" must be an object with samples, median, mean, min and max", where, name);
    return false;
  }
  FieldReader r(*it, fmt::format("{}: \"{}\"", where, name));
  out.samples = r.integer("samples", 1);
  out.medianUs = r.micros("median");
  out.meanUs = r.micros("mean");
  out.minUs = r.micros("min");
  out.maxUs = r.micros("max");
  if (r.ok() && !(out.minUs <= out.medianUs && out.medianUs <= out.maxUs && out.minUs <= out.meanUs &&
                  out.meanUs <= out.maxUs))
    r.fail(fmt::format("min {:g} <= median {:g}, mean {:g} <= max {:g} does not hold", out.minUs, out.medianUs,
                       out.meanUs, out.maxUs));
  error = r.error();
  return r.ok();
}

}  // namespace

TimeStats summarizeTimes(std::vector<double> us) {
  TimeStats s;
  if (us.empty()) return s;
  std::sort(us.begin(), us.end());
  const size_t n = us.size();
  s.samples = static_cast<int64_t>(n);
  s.medianUs = n % 2 ? us[n / 2] : (us[n / 2 - 1] + us[n / 2]) / 2;
  s.meanUs = std::accumulate(us.begin(), us.end(), 0.0) / static_cast<double>(n);
  s.minUs = us.front();
  s.maxUs = us.back();
  return s;
}

TimeStats mergeTimes(const TimeStats& a, const TimeStats& b) {
  if (a.samples <= 0) return b;
  if (b.samples <= 0) return a;
  TimeStats s;
  s.samples = a.samples + b.samples;
  const double wa = static_cast<double>(a.samples) / static_cast<double>(s.samples);
  const double wb = 1.0 - wa;
  s.medianUs = wa * a.medianUs + wb * b.medianUs;
  s.meanUs = wa * a.meanUs + wb * b.meanUs;
  s.minUs = std::min(a.minUs, b.minUs);
  s.maxUs = std::max(a.maxUs, b.maxUs);
  return s;
}

void ProfileDB::add(const ProfileEntry& entry) {
  auto [it, added] = entries_.try_emplace({entry.key, entry.veusPerSM}, entry);
  if (added) return;
  ProfileEntry& e = it->second;
  e.taskTime = mergeTimes(e.taskTime, entry.taskTime);
  e.kernelTime = mergeTimes(e.kernelTime, entry.kernelTime);
  e.runs += entry.runs;
  if (e.opType.empty()) e.opType = entry.opType;
}

const ProfileEntry* ProfileDB::find(const std::string& key, int veusPerSM) const {
  auto it = entries_.find({key, veusPerSM});
  return it == entries_.end() ? nullptr : &it->second;
}

const ProfileEntry* ProfileDB::lookup(const kernels::RKernel& kernel, int veusPerSM) const {
  const std::string key = profileKey(kernel);
  // Entries of one key are contiguous and ordered by vEUs per SM.
  const ProfileEntry* best = nullptr;
  for (auto it = entries_.lower_bound({key, std::numeric_limits<int>::min()});
       it != entries_.end() && it->first.first == key; ++it) {
    if (!best || std::abs(it->second.veusPerSM - veusPerSM) < std::abs(best->veusPerSM - veusPerSM))
      best = &it->second;
  }
  return best;
}

std::vector<ProfileEntry> ProfileDB::entries() const {
  std::vector<ProfileEntry> out;
  out.reserve(entries_.size());
  for (const auto& [k, e] : entries_) out.push_back(e);
  return out;
}

std::string profileKey(const kernels::RKernel& k) {
  std::string params;
  for (const auto& [name, value] : k.params) params += fmt::format("{}{}={}", params.empty() ? "" : ",", name, value);
  return fmt::format("{}{{{}}} tasks={} block={}x{}x{} smem={} flops={:.6g} bytes={:.6g}", k.name, params,
                     k.numRTasks, k.block.x, k.block.y, k.block.z, k.sharedBytes, k.flops, k.bytes);
}

std::vector<ir::Diagnostic> mergeProfileDB(ProfileDB& into, const ProfileDB& from) {
  if (into.device() != from.device())
    return {ir::makeError(fmt::format("cannot merge measurements for device '{}' into a database for '{}'",
                                      from.device(), into.device()))};
  for (const ProfileEntry& e : from.entries()) into.add(e);
  if (!from.gpu().empty()) into.setGpu(from.gpu());
  return {};
}

ir::Result<ProfileDB> parseProfileDB(const std::string& text, const std::string& source) {
  auto error = [&source](const std::string& m) { return ir::makeError(m, {}, source); };
  Json j;
  if (auto why = jsonio::parseJson(text, j); !why.empty()) return error(why);
  if (!j.is_object()) return error("not a profile database: the top level must be a JSON object");
  if (j.value("format", std::string()) != ProfileDB::kFormat)
    return error(fmt::format("not a profile database: \"format\" must be \"{}\"", ProfileDB::kFormat));
  FieldReader top(j, "profile database");
  const int64_t version = top.integer("version", 1);
  const std::string device = top.text("device");
  const std::string gpu = top.text("gpu", false);
  if (!top.ok()) return error(top.error());
  if (version > ProfileDB::kVersion)
    return error(fmt::format("profile database version {} is newer than this build reads (version {})", version,
                             ProfileDB::kVersion));
  if (device.empty()) return error("profile database: \"device\" must name a device");
  auto entries = j.find("entries");
  if (entries == j.end() || !entries->is_array()) return error("profile database: \"entries\" must be an array");

  ProfileDB db(device, gpu);
  for (size_t i = 0; i < entries->size(); ++i) {
    const Json& e = (*entries)[i];
    const std::string where = fmt::format("entry {}", i);
    if (!e.is_object()) return error(where + ": must be an object");
    FieldReader r(e, where);
    ProfileEntry pe;
    pe.key = r.text("key");
    const std::string named = r.ok() ? fmt::format("entry {} ('{}')", i, pe.key) : where;
    FieldReader f(e, named);
    pe.kernelName = f.text("kernel");
    pe.opType = f.text("op_type", false);
    pe.veusPerSM = static_cast<int>(std::min<int64_t>(f.integer("veus_per_sm", 1), 1 << 20));
    pe.numRTasks = f.integer("rtasks", 1);
    pe.runs = static_cast<int>(std::min<int64_t>(f.integer("runs", 1), 1 << 30));
    if (!r.ok()) return error(r.error());
    if (!f.ok()) return error(f.error());
    std::string statsError;
    if (!readStats(e, "task_us", true, named, pe.taskTime, statsError) ||
        !readStats(e, "kernel_us", false, named, pe.kernelTime, statsError))
      return error(statsError);
    if (pe.key.empty()) return error(where + ": \"key\" must not be empty");
    if (db.find(pe.key, pe.veusPerSM))
      return error(fmt::format("{}: a second entry for the same rKernel at {} vEUs per SM", named, pe.veusPerSM));
    db.add(pe);
  }
  return db;
}

std::string profileDBToJson(const ProfileDB& db) {
  Json j;
  j["format"] = ProfileDB::kFormat;
  j["version"] = ProfileDB::kVersion;
  j["device"] = db.device();
  j["gpu"] = db.gpu();
  Json entries = Json::array();
  for (const ProfileEntry& e : db.entries()) {
    Json o{{"key", e.key},
           {"kernel", e.kernelName},
           {"op_type", e.opType},
           {"veus_per_sm", e.veusPerSM},
           {"rtasks", e.numRTasks},
           {"runs", e.runs},
           {"task_us", statsToJson(e.taskTime)}};
    if (e.kernelTime.samples > 0) o["kernel_us"] = statsToJson(e.kernelTime);
    entries.push_back(std::move(o));
  }
  j["entries"] = std::move(entries);
  return j.dump(2) + "\n";
}

ir::Result<ProfileDB> loadProfileDB(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return ir::makeError("cannot open the profile database", {}, file.string());
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) return ir::makeError("cannot read the profile database", {}, file.string());
  return parseProfileDB(s.str(), file.string());
}

std::vector<ir::Diagnostic> saveProfileDB(const ProfileDB& db, const std::filesystem::path& file) {
  std::filesystem::path tmp = file;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    const std::string why = "cannot write the profile database (through " + tmp.filename().string() + ")";
    if (!out) return {ir::makeError(why, {}, file.string())};
    out << profileDBToJson(db);
    out.close();
    if (!out) return {ir::makeError(why, {}, file.string())};
  }
  std::error_code ec;
  std::filesystem::rename(tmp, file, ec);
  if (ec) {
    const std::string why = ec.message();
    std::filesystem::remove(tmp, ec);
    return {ir::makeError("cannot replace the profile database: " + why, {}, file.string())};
  }
  return {};
}

}  // namespace rammer::sim
