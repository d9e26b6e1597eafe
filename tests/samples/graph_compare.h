#pragma once
// Structural comparison of two ir::Graphs by names (value ids differ between
// a graph and its re-import): interface, nodes in topological order with
// their attributes, constants byte for byte, and every value's type.
#include <cstring>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "core/ir/graph.h"

namespace rammer::samples_test {

inline bool sameTensor(const ir::Tensor& a, const ir::Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (a.dtype() == ir::DType::String) return a.strings() == b.strings();
  return a.byteSize() == b.byteSize() && std::memcmp(a.raw(), b.raw(), a.byteSize()) == 0;
}

inline bool sameAttr(const ir::AttrValue& a, const ir::AttrValue& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        const T& y = std::get<T>(b);
        if constexpr (std::is_same_v<T, ir::Tensor>) return sameTensor(x, y);
        else return x == y;
      },
      a);
}

inline std::string valueName(const ir::Graph& g, ir::ValueId v) { return v == ir::kNone ? std::string() : g.value(v).name; }

// dimParams with "" for every unnamed dim, at the shape's rank.
inline std::vector<std::string> dimNames(const ir::Value& v) {
  std::vector<std::string> out = v.dimParams;
  out.resize(v.type.shape.size());
  return out;
}

inline void expectSameGraph(const ir::Graph& a, const ir::Graph& b, bool compareDimParams = true) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.opsetVersion, b.opsetVersion);
  auto sameValues = [&](const std::vector<ir::ValueId>& x, const std::vector<ir::ValueId>& y, const char* what) {
    ASSERT_EQ(x.size(), y.size()) << what;
    for (size_t i = 0; i < x.size(); ++i) {
      const ir::Value& va = a.value(x[i]);
      const ir::Value& vb = b.value(y[i]);
      EXPECT_EQ(va.name, vb.name) << what << " " << i;
      EXPECT_EQ(va.type, vb.type) << what << " " << va.name;
      if (compareDimParams) {
        EXPECT_EQ(dimNames(va), dimNames(vb)) << what << " " << va.name;
      }
    }
  };
  sameValues(a.inputs(), b.inputs(), "input");
  sameValues(a.outputs(), b.outputs(), "output");

  auto orderA = a.topologicalOrder();
  auto orderB = b.topologicalOrder();
  ASSERT_TRUE(orderA.ok() && orderB.ok());
  ASSERT_EQ(orderA->size(), orderB->size());
  for (size_t k = 0; k < orderA->size(); ++k) {
    const ir::Node& na = a.node((*orderA)[k]);
    const ir::Node& nb = b.node((*orderB)[k]);
    EXPECT_EQ(na.name, nb.name);
    EXPECT_EQ(na.opType, nb.opType) << na.name;
    EXPECT_EQ(na.domain, nb.domain) << na.name;
    ASSERT_EQ(na.inputs.size(), nb.inputs.size()) << na.name;
    for (size_t i = 0; i < na.inputs.size(); ++i) {
      EXPECT_EQ(valueName(a, na.inputs[i]), valueName(b, nb.inputs[i])) << na.name << " input " << i;
      if (na.inputs[i] == ir::kNone || nb.inputs[i] == ir::kNone) continue;
      const ir::Value& va = a.value(na.inputs[i]);
      const ir::Value& vb = b.value(nb.inputs[i]);
      EXPECT_EQ(va.type, vb.type) << va.name;
      ASSERT_EQ(va.constant.has_value() && va.producer == ir::kNone, vb.constant.has_value() && vb.producer == ir::kNone)
          << va.name;
      if (va.constant && va.producer == ir::kNone) {
        EXPECT_TRUE(sameTensor(*va.constant, *vb.constant)) << va.name;
      }
    }
    ASSERT_EQ(na.outputs.size(), nb.outputs.size()) << na.name;
    for (size_t i = 0; i < na.outputs.size(); ++i) {
      EXPECT_EQ(valueName(a, na.outputs[i]), valueName(b, nb.outputs[i])) << na.name << " output " << i;
      if (na.outputs[i] != ir::kNone && nb.outputs[i] != ir::kNone) {
        EXPECT_EQ(a.value(na.outputs[i]).type, b.value(nb.outputs[i]).type) << valueName(a, na.outputs[i]);
      }
    }
    ASSERT_EQ(na.attrs.all().size(), nb.attrs.all().size()) << na.name;
    for (const auto& [key, value] : na.attrs.all()) {
      const ir::AttrValue* other = nb.attrs.find(key);
      ASSERT_NE(other, nullptr) << na.name << "." << key;
      EXPECT_TRUE(sameAttr(value, *other)) << na.name << "." << key << ": " << ir::attrToString(value) << " vs "
                                           << ir::attrToString(*other);
    }
  }
}

}  // namespace rammer::samples_test
