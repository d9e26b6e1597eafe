#pragma once
// A dock page that is not written yet: says what will be there, so the
// dock layout (and a saved state) already has its place.
#include <QLabel>

namespace rammer::studio {

class PlaceholderPage : public QLabel {
  Q_OBJECT
 public:
  PlaceholderPage(const QString& what, QWidget* parent = nullptr);
};

}  // namespace rammer::studio
