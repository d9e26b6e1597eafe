#include "viz/widgets/graph_node_item.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QTextOption>
#include <algorithm>

#include "viz/models/op_category_style.h"

namespace rammer::viz {

namespace {

// Scene units are pixels at 100 % zoom; pixel-sized fonts keep the boxes the
// layout reserved and the text painted in them the same size everywhere.
struct Fonts {
  QFont title, name, body;
};

Fonts fonts() {
  Fonts f;
  f.title.setPixelSize(12);
  f.title.setBold(true);
  f.name.setPixelSize(10);
  f.body.setPixelSize(10);
  return f;
}

constexpr double kPad = 8;          // text inset
constexpr double kMinWidth = 72;
constexpr double kMaxWidth = 240;   // longer names are elided
constexpr double kMaxExpandedWidth = 340;
constexpr double kToggle = 12;      // the +/− square of a fused group
constexpr double kRadius = 5;
constexpr int kMaxExprLines = 6;

QColor rgb(uint32_t c) { return QColor::fromRgb((c >> 16) & 0xFF, (c >> 8) & 0xFF, c & 0xFF); }

QString qs(const std::string& s) { return QString::fromStdString(s); }

// "Relu:conv1/relu" -> ("Relu", "conv1/relu").
std::pair<QString, QString> splitMember(const std::string& m) {
  const size_t colon = m.find(':');
  if (colon == std::string::npos) return {qs(m), {}};
  return {qs(m.substr(0, colon)), qs(m.substr(colon + 1))};
}

QString badge(const DisplayNode& n) { return QString::number(n.fusedMembers.size()) + " ops"; }

double headerHeight(const Fonts& f) {
  return kPad / 2 + QFontMetricsF(f.title).height() + QFontMetricsF(f.name).height() + kPad / 2;
}

// Lines of the expanded body: one per fused op, then the wrapped expression.
QStringList bodyLines(const DisplayNode& n, const Fonts& f, double width) {
  QStringList lines;
  const QFontMetricsF fm(f.body);
  for (const std::string& m : n.fusedMembers) {
    auto [type, name] = splitMember(m);
    lines << fm.elidedText(type + "  " + name, Qt::ElideMiddle, width);
  }
  // Wrap the expression at spaces; very long ones are cut with an ellipsis.
  const QStringList words = qs("= " + n.expr).split(' ', Qt::SkipEmptyParts);
  QString line;
  int exprLines = 0;
  for (const QString& w : words) {
    const QString candidate = line.isEmpty() ? w : line + ' ' + w;
    if (fm.horizontalAdvance(candidate) <= width || line.isEmpty()) {
      line = candidate;
      continue;
    }
    if (++exprLines == kMaxExprLines) {
      line += QString::fromUtf8(" \u2026");
      break;
    }
    lines << fm.elidedText(line, Qt::ElideRight, width);
    line = w;
  }
  if (!line.isEmpty()) lines << fm.elidedText(line, Qt::ElideRight, width);
  return lines;
}

}  // namespace

GraphNodeItem::GraphNodeItem(const DisplayNode& node, int displayIndex) : node_(node), index_(displayIndex) {
  setFlag(ItemIsSelectable, true);
  setAcceptHoverEvents(false);
  setZValue(1);
  const LayoutSize s = measure(node_, false);
  box_ = QRectF(0, 0, s.width, s.height);
  // The full text where the box elides it.
  QString tip = qs(node_.title) + QString::fromUtf8(" \u2014 ") + qs(node_.name);
  if (!node_.expr.empty()) tip += "\n= " + qs(node_.expr);
  if (isLayer()) tip += QStringLiteral("\nDouble-click to unfold this layer");
  setToolTip(tip);
}

LayoutSize GraphNodeItem::measure(const DisplayNode& node, bool expanded) {
  const Fonts f = fonts();
  const QFontMetricsF title(f.title), name(f.name);
  if (node.isTerminal()) {
    const double w = std::clamp(title.horizontalAdvance(qs(node.name)) + 2 * kPad + 8, kMinWidth, kMaxWidth);
    return {w, name.height() + title.height() + 4};
  }
  // +2: elidedText elides text whose width equals the space to the pixel.
  double w = std::max(title.horizontalAdvance(qs(node.title)), name.horizontalAdvance(qs(node.name))) + 2 * kPad + 2;
  if (node.isFusedGroup()) w += kToggle + name.horizontalAdvance(badge(node)) + kPad;
  w = std::clamp(w, kMinWidth, kMaxWidth);
  double h = headerHeight(f);
  if (expanded && node.isFusedGroup()) {
    const QFontMetricsF body(f.body);
    double bodyWidth = w - 2 * kPad;
    for (const std::string& m : node.fusedMembers) {
      auto [type, nm] = splitMember(m);
      bodyWidth = std::max(bodyWidth, body.horizontalAdvance(type + "  " + nm));
    }
    w = std::clamp(bodyWidth + 2 * kPad, w, kMaxExpandedWidth);
    h += kPad / 2 + bodyLines(node, f, w - 2 * kPad).size() * body.height() + kPad / 2;
  }
  return {w, h};
}

QRectF GraphNodeItem::boundingRect() const {
  // Room for the selection/search outline drawn outside the box.
  return box_.adjusted(-4, -4, 4, 4);
}

QPainterPath GraphNodeItem::shape() const {
  QPainterPath p;
  p.addRoundedRect(box_, kRadius, kRadius);
  return p;
}

void GraphNodeItem::place(QPointF centre, QSizeF size) {
  prepareGeometryChange();
  box_ = QRectF(0, 0, size.width(), size.height());
  setPos(centre - box_.center());
}

void GraphNodeItem::setExpanded(bool expanded) {
  if (expanded == expanded_ || !node_.isFusedGroup()) return;
  const QPointF c = centre();
  expanded_ = expanded;
  const LayoutSize s = measure(node_, expanded_);
  place(c, QSizeF(s.width, s.height));
  // Drawn over its neighbours until the relayout makes room.
  setZValue(expanded_ ? 2 : 1);
}

QRectF GraphNodeItem::toggleRect() const {
  if (!node_.isFusedGroup()) return {};
  const double top = kPad / 2 + 2;
  return QRectF(box_.right() - kPad - kToggle, top, kToggle, kToggle);
}

void GraphNodeItem::setMatched(bool matched) {
  if (matched == matched_) return;
  matched_ = matched;
  update();
}

void GraphNodeItem::setCurrentMatch(bool current) {
  if (current == current_) return;
  current_ = current;
  update();
}

void GraphNodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
  painter->save();
  if (node_.isTerminal()) paintTerminal(painter, lod);
  else paintOperator(painter, lod);

  // Outlines: selection wins over search; the current hit is thicker.
  QColor outline;
  double width = 0;
  if (isSelected()) {
    outline = QColor(0xFF, 0x8F, 0x00);
    width = 3;
  } else if (matched_) {
    outline = QColor(0xFF, 0xD6, 0x00);
    width = current_ ? 4 : 2.5;
  }
  if (width > 0) {
    // Keep outlines visible when zoomed far out.
    painter->setPen(QPen(outline, width / std::min(1.0, std::max(lod, 0.05))));
    painter->setBrush(Qt::NoBrush);
    painter->drawRoundedRect(box_.adjusted(-1, -1, 1, 1), kRadius + 1, kRadius + 1);
  }
  painter->restore();
}

void GraphNodeItem::paintOperator(QPainter* p, double lod) {
  const Fonts f = fonts();
  const CategoryStyle& style = styleFor(node_.category);
  const QColor fill = rgb(style.fill);
  const QColor text = rgb(style.text);
  const double header = expanded_ ? headerHeight(f) : box_.height();

  p->setPen(Qt::NoPen);
  if (expanded_) {
    p->setBrush(QColor(0xFA, 0xFA, 0xFA));
    p->setPen(QPen(fill, 1.5));
    p->drawRoundedRect(box_, kRadius, kRadius);
    p->setPen(Qt::NoPen);
    p->setBrush(fill);
    QPainterPath head;
    head.addRoundedRect(QRectF(box_.left(), box_.top(), box_.width(), header), kRadius, kRadius);
    p->drawPath(head);
  } else if (isLayer()) {
    // A folded layer: a box with a dashed frame, "a stack of operators".
    p->setBrush(QColor(0xEC, 0xEF, 0xF1));
    p->setPen(QPen(QColor(0x54, 0x6E, 0x7A), 1.5, Qt::DashLine));
    p->drawRoundedRect(box_.adjusted(1, 1, -1, -1), kRadius, kRadius);
    p->setPen(Qt::NoPen);
  } else {
    p->setBrush(fill);
    p->drawRoundedRect(box_, kRadius, kRadius);
  }
  // Far out, text is unreadable noise: boxes only.
  if (lod < kTextFromZoom) return;

  const QFontMetricsF titleFm(f.title), nameFm(f.name);
  double textRight = box_.right() - kPad;
  if (node_.isFusedGroup()) {
    const QRectF t = toggleRect();
    p->setPen(QPen(text, 1.2));
    p->setBrush(Qt::NoBrush);
    p->drawRect(t);
    p->drawLine(QPointF(t.left() + 3, t.center().y()), QPointF(t.right() - 3, t.center().y()));
    if (!expanded_) p->drawLine(QPointF(t.center().x(), t.top() + 3), QPointF(t.center().x(), t.bottom() - 3));
    p->setFont(f.name);
    const QString b = badge(node_);
    const double bw = nameFm.horizontalAdvance(b);
    p->drawText(QPointF(t.left() - 4 - bw, t.bottom() - 2), b);
    textRight = t.left() - 4 - bw - 4;
  }
  p->setPen(isLayer() ? QColor(0x26, 0x32, 0x38) : text);
  const double y0 = box_.top() + kPad / 2;
  p->setFont(f.title);
  p->drawText(QRectF(box_.left() + kPad, y0, textRight - box_.left() - kPad, titleFm.height()),
              Qt::AlignLeft | Qt::AlignVCenter,
              titleFm.elidedText(qs(node_.title), Qt::ElideRight, textRight - box_.left() - kPad));
  p->setFont(f.name);
  const double nameWidth = box_.width() - 2 * kPad;
  p->drawText(QRectF(box_.left() + kPad, y0 + titleFm.height(), nameWidth, nameFm.height()),
              Qt::AlignLeft | Qt::AlignVCenter, nameFm.elidedText(qs(node_.name), Qt::ElideMiddle, nameWidth));

  if (!expanded_) return;
  p->setFont(f.body);
  p->setPen(QColor(0x30, 0x30, 0x30));
  const QFontMetricsF bodyFm(f.body);
  double y = box_.top() + header + kPad / 2;
  for (const QString& line : bodyLines(node_, f, box_.width() - 2 * kPad)) {
    p->drawText(QRectF(box_.left() + kPad, y, box_.width() - 2 * kPad, bodyFm.height()),
                Qt::AlignLeft | Qt::AlignVCenter, line);
    y += bodyFm.height();
  }
}

void GraphNodeItem::paintTerminal(QPainter* p, double lod) {
  const Fonts f = fonts();
  p->setPen(QPen(QColor(0x9E, 0x9E, 0x9E), 1));
  p->setBrush(rgb(kTerminalFill));
  const double r = box_.height() / 2;
  p->drawRoundedRect(box_, r, r);
  if (lod < kTextFromZoom) return;
  p->setPen(rgb(kTerminalText));
  const QFontMetricsF small(f.name);
  QFont kind = f.name;
  kind.setItalic(true);
  p->setFont(kind);
  const double w = box_.width() - 2 * kPad;
  p->drawText(QRectF(box_.left() + kPad, box_.top() + 2, w, small.height()), Qt::AlignHCenter | Qt::AlignVCenter,
              qs(node_.title));
  p->setFont(f.title);
  const QFontMetricsF big(f.title);
  p->drawText(QRectF(box_.left() + kPad, box_.top() + 2 + small.height(), w, big.height()),
              Qt::AlignHCenter | Qt::AlignVCenter, big.elidedText(qs(node_.name), Qt::ElideMiddle, w));
}

}  // namespace rammer::viz
