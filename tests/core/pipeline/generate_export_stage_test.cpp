// The Generate and Export stages: the branch after Simulate (a request to
// Export never runs the plan, one to Run never writes a project), the
// generated code for the target asked, the project's expected outputs from
// the reference executor on the imported graph, and failures, re-runs and
// cancels as the other stages have them.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/exec/random_inputs.h"
#include "core/exec/reference_executor.h"
#include "core/pipeline/generate_stage.h"
#include "core/pipeline/pipeline.h"

namespace rammer::pipeline {
namespace {

namespace fs = std::filesystem;

Options cnnOptions() {
  Options o;
  o.modelPath = RAMMER_SOURCE_DIR "/samples/models/sample_cnn.onnx";
  o.import.batch = 1;
  o.run.target = RunTarget::Emulator;
  return o;
}

fs::path freshDir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("rammer_export_stage_" + name);
  fs::remove_all(dir);
  return dir;
}

std::vector<float> readFloats(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<float> out(bytes.size() / sizeof(float));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
  return out;
}

TEST(StageOrder, RunAndGenerateBranchAfterSimulate) {
  EXPECT_EQ(stagesBetween(Stage::Import, Stage::Export),
            (std::vector<Stage>{Stage::Import, Stage::Optimize, Stage::Schedule, Stage::Validate, Stage::Simulate,
                                Stage::Generate, Stage::Export}));
  EXPECT_EQ(stagesBetween(Stage::Schedule, Stage::Run),
            (std::vector<Stage>{Stage::Schedule, Stage::Validate, Stage::Simulate, Stage::Run}));
  EXPECT_EQ(stagesBetween(Stage::Run, Stage::Export), (std::vector<Stage>{Stage::Generate, Stage::Export}));
  EXPECT_EQ(stagesBetween(Stage::Generate, Stage::Generate), (std::vector<Stage>{Stage::Generate}));
  EXPECT_TRUE(stageDependsOn(Stage::Export, Stage::Schedule));
  EXPECT_TRUE(stageDependsOn(Stage::Export, Stage::Generate));
  EXPECT_FALSE(stageDependsOn(Stage::Export, Stage::Run));
  EXPECT_FALSE(stageDependsOn(Stage::Run, Stage::Generate));
  EXPECT_EQ(stageBefore(Stage::Import), std::nullopt);
  for (int s = static_cast<int>(kFirstStage); s <= static_cast<int>(kLastStage); ++s)
    EXPECT_EQ(stageNamed(stageName(static_cast<Stage>(s))), static_cast<Stage>(s));
}

TEST(ExportStage, WritesTheProjectWithoutRunningThePlan) {
  Options o = cnnOptions();
  o.generate.target = codegen::Target::Host;
  o.project.dir = freshDir("host");
  o.project.inputSeed = 7;
  Pipeline p(o);
  const Report r = p.run(Stage::Import, Stage::Export);
  ASSERT_TRUE(r.ok()) << ir::formatDiagnostics(r.diagnostics);
  EXPECT_TRUE(r.done(Stage::Simulate));
  EXPECT_TRUE(r.done(Stage::Generate));
  EXPECT_TRUE(r.done(Stage::Export));
  EXPECT_FALSE(r.done(Stage::Run));
  const Artifacts& a = p.artifacts();
  EXPECT_FALSE(a.run);
  ASSERT_TRUE(a.generated && a.exported);
  EXPECT_EQ(a.generated->target, codegen::Target::Host);
  EXPECT_FALSE(a.generated->launches.empty());
  EXPECT_EQ(a.exported->buildCommand, codegen::buildCommand(codegen::Target::Host));
  for (const fs::path& f : a.exported->files) EXPECT_TRUE(fs::exists(f)) << f;
  std::ifstream manifest(o.project.dir / "manifest.txt");
  const std::string text((std::istreambuf_iterator<char>(manifest)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("sample_cnn.onnx"), std::string::npos) << "the model's file name names the project";

  // The project checks against the reference executor on the imported
  // graph, with the seeded inputs.
  auto inputs = exec::makeRandomInputs(*a.original, 7);
  ASSERT_TRUE(inputs);
  auto expected = exec::runReference(*a.original, *inputs);
  ASSERT_TRUE(expected);
  ASSERT_EQ(expected->size(), 1u);
  const std::vector<float> written = readFloats(o.project.dir / "data/expected_0.bin");
  ASSERT_EQ(static_cast<int64_t>(written.size()), (*expected)[0].numel());
  EXPECT_EQ(0, std::memcmp(written.data(), (*expected)[0].data<float>(), written.size() * sizeof(float)));
  fs::remove_all(o.project.dir);
}

TEST(GenerateStage, GivesTheTargetAskedForAndKeepsTheRunsValue) {
  Options o = cnnOptions();
  o.generate.target = codegen::Target::Hip;
  Pipeline p(o);
  ASSERT_TRUE(p.run(Stage::Import, Stage::Run).ok());
  const auto run = p.artifacts().run;
  ASSERT_TRUE(run);
  EXPECT_FALSE(p.artifacts().generated) << "a request to Run generates nothing for the Generate stage";

  const Report r = p.run(Stage::Generate, Stage::Generate);
  ASSERT_TRUE(r.ok()) << ir::formatDiagnostics(r.diagnostics);
  ASSERT_TRUE(p.artifacts().generated);
  EXPECT_EQ(p.artifacts().generated->target, codegen::Target::Hip);
  EXPECT_NE(p.artifacts().generated->source.find("hip"), std::string::npos);
  EXPECT_EQ(p.artifacts().run, run) << "Generate does not read the Run stage's value, so it keeps it";
  ASSERT_EQ(r.log.size(), 1u);
  EXPECT_EQ(r.log[0].rfind("generated " + codeSummary(*p.artifacts().generated), 0), 0u) << r.log[0];

  // Re-planning drops both branches' values.
  ASSERT_TRUE(p.run(Stage::Schedule, Stage::Simulate).ok());
  EXPECT_FALSE(p.artifacts().generated);
  EXPECT_FALSE(p.artifacts().run);
}

TEST(ExportStage, RefusesAMissingFolderAndNeedsGeneratedCode) {
  Pipeline p(cnnOptions());
  const Report r = p.run(Stage::Import, Stage::Export);
  ASSERT_EQ(r.failedStage, Stage::Export);
  ASSERT_FALSE(r.errors().empty());
  EXPECT_EQ(r.errors()[0].stage, "export");
  EXPECT_NE(r.errors()[0].message.find("no folder"), std::string::npos) << r.errors()[0].message;
  EXPECT_TRUE(p.artifacts().generated) << "the Generate stage before it succeeded";
  EXPECT_FALSE(p.artifacts().exported);

  Pipeline fresh(cnnOptions());
  const Report alone = fresh.run(Stage::Export, Stage::Export);
  ASSERT_EQ(alone.failedStage, Stage::Export);
  EXPECT_NE(alone.errors()[0].message.find("no generated code yet"), std::string::npos);
}

TEST(ExportStage, ACancelWritesNothing) {
  Options o = cnnOptions();
  o.project.dir = freshDir("cancel");
  Pipeline p(o);
  ASSERT_TRUE(p.run(Stage::Import, Stage::Generate).ok());
  std::atomic<bool> cancel{false};
  Control control;
  control.cancel = &cancel;
  // Cancel once the Export stage starts computing the expected outputs.
  control.progress = [&cancel](const std::string& what, int) {
    if (what.rfind("Computing the expected outputs", 0) == 0) cancel = true;
  };
  const Report r = p.run(Stage::Export, Stage::Export, control);
  EXPECT_TRUE(r.cancelled);
  EXPECT_FALSE(p.artifacts().exported);
  EXPECT_FALSE(fs::exists(o.project.dir / "manifest.txt"));
  EXPECT_TRUE(p.artifacts().generated) << "a cancelled export keeps the generated code";
}

}  // namespace
}  // namespace rammer::pipeline
