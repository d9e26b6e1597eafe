// The policy registry (issue #44 item 6): one entry per policy, names and
// aliases found in any case, each name making the policy that reports it,
// the traits other stages read in place of string comparisons, and each
// policy's own options with the defaults of its option struct.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "core/schedule/policy.h"
#include "core/schedule/policy_registry.h"

namespace rammer::schedule {
namespace {

TEST(PolicyRegistry, EveryPolicyHasOneEntryWhoseNameMakesIt) {
  std::set<std::string_view> names;
  std::set<PolicyId> ids;
  for (const PolicyInfo& p : policyRegistry()) {
    SCOPED_TRACE(std::string(p.name));
    EXPECT_TRUE(names.insert(p.name).second);
    EXPECT_TRUE(ids.insert(p.id).second);
    EXPECT_FALSE(p.description.empty());
    EXPECT_EQ(&policyInfo(p.id), &p);
    EXPECT_EQ(findPolicy(p.name), p.id);
    auto made = makePolicy(std::string(p.name));
    ASSERT_TRUE(made.ok()) << made.errorText();
    EXPECT_EQ((*made)->name(), p.name);
  }
  EXPECT_EQ(ids.size(), 6u);
  EXPECT_EQ(policyNames(), (std::vector<std::string>{"sequential", "wavefront", "greedy", "ios", "graphturbo", "dynamic"}));
  EXPECT_EQ(staticPolicyNames(), (std::vector<std::string>{"sequential", "wavefront", "greedy", "ios", "graphturbo"}));
}

TEST(PolicyRegistry, NamesAndAliasesInAnyCase) {
  EXPECT_EQ(findPolicy("Rammer"), PolicyId::Wavefront);
  EXPECT_EQ(findPolicy("RAMMERBASE"), PolicyId::Sequential);
  EXPECT_EQ(findPolicy("GraphTurbo"), PolicyId::GraphTurbo);
  EXPECT_EQ(findPolicy("wave"), std::nullopt);
  EXPECT_EQ(findPolicy(""), std::nullopt);  // an empty alias names nothing
  EXPECT_EQ(policyNamed("nope"), nullptr);
  auto unknown = makePolicy("nope");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.errorText().find("policies: sequential, wavefront"), std::string::npos) << unknown.errorText();
}

TEST(PolicyRegistry, TraitsTheOtherStagesRead) {
  EXPECT_TRUE(policyInfo(PolicyId::Sequential).isBaseline);
  EXPECT_FALSE(policyInfo(PolicyId::Dynamic).placesStatically);
  for (PolicyId id : {PolicyId::Ios, PolicyId::GraphTurbo}) EXPECT_TRUE(policyInfo(id).rewritesOperators);
  for (PolicyId id : {PolicyId::Sequential, PolicyId::Wavefront, PolicyId::Greedy, PolicyId::Dynamic})
    EXPECT_FALSE(policyInfo(id).rewritesOperators);
}

TEST(PolicyRegistry, TheDefaultIsRammersWavefront) { EXPECT_EQ(defaultPolicyName(), "wavefront"); }

// docs/DESIGN.md's policy table is the registry's rows, in its order.
TEST(PolicyRegistry, TheDesignDocumentListsEveryPolicy) {
  std::ifstream in(RAMMER_SOURCE_DIR "/docs/DESIGN.md");
  ASSERT_TRUE(in) << "docs/DESIGN.md is missing";
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const size_t begin = doc.find("<!-- policies"), end = doc.find("<!-- /policies -->");
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  std::string expected = "| policy | alias | paper | what it does |\n|---|---|---|---|\n";
  for (const PolicyInfo& p : policyRegistry()) {
    auto quoted = [](std::string_view s) { return s.empty() ? std::string() : "`" + std::string(s) + "`"; };
    expected += "| " + quoted(p.name) + " | " + quoted(p.alias) + " | " + std::string(p.paper) + " | " +
                std::string(p.description) + " |\n";
  }
  const std::string table = doc.substr(doc.find('\n', begin) + 1, end - doc.find('\n', begin) - 1);
  EXPECT_EQ(table, expected) << "write this table into docs/DESIGN.md:\n" << expected;
}

// IOS and GraphTurbo have options (the CLI's flags and the studio's
// controls are made from these entries); their defaults are the option
// structs' own, and a named option's default is one of its choices.
TEST(PolicyRegistry, EachPolicysOptionsCarryItsOptionStructsDefaults) {
  for (PolicyId id : policyIds()) {
    const bool has = id == PolicyId::Ios || id == PolicyId::GraphTurbo;
    EXPECT_EQ(!policyOptions(id).empty(), has) << policyName(id);
    for (const PolicyOption& o : policyOptions(id)) {
      EXPECT_FALSE(o.label.empty()) << o.flag;
      EXPECT_FALSE(o.description.empty()) << o.flag;
      if (!o.choices.empty()) EXPECT_TRUE(o.accepts(o.defaultValue)) << o.flag << " defaults to " << o.defaultValue;
      EXPECT_EQ(&policyOption(id, o.flag), &o);
    }
  }
  const IosOptions ios;
  EXPECT_EQ(policyOption(PolicyId::Ios, "ios-r").defaultValue, std::to_string(ios.maxGroupOps));
  EXPECT_EQ(policyOption(PolicyId::Ios, "ios-s").defaultValue, std::to_string(ios.maxGroups));
  EXPECT_EQ(policyOption(PolicyId::Ios, "ios-variant").defaultValue, ios.variant);
  EXPECT_EQ(policyOption(PolicyId::Ios, "ios-programs").defaultValue, ios.programs);
  EXPECT_EQ(policyOption(PolicyId::GraphTurbo, "gt-order").defaultValue, GraphTurboOptions{}.order);
  EXPECT_EQ(policyOption(PolicyId::GraphTurbo, "gt-budget").defaultValue, "") << "the device decides";
  EXPECT_EQ(policyOption(PolicyId::Ios, "ios-variant").choiceList(), "parallel, merge, both");
  EXPECT_FALSE(policyOption(PolicyId::GraphTurbo, "gt-order").accepts("sideways"));
  EXPECT_THROW(policyOption(PolicyId::Wavefront, "ios-r"), std::out_of_range);
}

}  // namespace
}  // namespace rammer::schedule
