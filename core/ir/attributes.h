#pragma once
// Node attributes as ONNX defines them (subgraph attributes are not kept:
// the importer refuses ops that need them).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/ir/tensor.h"

namespace rammer::ir {

using AttrValue = std::variant<int64_t, float, std::string, std::vector<int64_t>, std::vector<float>,
                               std::vector<std::string>, Tensor>;

class Attributes {
 public:
  bool has(const std::string& name) const { return map_.count(name) != 0; }
  void set(const std::string& name, AttrValue v) { map_[name] = std::move(v); }
  void erase(const std::string& name) { map_.erase(name); }
  const AttrValue* find(const std::string& name) const;

  // Typed getters: the default when absent; std::invalid_argument when the
  // attribute exists with another kind (a malformed model).
  int64_t getInt(const std::string& name, int64_t def) const;
  float getFloat(const std::string& name, float def) const;
  std::string getString(const std::string& name, const std::string& def) const;
  std::vector<int64_t> getInts(const std::string& name, const std::vector<int64_t>& def = {}) const;
  std::vector<float> getFloats(const std::string& name, const std::vector<float>& def = {}) const;
  std::vector<std::string> getStrings(const std::string& name, const std::vector<std::string>& def = {}) const;
  const Tensor* getTensor(const std::string& name) const;

  const std::map<std::string, AttrValue>& all() const { return map_; }
  bool empty() const { return map_.empty(); }

 private:
  std::map<std::string, AttrValue> map_;
};

// Short human-readable rendering for the inspector and `info`.
std::string attrToString(const AttrValue& v);

}  // namespace rammer::ir
