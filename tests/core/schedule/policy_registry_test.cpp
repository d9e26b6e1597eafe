// The policy registry (issue #44 item 6): one entry per policy, names and
// aliases found in any case, each name making the policy that reports it,
// and the traits other stages read in place of string comparisons.
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

}  // namespace
}  // namespace rammer::schedule
