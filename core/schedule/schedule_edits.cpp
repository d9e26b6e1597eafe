#include "core/schedule/schedule_edits.h"

#include <nlohmann/json.hpp>
#include <map>
#include <set>

namespace rammer::schedule {

namespace {

using nlohmann::json;

const char* kOps = "pin_kernel, move, cut_before, merge_before, vdevice, claim_shards";
// Claim shards an edit may ask for: more than any device's vEUs is a typo.
constexpr int64_t kMaxClaimShards = 4096;

// Reads one edit; an empty string on success, else the problem.
std::string readEdit(const json& e, const std::set<std::string>* nodes, Constraints& c) {
  if (!e.is_object()) return "an edit must be an object";
  auto str = [&](const char* key, std::string& out) -> std::string {
    auto it = e.find(key);
    if (it == e.end()) return std::string("missing \"") + key + "\"";
    if (!it->is_string() || it->get<std::string>().empty()) return std::string("\"") + key + "\" must be a non-empty string";
    out = it->get<std::string>();
    return {};
  };
  auto integer = [&](const char* key, bool required, int64_t& out) -> std::string {
    auto it = e.find(key);
    if (it == e.end()) return required ? std::string("missing \"") + key + "\"" : std::string();
    if (!it->is_number_integer() || it->get<int64_t>() < 0)
      return std::string("\"") + key + "\" must be a non-negative integer";
    out = it->get<int64_t>();
    return {};
  };
  std::string op, node;
  if (auto err = str("op", op); !err.empty()) return err;
  if (auto err = str("node", node); !err.empty()) return err;
  if (op != "pin_kernel" && op != "move" && op != "cut_before" && op != "merge_before" && op != "vdevice" &&
      op != "claim_shards")
    return "unknown op '" + op + "' (expected one of " + kOps + ")";
  if (nodes && !nodes->count(node)) return "unknown node '" + node + "'";
  if (op == "pin_kernel") {
    std::string kernel;
    if (auto err = str("kernel", kernel); !err.empty()) return err;
    c.kernelFor[node] = kernel;
  } else if (op == "move") {
    int64_t rtask = -1, veu = -1, order = -1;
    for (auto [key, required, out] : {std::tuple{"rtask", false, &rtask}, {"veu", true, &veu}, {"order", false, &order}})
      if (auto err = integer(key, required, *out); !err.empty()) return err;
    if (veu > INT32_MAX || order > INT32_MAX) return "\"veu\"/\"order\" too large";
    // A later move of the same rTask replaces the earlier one.
    std::erase_if(c.pins, [&](const TaskPin& p) { return p.node == node && p.rtask == rtask; });
    c.pins.push_back(TaskPin{node, rtask, static_cast<int>(veu), static_cast<int>(order)});
  } else if (op == "vdevice") {
    int64_t veus = 0;
    if (auto err = integer("veus_per_sm", true, veus); !err.empty()) return err;
    if (veus != 1 && veus != 2 && veus != 4) return "\"veus_per_sm\" must be 1, 2 or 4";
    c.shapeFor[node] = static_cast<int>(veus);
  } else if (op == "claim_shards") {
    int64_t shards = 0;
    if (auto err = integer("shards", true, shards); !err.empty()) return err;
    if (shards < 1 || shards > kMaxClaimShards) return "\"shards\" must be 1 to " + std::to_string(kMaxClaimShards);
    c.claimShardsFor[node] = static_cast<int>(shards);
  } else if (op == "cut_before") {
    c.noCutBefore.erase(node);
    c.cutBefore.insert(node);
  } else {
    c.cutBefore.erase(node);
    c.noCutBefore.insert(node);
  }
  return {};
}

}  // namespace

ir::Result<Constraints> parseScheduleEdits(const std::string& text, const ir::Graph* graph, const std::string& source) {
  auto fail = [&](const std::string& msg, const std::string& node = {}) {
    return ir::makeError("schedule edits: " + msg, node, source);
  };
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return fail("not valid JSON");
  if (!doc.is_object()) return fail("the top level must be an object with \"version\" and \"edits\"");
  auto version = doc.find("version");
  if (version == doc.end() || !version->is_number_integer() || version->get<int64_t>() != 1)
    return fail("\"version\" must be 1");
  auto edits = doc.find("edits");
  if (edits == doc.end() || !edits->is_array()) return fail("\"edits\" must be an array");

  std::set<std::string> nodes;
  std::map<std::string, std::string> fusedInto;  // an original node's name -> the live node holding it
  if (graph)
    for (size_t i = 0; i < graph->numNodeSlots(); ++i) {
      const ir::Node& n = graph->node(static_cast<ir::NodeId>(i));
      if (n.removed) continue;
      nodes.insert(n.name);
      const ir::AttrValue* members = n.attrs.find("fused_nodes");
      if (const auto* list = members ? std::get_if<std::vector<std::string>>(members) : nullptr)
        for (const std::string& m : *list) fusedInto.emplace(m.substr(m.find(':') + 1), n.name);  // "OpType:name"
    }
  Constraints c;
  std::vector<ir::Diagnostic> errors;
  for (size_t i = 0; i < edits->size(); ++i) {
    json e = (*edits)[i];
    // A node the passes fused into another (a bias or ReLU in a FusedConv's
    // epilogue, a chain in a FusedElementwise) is edited as that node.
    if (graph && e.is_object() && e.contains("node") && e["node"].is_string()) {
      const std::string name = e["node"].get<std::string>();
      if (auto it = fusedInto.find(name); !nodes.count(name) && it != fusedInto.end()) e["node"] = it->second;
    }
    std::string err = readEdit(e, graph ? &nodes : nullptr, c);
    if (err.empty()) continue;
    std::string node;
    if (e.is_object() && e.contains("node") && e["node"].is_string()) node = e["node"].get<std::string>();
    errors.push_back(fail("edit " + std::to_string(i) + ": " + err, node));
  }
  if (!errors.empty()) return errors;
  return c;
}

std::string scheduleEditsToJson(const Constraints& c) {
  json edits = json::array();
  for (const auto& [node, kernel] : c.kernelFor) edits.push_back({{"op", "pin_kernel"}, {"node", node}, {"kernel", kernel}});
  for (const TaskPin& p : c.pins) {
    json e = {{"op", "move"}, {"node", p.node}};
    if (p.rtask >= 0) e["rtask"] = p.rtask;
    e["veu"] = p.veu;
    if (p.order >= 0) e["order"] = p.order;
    edits.push_back(std::move(e));
  }
  for (const auto& node : c.cutBefore) edits.push_back({{"op", "cut_before"}, {"node", node}});
  for (const auto& node : c.noCutBefore) edits.push_back({{"op", "merge_before"}, {"node", node}});
  for (const auto& [node, veus] : c.shapeFor) edits.push_back({{"op", "vdevice"}, {"node", node}, {"veus_per_sm", veus}});
  for (const auto& [node, shards] : c.claimShardsFor)
    edits.push_back({{"op", "claim_shards"}, {"node", node}, {"shards", shards}});
  return json{{"version", 1}, {"edits", std::move(edits)}}.dump(2) + "\n";
}

}  // namespace rammer::schedule
