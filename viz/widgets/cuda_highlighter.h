#pragma once
// Syntax colours for the generated CUDA and HIP: keywords, types, CUDA/HIP
// qualifiers and built-ins, numbers, strings, preprocessor lines and
// comments (// and multi-line /* */, carried across blocks).
#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>
#include <vector>

namespace rammer::viz {

class CudaHighlighter : public QSyntaxHighlighter {
  Q_OBJECT

 public:
  enum class Kind { Keyword, Type, Builtin, Number, String, Preprocessor, Comment };

  explicit CudaHighlighter(QTextDocument* document);
  // The format a kind is drawn with (tests compare against it).
  QTextCharFormat format(Kind kind) const;

 protected:
  void highlightBlock(const QString& text) override;

 private:
  struct Rule {
    QRegularExpression pattern;
    Kind kind;
  };
  std::vector<Rule> rules_;  // later rules win where they overlap
  QRegularExpression commentStart_{QStringLiteral("/\\*")};
  QRegularExpression commentEnd_{QStringLiteral("\\*/")};
};

}  // namespace rammer::viz
