#include "core/ir/attributes.h"

#include <stdexcept>

namespace rammer::ir {

const AttrValue* Attributes::find(const std::string& name) const {
  auto it = map_.find(name);
  return it == map_.end() ? nullptr : &it->second;
}

namespace {
template <class T>
const T& typed(const AttrValue& v, const std::string& name, const char* kind) {
  if (const T* p = std::get_if<T>(&v)) return *p;
  throw std::invalid_argument("attribute '" + name + "' is not " + kind);
}
}  // namespace

int64_t Attributes::getInt(const std::string& name, int64_t def) const {
  const AttrValue* v = find(name);
  return v ? typed<int64_t>(*v, name, "an int") : def;
}

float Attributes::getFloat(const std::string& name, float def) const {
  const AttrValue* v = find(name);
  if (!v) return def;
  if (const auto* i = std::get_if<int64_t>(v)) return static_cast<float>(*i);  // some exporters write ints
  return typed<float>(*v, name, "a float");
}

std::string Attributes::getString(const std::string& name, const std::string& def) const {
  const AttrValue* v = find(name);
  return v ? typed<std::string>(*v, name, "a string") : def;
}

std::vector<int64_t> Attributes::getInts(const std::string& name, const std::vector<int64_t>& def) const {
  const AttrValue* v = find(name);
  return v ? typed<std::vector<int64_t>>(*v, name, "a list of ints") : def;
}

std::vector<float> Attributes::getFloats(const std::string& name, const std::vector<float>& def) const {
  const AttrValue* v = find(name);
  return v ? typed<std::vector<float>>(*v, name, "a list of floats") : def;
}

std::vector<std::string> Attributes::getStrings(const std::string& name,
                                                const std::vector<std::string>& def) const {
  const AttrValue* v = find(name);
  return v ? typed<std::vector<std::string>>(*v, name, "a list of strings") : def;
}

const Tensor* Attributes::getTensor(const std::string& name) const {
  const AttrValue* v = find(name);
  return v ? &typed<Tensor>(*v, name, "a tensor") : nullptr;
}

namespace {
std::string scalarText(int64_t x) { return std::to_string(x); }
std::string scalarText(float x) { return std::to_string(x); }
std::string scalarText(const std::string& x) { return '"' + x + '"'; }

template <class T>
std::string listText(const std::vector<T>& xs) {
  std::string out = "[";
  for (size_t i = 0; i < xs.size(); ++i) {
    if (i == 16) return out + ", ... (" + std::to_string(xs.size()) + ")]";
    if (i) out += ", ";
    out += scalarText(xs[i]);
  }
  return out + "]";
}
}  // namespace

std::string attrToString(const AttrValue& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Tensor>) return "tensor " + typeToString(x.type());
        else if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, float> || std::is_same_v<T, std::string>)
          return scalarText(x);
        else return listText(x);
      },
      v);
}

}  // namespace rammer::ir
