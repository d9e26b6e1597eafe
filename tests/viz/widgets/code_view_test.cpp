// The Code dock: the highlighter gives keywords, types, built-ins,
// numbers, strings, preprocessor lines and comments (also across lines)
// their formats; the view generates sample_cnn's CUDA and HIP on a worker
// and jumps from an operator to its rKernel function and from a program to
// its kernel.
#include "viz/widgets/code_view.h"

#include <gtest/gtest.h>

#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextLayout>

#include "tests/viz/editing_fixtures.h"
#include "viz/widgets/cuda_highlighter.h"

namespace rammer::viz {
namespace {

constexpr int kWaitMs = 120000;

// The format applied at `pos` of `block` (an empty format when none).
QTextCharFormat formatAt(const QTextBlock& block, int pos) {
  for (const auto& r : block.layout()->formats())
    if (pos >= r.start && pos < r.start + r.length) return r.format;
  return {};
}

TEST(CudaHighlighterTest, MarksEachKind) {
  QTextDocument doc;
  doc.setPlainText(
      "#include <cuda.h>\n"                                   // 0
      "extern \"C\" __global__ void k(float* x) { // note\n"  // 1
      "  for (int i = 42; i < 0x10; ++i) __syncthreads();\n"  // 2
      "  /* a block\n"                                        // 3
      "     comment int */ return;\n"                         // 4
      "}\n");
  CudaHighlighter h(&doc);
  h.rehighlight();
  using K = CudaHighlighter::Kind;
  auto is = [&](int line, int pos, K kind) {
    return formatAt(doc.findBlockByNumber(line), pos).foreground() == h.format(kind).foreground();
  };
  const QString l1 = doc.findBlockByNumber(1).text();
  const QString l2 = doc.findBlockByNumber(2).text();
  EXPECT_TRUE(is(0, 0, K::Preprocessor));
  EXPECT_TRUE(is(1, 0, K::Keyword));                              // extern
  EXPECT_TRUE(is(1, l1.indexOf("\"C\""), K::String));
  EXPECT_TRUE(is(1, l1.indexOf("__global__"), K::Builtin));
  EXPECT_TRUE(is(1, l1.indexOf("void"), K::Type));
  EXPECT_TRUE(is(1, l1.indexOf("float"), K::Type));
  EXPECT_TRUE(is(1, l1.indexOf("// note") + 3, K::Comment));
  EXPECT_FALSE(formatAt(doc.findBlockByNumber(1), l1.indexOf(" k(") + 1).foreground().style() != Qt::NoBrush);
  EXPECT_TRUE(is(2, l2.indexOf("for"), K::Keyword));
  EXPECT_TRUE(is(2, l2.indexOf("42"), K::Number));
  EXPECT_TRUE(is(2, l2.indexOf("0x10"), K::Number));
  EXPECT_TRUE(is(2, l2.indexOf("__syncthreads"), K::Builtin));
  EXPECT_TRUE(is(3, 4, K::Comment));
  // Still inside the block comment on the next line, "int" included.
  EXPECT_TRUE(is(4, doc.findBlockByNumber(4).text().indexOf("int"), K::Comment));
  EXPECT_TRUE(is(4, doc.findBlockByNumber(4).text().indexOf("return"), K::Keyword));
  EXPECT_NE(h.format(K::Keyword).foreground(), h.format(K::Comment).foreground());
}

class CodeViewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    result = viztest::planSampleCnn();
    ASSERT_TRUE(result.artifacts.plan && result.artifacts.optimized);
  }
  bool generate() {
    QSignalSpy done(&view, &CodeView::generated);
    if (!view.isGenerating()) return false;
    if (!done.wait(kWaitMs)) return false;
    return done.first().first().toBool();
  }
  PipelineResult result;
  CodeView view;
};

TEST_F(CodeViewTest, JumpsToTheOpsFunctionAndTheProgramsKernel) {
  view.setPlan(result.artifacts.plan, result.artifacts.optimized);
  ASSERT_TRUE(generate()) << view.source().toStdString();
  EXPECT_TRUE(view.source().contains("__global__"));
  const int stem = viztest::opIndex(*result.artifacts.plan, "stem");
  ASSERT_GE(stem, 0);
  ASSERT_TRUE(view.jumpToOp(stem));
  const QString selected = view.editor()->textCursor().selectedText();
  EXPECT_TRUE(selected.startsWith("// group ")) << selected.toStdString();
  EXPECT_TRUE(selected.contains(QString::fromStdString(result.artifacts.plan->ops[static_cast<size_t>(stem)].kernel.name)));
  EXPECT_EQ(view.selectedLines().first, view.index().ops[static_cast<size_t>(stem)].first);

  ASSERT_TRUE(view.jumpToProgram(0));
  const QString kernel = view.editor()->textCursor().selectedText();
  EXPECT_TRUE(kernel.contains("__global__")) << kernel.toStdString();
  EXPECT_TRUE(kernel.contains("rammer_p0")) << kernel.toStdString();

  // Views have no code; out of range is refused.
  for (size_t op = 0; op < result.artifacts.plan->ops.size(); ++op)
    if (result.artifacts.plan->ops[op].isView) {
      EXPECT_FALSE(view.jumpToOp(static_cast<int>(op)));
    }
  EXPECT_FALSE(view.jumpToOp(-1));
  EXPECT_FALSE(view.jumpToProgram(static_cast<int>(result.artifacts.plan->programs.size())));
}

TEST_F(CodeViewTest, HipToggleRegeneratesAndAJumpAskedWhileGeneratingLands) {
  view.setPlan(result.artifacts.plan, result.artifacts.optimized);
  ASSERT_TRUE(generate());
  EXPECT_FALSE(view.source().contains("hip/hip_runtime.h"));
  view.setTarget(codegen::Target::Hip);
  const int stem = viztest::opIndex(*result.artifacts.plan, "stem");
  EXPECT_TRUE(view.jumpToOp(stem));  // queued
  ASSERT_TRUE(generate());
  EXPECT_TRUE(view.source().contains("hip/hip_runtime.h"));
  EXPECT_EQ(view.selectedLines().first, view.index().ops[static_cast<size_t>(stem)].first);
  EXPECT_TRUE(view.statusText().startsWith("HIP")) << view.statusText().toStdString();
  view.setPlan(nullptr, nullptr);
  EXPECT_TRUE(view.source().isEmpty());
}

}  // namespace
}  // namespace rammer::viz
