#include "viz/widgets/cuda_highlighter.h"

#include <QColor>
#include <QStringList>

namespace rammer::viz {

namespace {

QRegularExpression words(const QStringList& list) {
  return QRegularExpression(QStringLiteral("\\b(?:%1)\\b").arg(list.join(QLatin1Char('|'))));
}

}  // namespace

CudaHighlighter::CudaHighlighter(QTextDocument* document) : QSyntaxHighlighter(document) {
  rules_.push_back({words({"if", "else", "for", "while", "do", "switch", "case", "default", "break", "continue",
                           "return", "goto", "static", "const", "constexpr", "inline", "extern", "volatile",
                           "struct", "class", "namespace", "using", "typedef", "template", "typename", "sizeof",
                           "nullptr", "true", "false", "auto", "register", "restrict", "__restrict__"}),
                    Kind::Keyword});
  rules_.push_back({words({"void", "bool", "char", "short", "int", "long", "unsigned", "signed", "float", "double",
                           "size_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t",
                           "uint64_t", "half", "__half", "dim3", "float2", "float4", "int2", "int4"}),
                    Kind::Type});
  // CUDA/HIP qualifiers (__global__, __device__, __shared__, ...), intrinsics
  // (__syncthreads, __threadfence, __hip_atomic_load, ...) and index built-ins.
  rules_.push_back({QRegularExpression(QStringLiteral("\\b__\\w+\\b")), Kind::Builtin});
  rules_.push_back({words({"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "atomicAdd", "atomicCAS",
                           "atomicExch", "asm"}),
                    Kind::Builtin});
  rules_.push_back({QRegularExpression(QStringLiteral(
                        "\\b(?:0[xX][0-9A-Fa-f]+|\\d+\\.?\\d*(?:[eE][+-]?\\d+)?|\\.\\d+(?:[eE][+-]?\\d+)?)[uUlLfF]*\\b")),
                    Kind::Number});
  rules_.push_back({QRegularExpression(QStringLiteral("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)'")), Kind::String});
  rules_.push_back({QRegularExpression(QStringLiteral("^\\s*#.*$")), Kind::Preprocessor});
  rules_.push_back({QRegularExpression(QStringLiteral("//.*$")), Kind::Comment});
}

QTextCharFormat CudaHighlighter::format(Kind kind) const {
  QTextCharFormat f;
  switch (kind) {
    case Kind::Keyword:
      f.setForeground(QColor(0x1f, 0x4e, 0xb4));
      f.setFontWeight(QFont::Bold);
      break;
    case Kind::Type: f.setForeground(QColor(0x00, 0x80, 0x80)); break;
    case Kind::Builtin: f.setForeground(QColor(0x8a, 0x2b, 0xe2)); break;
    case Kind::Number: f.setForeground(QColor(0xb0, 0x5a, 0x00)); break;
    case Kind::String: f.setForeground(QColor(0x2e, 0x8b, 0x22)); break;
    case Kind::Preprocessor: f.setForeground(QColor(0x99, 0x33, 0x66)); break;
    case Kind::Comment:
      f.setForeground(QColor(0x70, 0x70, 0x70));
      f.setFontItalic(true);
      break;
  }
  return f;
}

void CudaHighlighter::highlightBlock(const QString& text) {
  for (const Rule& rule : rules_) {
    const QTextCharFormat f = format(rule.kind);
    for (auto it = rule.pattern.globalMatch(text); it.hasNext();) {
      const auto m = it.next();
      setFormat(static_cast<int>(m.capturedStart()), static_cast<int>(m.capturedLength()), f);
    }
  }
  // Block comments last: they win over everything inside them. State 1 =
  // this block ends inside a /* */ comment.
  const QTextCharFormat comment = format(Kind::Comment);
  setCurrentBlockState(0);
  qsizetype start = previousBlockState() == 1 ? 0 : text.indexOf(commentStart_);
  while (start >= 0) {
    const auto end = commentEnd_.match(text, previousBlockState() == 1 && start == 0 ? 0 : start + 2);
    qsizetype length;
    if (!end.hasMatch()) {
      setCurrentBlockState(1);
      length = text.size() - start;
    } else {
      length = end.capturedEnd() - start;
    }
    setFormat(static_cast<int>(start), static_cast<int>(length), comment);
    start = text.indexOf(commentStart_, start + length);
  }
}

}  // namespace rammer::viz
