#include "samples/zoo/nasbench_dag.h"

#include <algorithm>
#include <stdexcept>

namespace rammer::samples {

namespace {

// Keeps the vertices on some input -> output path; false when there is none.
bool prune(NasBenchCell& cell) {
  const int n = cell.vertices();
  std::vector<bool> fromInput(n, false), toOutput(n, false);
  fromInput[0] = true;
  for (int j = 1; j < n; ++j)
    for (int i = 0; i < j; ++i) fromInput[j] = fromInput[j] || (fromInput[i] && cell.edge[i][j]);
  toOutput[n - 1] = true;
  for (int i = n - 2; i >= 0; --i)
    for (int j = i + 1; j < n; ++j) toOutput[i] = toOutput[i] || (toOutput[j] && cell.edge[i][j]);
  if (!toOutput[0]) return false;

  std::vector<int> keep;
  for (int v = 0; v < n; ++v)
    if (fromInput[v] && toOutput[v]) keep.push_back(v);
  NasBenchCell out;
  out.edge.assign(keep.size(), std::vector<bool>(keep.size(), false));
  for (size_t a = 0; a < keep.size(); ++a) {
    for (size_t c = a + 1; c < keep.size(); ++c) out.edge[a][c] = cell.edge[keep[a]][keep[c]];
    if (a > 0 && a + 1 < keep.size()) out.ops.push_back(cell.ops[keep[a] - 1]);
  }
  cell = std::move(out);
  return true;
}

}  // namespace

int NasBenchCell::edges() const {
  int count = 0;
  for (const auto& row : edge) count += static_cast<int>(std::count(row.begin(), row.end(), true));
  return count;
}

NasBenchCell randomNasBenchCell(WeightRng& rng) {
  // Like NAS-Bench-101's sampling: a random full-size DAG, pruned, kept when
  // it is within the edge budget. About a third of the draws are kept.
  for (;;) {
    NasBenchCell cell;
    const int n = kNasBenchMaxVertices;
    cell.edge.assign(n, std::vector<bool>(n, false));
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) cell.edge[i][j] = rng.below(2) == 1;
    for (int v = 1; v < n - 1; ++v) cell.ops.push_back(static_cast<NasBenchOp>(rng.below(3)));
    if (!prune(cell)) continue;
    if (cell.vertices() >= 3 && cell.edges() <= kNasBenchMaxEdges) return cell;
  }
}

std::vector<int64_t> nasBenchVertexChannels(const NasBenchCell& cell, int64_t inChannels, int64_t outChannels) {
  const int n = cell.vertices();
  std::vector<int64_t> ch(static_cast<size_t>(n), 0);
  ch[0] = inChannels;
  ch[n - 1] = outChannels;
  if (n == 2) return ch;
  int64_t fanIn = 0;  // interior vertices feeding the output
  for (int v = 1; v < n - 1; ++v) fanIn += cell.edge[v][n - 1] ? 1 : 0;
  if (fanIn == 0) throw std::invalid_argument("NAS-Bench cell: no interior vertex feeds the output");
  int64_t extra = outChannels % fanIn;
  for (int v = 1; v < n - 1; ++v) {
    if (!cell.edge[v][n - 1]) continue;
    ch[v] = outChannels / fanIn;
    if (extra > 0) {
      ++ch[v];
      --extra;
    }
  }
  for (int v = n - 3; v > 0; --v) {
    if (cell.edge[v][n - 1]) continue;
    for (int dst = v + 1; dst < n - 1; ++dst)
      if (cell.edge[v][dst]) ch[v] = std::max(ch[v], ch[dst]);
  }
  return ch;
}

}  // namespace rammer::samples
