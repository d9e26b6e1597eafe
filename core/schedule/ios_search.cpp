#include "core/schedule/ios_search.h"

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>
#include <unordered_map>

namespace rammer::schedule {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A set of operators as bits; blocks of up to 128 operators (the policy's
// default is 16) keep theirs inline: the DP builds two sets per ending.
class OpSet {
 public:
  explicit OpSet(int n = 0) : size_(static_cast<size_t>((n + 63) / 64)) {
    if (size_ > kInline) heap_.assign(size_, 0);
  }
  bool has(int i) const { return (data()[static_cast<size_t>(i) / 64] >> (i % 64)) & 1; }
  void set(int i) { data()[static_cast<size_t>(i) / 64] |= uint64_t{1} << (i % 64); }
  void reset(int i) { data()[static_cast<size_t>(i) / 64] &= ~(uint64_t{1} << (i % 64)); }
  bool empty() const { return std::all_of(data(), data() + size_, [](uint64_t w) { return w == 0; }); }
  const uint64_t* begin() const { return data(); }
  const uint64_t* end() const { return data() + size_; }
  friend bool operator==(const OpSet& a, const OpSet& b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }

 private:
  static constexpr size_t kInline = 2;
  uint64_t* data() { return size_ > kInline ? heap_.data() : inline_.data(); }
  const uint64_t* data() const { return size_ > kInline ? heap_.data() : inline_.data(); }
  size_t size_;
  std::array<uint64_t, kInline> inline_{};
  std::vector<uint64_t> heap_;
};

struct OpSetHash {
  size_t operator()(const OpSet& s) const {
    uint64_t h = 1469598103934665603ull;
    for (uint64_t w : s) h = (h ^ w) * 1099511628211ull;
    return static_cast<size_t>(h);
  }
};

// The DP's answer for one set of remaining operators.
struct Best {
  double cost = kInf;
  double second = kInf;  // best over the other endings (and kinds)
  std::vector<int> ending;
  IosStageKind kind = IosStageKind::Concurrent;
  double stageCost = 0;
};

// What one set of operators costs as a stage, of each kind it can run as.
// The same ending recurs from many states (every superset it ends), so
// its prices are asked of the caller once.
struct StagePrices {
  std::optional<double> concurrent;
  std::optional<double> merge;
};

class Search {
 public:
  Search(const IosProblem& p, const std::function<bool()>& cancelled) : problem_(p), cancelled_(cancelled) {
    succs_.resize(static_cast<size_t>(p.numOps));
    for (int i = 0; i < p.numOps; ++i)
      for (int q : p.preds[static_cast<size_t>(i)]) succs_[static_cast<size_t>(q)].push_back(i);
    limit_ = std::max(1, p.maxGroupOps) * std::max(1, p.maxGroups);
  }

  IosSolution run() {
    OpSet all(problem_.numOps);
    for (int i = 0; i < problem_.numOps; ++i) all.set(i);
    IosSolution out;
    out.cost = solve(all);
    out.states = memo_.size();
    out.endings = endings_;
    out.cancelled = stopped_ && !overBudget_;
    out.overBudget = overBudget_;
    if (stopped_ || !(out.cost < kInf)) return out;
    // Walk back from the whole set: each state's ending is the last stage.
    OpSet s = all;
    while (!s.empty()) {
      const Best& b = memo_.at(s);
      IosStage stage;
      stage.kind = b.kind;
      stage.groups = b.kind == IosStageKind::Merge ? std::vector<std::vector<int>>{b.ending}
                                                   : *concurrentGroups(problem_, b.ending);
      stage.cost = b.stageCost;
      stage.bestCost = b.cost;
      if (b.second < kInf) stage.alternativeCost = b.second;
      out.stages.push_back(std::move(stage));
      for (int op : b.ending) s.reset(op);
    }
    std::reverse(out.stages.begin(), out.stages.end());
    return out;
  }

 private:
  double solve(const OpSet& s) {
    if (s.empty()) return 0;
    if (auto it = memo_.find(s); it != memo_.end()) return it->second.cost;
    if (stopped_ || (cancelled_ && cancelled_())) {
      stopped_ = true;
      return kInf;
    }
    Best best;
    std::vector<int> ops;  // of s, highest index first: successors before predecessors
    for (int i = problem_.numOps - 1; i >= 0; --i)
      if (s.has(i)) ops.push_back(i);
    std::vector<int> ending;
    std::vector<char> inEnding(static_cast<size_t>(problem_.numOps), 0);
    forEachEnding(s, ops, 0, ending, inEnding, [&](const std::vector<int>& e) { consider(s, e, best); });
    return memo_.emplace(s, std::move(best)).first->second.cost;
  }

  // Every ending of `s` with at most limit_ operators, exactly once: each
  // operator, successors first, is left out or (when all its successors in
  // `s` are in) taken. Operators that cannot be taken are stepped over in a
  // loop, not a call each: on a long chain the recursion would otherwise go
  // as deep as the block is long, at every state.
  template <class Fn>
  void forEachEnding(const OpSet& s, const std::vector<int>& ops, size_t pos, std::vector<int>& ending,
                     std::vector<char>& inEnding, const Fn& emit) {
    auto takeable = [&](int op) {
      for (int q : succs_[static_cast<size_t>(op)])
        if (s.has(q) && !inEnding[static_cast<size_t>(q)]) return false;
      return true;
    };
    while (pos < ops.size() && static_cast<int>(ending.size()) < limit_ && !takeable(ops[pos])) ++pos;
    if (pos == ops.size() || static_cast<int>(ending.size()) == limit_) {
      if (!ending.empty()) emit(ending);
      return;
    }
    const int op = ops[pos];
    forEachEnding(s, ops, pos + 1, ending, inEnding, emit);
    inEnding[static_cast<size_t>(op)] = 1;
    ending.push_back(op);
    forEachEnding(s, ops, pos + 1, ending, inEnding, emit);
    ending.pop_back();
    inEnding[static_cast<size_t>(op)] = 0;
  }

  void consider(const OpSet& s, const std::vector<int>& descending, Best& best) {
    if (stopped_) return;
    if (++endings_ > problem_.maxEndings && problem_.maxEndings > 0) {
      stopped_ = overBudget_ = true;
      return;
    }
    OpSet rest = s;
    for (int op : descending) rest.reset(op);
    const double before = solve(rest);
    if (!(before < kInf)) return;
    OpSet ending(problem_.numOps);
    for (int op : descending) ending.set(op);
    auto [priced, fresh] = prices_.try_emplace(std::move(ending));
    if (fresh) priced->second = price(std::vector<int>(descending.rbegin(), descending.rend()));
    const StagePrices& stage = priced->second;
    auto offer = [&](IosStageKind kind, double stageCost) {
      const double total = before + stageCost;
      if (total < best.cost) {
        best.second = best.cost;
        best.cost = total;
        best.ending.assign(descending.rbegin(), descending.rend());  // topological order
        best.kind = kind;
        best.stageCost = stageCost;
      } else if (total < best.second) {
        best.second = total;
      }
    };
    if (stage.concurrent) offer(IosStageKind::Concurrent, *stage.concurrent);
    if (stage.merge) offer(IosStageKind::Merge, *stage.merge);
  }

  // `e` (topological order) as a stage of each kind the problem allows.
  StagePrices price(const std::vector<int>& e) const {
    StagePrices out;
    // One operator alone is a stage in every variant (the sequential schedule).
    if ((problem_.allowConcurrent || e.size() == 1) && problem_.concurrentCost)
      if (auto groups = concurrentGroups(problem_, e)) out.concurrent = problem_.concurrentCost(*groups);
    if (problem_.allowMerge && problem_.mergeCost && e.size() >= 2 && independent(e)) out.merge = problem_.mergeCost(e);
    return out;
  }

  // No operator of `ops` reads another (a merge computes them at once).
  bool independent(const std::vector<int>& ops) const {
    for (int op : ops)
      for (int q : problem_.preds[static_cast<size_t>(op)])
        if (std::binary_search(ops.begin(), ops.end(), q)) return false;
    return true;
  }

  const IosProblem& problem_;
  const std::function<bool()>& cancelled_;
  std::vector<std::vector<int>> succs_;
  int limit_ = 1;
  std::unordered_map<OpSet, Best, OpSetHash> memo_;
  std::unordered_map<OpSet, StagePrices, OpSetHash> prices_;  // by ending
  size_t endings_ = 0;
  bool stopped_ = false;
  bool overBudget_ = false;
};

}  // namespace

std::optional<std::vector<std::vector<int>>> concurrentGroups(const IosProblem& problem, const std::vector<int>& ops) {
  std::vector<int> sorted = ops;
  std::sort(sorted.begin(), sorted.end());
  // Union-find over the stage's operators, joined along the edges inside it.
  std::vector<size_t> parent(sorted.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto root = [&parent](size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (size_t i = 0; i < sorted.size(); ++i)
    for (int q : problem.preds[static_cast<size_t>(sorted[i])]) {
      const auto it = std::lower_bound(sorted.begin(), sorted.end(), q);
      if (it != sorted.end() && *it == q) parent[root(i)] = root(static_cast<size_t>(it - sorted.begin()));
    }
  std::vector<std::vector<int>> groups;
  std::vector<int> groupOfRoot(sorted.size(), -1);
  for (size_t i = 0; i < sorted.size(); ++i) {
    int& g = groupOfRoot[root(i)];
    if (g < 0) {
      g = static_cast<int>(groups.size());
      groups.emplace_back();
    }
    groups[static_cast<size_t>(g)].push_back(sorted[i]);
  }
  if (static_cast<int>(groups.size()) > problem.maxGroups) return std::nullopt;
  for (const auto& g : groups)
    if (static_cast<int>(g.size()) > problem.maxGroupOps) return std::nullopt;
  return groups;
}

IosSolution solveIos(const IosProblem& problem, const std::function<bool()>& cancelled) {
  return Search(problem, cancelled).run();
}

}  // namespace rammer::schedule
