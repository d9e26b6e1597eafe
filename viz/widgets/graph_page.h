#pragma once
// The Graph dock's page: a toolbar (search box with match count and
// previous/next, zoom, fit, expand/collapse fused groups) over a GraphView,
// and a note while the layout runs. The main window embeds this page and
// wires view()'s signals to the timeline and the inspector.
#include <QWidget>

class QLabel;
class QLineEdit;

namespace rammer::viz {

class GraphView;

class GraphPage : public QWidget {
  Q_OBJECT
 public:
  explicit GraphPage(QWidget* parent = nullptr);

  GraphView* view() const { return view_; }
  QLineEdit* searchBox() const { return search_; }

 public slots:
  // Puts the cursor in the search box (the window's Ctrl+F).
  void focusSearch();

 private:
  void updateMatchLabel(int matches, int current);

  GraphView* view_ = nullptr;
  QLineEdit* search_ = nullptr;
  QLabel* matchLabel_ = nullptr;
  QLabel* status_ = nullptr;
};

}  // namespace rammer::viz
