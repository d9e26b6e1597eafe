#include "core/schedule/ordering_clocks.h"

#include <algorithm>

namespace rammer::schedule {

// Baseline x86-64 has no packed 32-bit max (SSE4.1); an AVX2 clone is
// picked at load time where the CPU has it.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void joinKnowledge(Knowledge& into, const Knowledge& other) {
  int32_t* a = into.data();
  const int32_t* b = other.data();
  const size_t n = std::min(into.size(), other.size());
  for (size_t u = 0; u < n; ++u) a[u] = std::max(a[u], b[u]);
}

LastSlots lastSlotsByOp(const RProgram& prog, const std::function<bool(RTask)>& counts) {
  LastSlots out;
  for (int v = 0; v < prog.numVEUs(); ++v) {
    const auto& s = prog.stream(v);
    for (size_t o = 0; o < s.size(); ++o)
      if (const auto* e = std::get_if<Exec>(&s[o]); e && counts(e->task)) {
        auto& l = out[e->task.op];
        if (l.empty() || l.back().veu != v) l.push_back({v, 0, {}});
        l.back().order = static_cast<int32_t>(o);
        l.back().task = e->task;
      }
  }
  return out;
}

OrderingClocks::OrderingClocks(const RProgram& prog) {
  const int V = prog.numVEUs();
  const auto nv = static_cast<size_t>(V);
  barriers_.assign(nv, {});
  progress_.assign(nv, 0);
  // Filled on a vEU's first barrier: most vEUs of a one-operator program
  // never wait, and V x V clocks per program add up over thousands.
  std::vector<Knowledge> cur(nv);
  std::vector<std::vector<int>> waiters(nv);
  std::vector<uint32_t> joinedIn;  // per snapshot: the barrier (epoch) that last joined it
  uint32_t epoch = 0;
  int32_t rank = 0;  // barriers in the order they are passed: a happens-before order
  // Per vEU: how many waits of the barrier it is stuck at are already met
  // (progress only grows, so a retry resumes there).
  std::vector<size_t> met(nv, 0);
  std::vector<size_t> sizes(nv);
  for (size_t v = 0; v < nv; ++v) sizes[v] = prog.stream(static_cast<int>(v)).size();
  auto valid = [&](Slot s) {
    return s.veu >= 0 && s.veu < V && s.order >= 0 && static_cast<size_t>(s.order) < sizes[static_cast<size_t>(s.veu)];
  };

  std::vector<int> work;
  for (int v = V - 1; v >= 0; --v) work.push_back(v);
  while (!work.empty()) {
    const int v = work.back();
    work.pop_back();
    const auto& s = prog.stream(v);
    size_t& i = progress_[static_cast<size_t>(v)];
    const size_t before = i;
    while (i < s.size()) {
      if (const auto* b = std::get_if<Barrier>(&s[i])) {
        size_t& m = met[static_cast<size_t>(v)];
        while (m < b->waits.size()) {
          const Slot& w = b->waits[m];
          if (!valid(w) || progress_[static_cast<size_t>(w.veu)] <= static_cast<size_t>(w.order)) break;
          ++m;
        }
        if (m < b->waits.size()) {
          if (valid(b->waits[m])) waiters[static_cast<size_t>(b->waits[m].veu)].push_back(v);
          break;
        }
        m = 0;
        Knowledge& k = cur[static_cast<size_t>(v)];
        if (k.empty()) k.assign(nv, -1);
        ++epoch;
        joinedIn.resize(snapshots_.size(), 0);
        for (const Slot& w : b->waits) {
          const auto u = static_cast<size_t>(w.veu);
          if (k[u] >= w.order) continue;  // known already, and (closed) all it knew
          const int32_t at = barrierIndexAt(w.veu, w.order);
          // Knowledge stays closed, so knowing w's vEU up to the barrier
          // behind w already includes that barrier's snapshot.
          if (at >= 0 && k[u] < barriers_[u][static_cast<size_t>(at)].order) {
            const int32_t sid = barriers_[u][static_cast<size_t>(at)].snapshot;
            if (joinedIn[static_cast<size_t>(sid)] != epoch) {
              joinedIn[static_cast<size_t>(sid)] = epoch;
              joinKnowledge(k, snapshots_[static_cast<size_t>(sid)]);
            }
          }
          k[u] = std::max(k[u], w.order);
        }
        barriers_[static_cast<size_t>(v)].push_back(
            {static_cast<int32_t>(i), intern(k), rank++});
      }
      ++i;
    }
    if (i != before) {
      for (int u : waiters[static_cast<size_t>(v)]) work.push_back(u);
      waiters[static_cast<size_t>(v)].clear();
    }
  }
}

int32_t OrderingClocks::barrierIndexAt(int veu, int32_t order) const {
  const auto& bs = barriers_[static_cast<size_t>(veu)];
  auto it = std::upper_bound(bs.begin(), bs.end(), order,
                             [](int32_t q, const BarrierClock& b) { return q < b.order; });
  return static_cast<int32_t>(it - bs.begin()) - 1;
}

int32_t OrderingClocks::intern(const Knowledge& k) {
  size_t h = k.size();
  for (int32_t x : k) h = h * 1000003u ^ static_cast<size_t>(x + 1);
  auto& ids = interned_[h];
  for (int32_t id : ids)
    if (snapshots_[static_cast<size_t>(id)] == k) return id;
  snapshots_.push_back(k);
  ids.push_back(static_cast<int32_t>(snapshots_.size() - 1));
  return ids.back();
}

}  // namespace rammer::schedule
