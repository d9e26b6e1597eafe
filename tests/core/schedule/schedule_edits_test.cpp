// Schedule-edit files: parsing into Constraints, errors that name the edit,
// and the round trip back to JSON.
#include <gtest/gtest.h>

#include "core/schedule/schedule_edits.h"
#include "tests/core/schedule/schedule_fixtures.h"

using namespace rammer;
using namespace rammer::schedule;
namespace rt = rammer::testing;

namespace {
const char* kExample = R"({"version": 1, "edits": [
  {"op": "pin_kernel", "node": "a0", "kernel": "conv_igemm_32x32"},
  {"op": "move", "node": "a0", "rtask": 3, "veu": 5, "order": 2},
  {"op": "move", "node": "a1", "veu": 7},
  {"op": "cut_before", "node": "a2"},
  {"op": "merge_before", "node": "a1"},
  {"op": "vdevice", "node": "a2", "veus_per_sm": 2},
  {"op": "claim_shards", "node": "a1", "shards": 8}]})";
}  // namespace

TEST(ScheduleEdits, ParsesEveryEditKind) {
  const ir::Graph g = rt::chainGraph(3);
  auto c = parseScheduleEdits(kExample, &g);
  ASSERT_TRUE(c.ok()) << c.errorText();
  EXPECT_EQ(c->kernelFor.at("a0"), "conv_igemm_32x32");
  ASSERT_EQ(c->pins.size(), 2u);
  EXPECT_EQ(c->pins[0].node, "a0");
  EXPECT_EQ(c->pins[0].rtask, 3);
  EXPECT_EQ(c->pins[0].veu, 5);
  EXPECT_EQ(c->pins[0].order, 2);
  EXPECT_EQ(c->pins[1].rtask, -1);  // whole operator
  EXPECT_EQ(c->pins[1].veu, 7);
  EXPECT_EQ(c->pins[1].order, -1);
  EXPECT_EQ(c->cutBefore, (std::set<std::string>{"a2"}));
  EXPECT_EQ(c->noCutBefore, (std::set<std::string>{"a1"}));
  EXPECT_EQ(c->shapeFor, (std::map<std::string, int>{{"a2", 2}}));
  EXPECT_EQ(c->claimShardsFor, (std::map<std::string, int>{{"a1", 8}}));
}

TEST(ScheduleEdits, LaterEditsOverrideEarlierOnes) {
  auto c = parseScheduleEdits(R"({"version":1,"edits":[
    {"op":"cut_before","node":"x"}, {"op":"merge_before","node":"x"},
    {"op":"move","node":"y","rtask":0,"veu":1}, {"op":"move","node":"y","rtask":0,"veu":2}]})");
  ASSERT_TRUE(c.ok()) << c.errorText();
  EXPECT_TRUE(c->cutBefore.empty());
  EXPECT_EQ(c->noCutBefore.count("x"), 1u);
  ASSERT_EQ(c->pins.size(), 1u);
  EXPECT_EQ(c->pins[0].veu, 2);
}

TEST(ScheduleEdits, RoundTripsThroughJson) {
  auto c = parseScheduleEdits(kExample);
  ASSERT_TRUE(c.ok());
  const std::string json = scheduleEditsToJson(*c);
  auto again = parseScheduleEdits(json);
  ASSERT_TRUE(again.ok()) << again.errorText() << json;
  EXPECT_EQ(again->kernelFor, c->kernelFor);
  EXPECT_EQ(again->cutBefore, c->cutBefore);
  EXPECT_EQ(again->noCutBefore, c->noCutBefore);
  EXPECT_EQ(again->shapeFor, c->shapeFor);
  EXPECT_EQ(again->claimShardsFor, c->claimShardsFor);
  ASSERT_EQ(again->pins.size(), c->pins.size());
  for (size_t i = 0; i < c->pins.size(); ++i) {
    EXPECT_EQ(again->pins[i].node, c->pins[i].node);
    EXPECT_EQ(again->pins[i].rtask, c->pins[i].rtask);
    EXPECT_EQ(again->pins[i].veu, c->pins[i].veu);
    EXPECT_EQ(again->pins[i].order, c->pins[i].order);
  }
}

TEST(ScheduleEdits, ErrorsNameTheEditAndTheProblem) {
  const ir::Graph g = rt::chainGraph(2);
  auto err = [&](const std::string& text) {
    auto c = parseScheduleEdits(text, &g, "edits.json");
    EXPECT_FALSE(c.ok()) << text;
    return c.ok() ? std::string() : c.errorText();
  };
  EXPECT_NE(err("{not json").find("not valid JSON"), std::string::npos);
  EXPECT_NE(err("{not json").find("edits.json"), std::string::npos);
  EXPECT_NE(err(R"({"version":2,"edits":[]})").find("\"version\" must be 1"), std::string::npos);
  EXPECT_NE(err(R"({"version":1})").find("\"edits\" must be an array"), std::string::npos);
  EXPECT_NE(err(R"({"version":1,"edits":[{"op":"cut_before","node":"a0"},{"op":"swap","node":"a0"}]})")
                .find("edit 1: unknown op 'swap'"),
            std::string::npos);
  EXPECT_NE(err(R"({"version":1,"edits":[{"op":"cut_before","node":"zz"}]})").find("edit 0: unknown node 'zz'"),
            std::string::npos);
  EXPECT_NE(err(R"({"version":1,"edits":[{"op":"move","node":"a0","rtask":1}]})").find("edit 0: missing \"veu\""),
            std::string::npos);
  EXPECT_NE(err(R"({"version":1,"edits":[{"op":"move","node":"a0","veu":-1}]})").find("\"veu\" must be a non-negative"),
            std::string::npos);
  EXPECT_NE(err(R"({"version":1,"edits":[{"op":"pin_kernel","node":"a0"}]})").find("missing \"kernel\""),
            std::string::npos);
  EXPECT_NE(err(R"({"version":1,"edits":[{"op":"vdevice","node":"a0","veus_per_sm":3}]})")
                .find("edit 0: \"veus_per_sm\" must be 1, 2 or 4"),
            std::string::npos);
  EXPECT_NE(err(R"({"version":1,"edits":[{"op":"vdevice","node":"a0"}]})").find("missing \"veus_per_sm\""),
            std::string::npos);
  EXPECT_NE(err(R"({"version":1,"edits":[{"op":"claim_shards","node":"a0","shards":0}]})")
                .find("edit 0: \"shards\" must be 1 to 4096"),
            std::string::npos);
  EXPECT_NE(err(R"({"version":1,"edits":[{"op":"claim_shards","node":"a0","shards":5000}]})")
                .find("\"shards\" must be 1 to 4096"),
            std::string::npos);
  EXPECT_NE(err(R"({"version":1,"edits":[{"op":"claim_shards","node":"a0"}]})").find("missing \"shards\""),
            std::string::npos);
  EXPECT_NE(err(R"({"version":1,"edits":[3]})").find("edit 0: an edit must be an object"), std::string::npos);
  // Without a graph, node names are not checked.
  EXPECT_TRUE(parseScheduleEdits(R"({"version":1,"edits":[{"op":"cut_before","node":"zz"}]})").ok());
}

// An edit naming a node the passes fused into another stands for the fused
// node: "relu" in conv's epilogue, "add" and "tanh" in a FusedElementwise.
TEST(ScheduleEdits, NodesFusedIntoAnotherNameTheFusedNode) {
  ir::Graph g = rt::chainGraph(2);
  ir::Node conv;
  conv.name = "conv.fused";
  conv.opType = "FusedConv";
  conv.attrs.set("fused_nodes", std::vector<std::string>{"Conv:conv", "Relu:relu"});
  g.addNode(conv);
  ir::Node chain;
  chain.name = "add+fused";
  chain.opType = "FusedElementwise";
  chain.attrs.set("fused_nodes", std::vector<std::string>{"Add:add", "Tanh:tanh"});
  g.addNode(chain);
  auto c = parseScheduleEdits(R"({"version": 1, "edits": [
    {"op": "pin_kernel", "node": "conv", "kernel": "conv_igemm_32x32"},
    {"op": "move", "node": "relu", "veu": 3},
    {"op": "cut_before", "node": "tanh"},
    {"op": "move", "node": "a0", "veu": 1}]})",
                              &g);
  ASSERT_TRUE(c.ok()) << c.errorText();
  EXPECT_EQ(c->kernelFor.at("conv.fused"), "conv_igemm_32x32");
  ASSERT_EQ(c->pins.size(), 2u);
  EXPECT_EQ(c->pins[0].node, "conv.fused");
  EXPECT_EQ(c->pins[1].node, "a0");  // a live node is itself
  EXPECT_EQ(c->cutBefore, (std::set<std::string>{"add+fused"}));
  // A name that is neither is still refused.
  auto bad = parseScheduleEdits(R"({"version": 1, "edits": [{"op": "move", "node": "sigmoid", "veu": 1}]})", &g);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.errorText().find("unknown node 'sigmoid'"), std::string::npos) << bad.errorText();
}
