#include "app/studio/placeholder_page.h"

namespace rammer::studio {

PlaceholderPage::PlaceholderPage(const QString& what, QWidget* parent) : QLabel(what, parent) {
  setAlignment(Qt::AlignCenter);
  setWordWrap(true);
  setEnabled(false);
  setMargin(12);
}

}  // namespace rammer::studio
