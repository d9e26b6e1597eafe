#include "samples/zoo/randwire_graph.h"

#include <stdexcept>

namespace rammer::samples {

int RandomDag::edges() const {
  int count = 0;
  for (const auto& p : preds) count += static_cast<int>(p.size());
  return count;
}

std::vector<int> RandomDag::inputs() const {
  std::vector<int> out;
  for (int j = 0; j < nodes(); ++j)
    if (preds[static_cast<size_t>(j)].empty()) out.push_back(j);
  return out;
}

std::vector<int> RandomDag::outputs() const {
  std::vector<bool> feeds(preds.size(), false);
  for (const auto& p : preds)
    for (int i : p) feeds[static_cast<size_t>(i)] = true;
  std::vector<int> out;
  for (int j = 0; j < nodes(); ++j)
    if (!feeds[static_cast<size_t>(j)]) out.push_back(j);
  return out;
}

RandomDag wattsStrogatzDag(int n, int k, float p, WeightRng& rng) {
  if (k < 2 || k % 2 != 0 || n <= k) throw std::invalid_argument("Watts-Strogatz graph needs n > k >= 2, k even");
  const auto un = static_cast<size_t>(n);
  std::vector<std::vector<bool>> adj(un, std::vector<bool>(un, false));
  std::vector<int> degree(un, 0);
  auto link = [&](int a, int b, bool on) {
    adj[static_cast<size_t>(a)][static_cast<size_t>(b)] = on;
    adj[static_cast<size_t>(b)][static_cast<size_t>(a)] = on;
    degree[static_cast<size_t>(a)] += on ? 1 : -1;
    degree[static_cast<size_t>(b)] += on ? 1 : -1;
  };
  for (int u = 0; u < n; ++u)
    for (int j = 1; j <= k / 2; ++j) link(u, (u + j) % n, true);
  // Edge (u, u+j) is only ever moved here, by u itself, so it still exists
  // when its turn comes.
  for (int j = 1; j <= k / 2; ++j) {
    for (int u = 0; u < n; ++u) {
      if (!(rng.unit() < p) || degree[static_cast<size_t>(u)] >= n - 1) continue;
      int w = 0;
      do {
        w = static_cast<int>(rng.below(static_cast<uint32_t>(n)));
      } while (w == u || adj[static_cast<size_t>(u)][static_cast<size_t>(w)]);
      link(u, (u + j) % n, false);
      link(u, w, true);
    }
  }
  RandomDag dag;
  dag.preds.resize(un);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < j; ++i)
      if (adj[static_cast<size_t>(i)][static_cast<size_t>(j)]) dag.preds[static_cast<size_t>(j)].push_back(i);
  return dag;
}

}  // namespace rammer::samples
