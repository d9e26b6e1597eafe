#pragma once
// Names for parameterized tests made of their parameters ("sample_cnn_
// wavefront" rather than "/3"), so a ctest list, a failure and a filter
// say which case it is. Strings and tuples of strings join with '_'; a
// character gtest does not allow in a name ('.', '-', '/') becomes '_'.
#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <tuple>

namespace rammer::testing {

inline std::string nameWord(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

struct ParamName {
  template <class T>
  std::string operator()(const ::testing::TestParamInfo<T>& info) const {
    return of(info.param);
  }
  static std::string of(const std::string& s) { return nameWord(s); }
  static std::string of(const char* s) { return nameWord(s); }
  template <class... Ts>
  static std::string of(const std::tuple<Ts...>& t) {
    std::string out;
    std::apply([&out](const auto&... part) { ((out += (out.empty() ? "" : "_") + of(part)), ...); }, t);
    return out;
  }
};

}  // namespace rammer::testing
