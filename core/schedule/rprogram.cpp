#include "core/schedule/rprogram.h"

#include <algorithm>
#include <stdexcept>

namespace rammer::schedule {

RProgram::RProgram(int numVEUs) : streams_(static_cast<size_t>(std::max(0, numVEUs))), known_(streams_.size()) {}

void RProgram::wait(RTask task, const std::vector<RTask>& deps) {
  std::vector<RTask>& p = pending_[task];
  p.insert(p.end(), deps.begin(), deps.end());
}

Slot RProgram::append(RTask task, int veu) {
  if (veu < 0 || veu >= numVEUs()) throw std::out_of_range("append: vEU " + std::to_string(veu) + " out of range");
  if (placed_.count(task)) throw std::logic_error("append: rTask placed twice");
  auto& stream = streams_[static_cast<size_t>(veu)];
  auto& known = known_[static_cast<size_t>(veu)];

  if (auto it = pending_.find(task); it != pending_.end()) {
    // Latest order needed per other vEU.
    std::map<int32_t, int32_t> need;
    for (const RTask& d : it->second) {
      auto at = placed_.find(d);
      if (at == placed_.end()) continue;  // earlier program
      const Slot s = at->second;
      if (s.veu == veu) continue;         // program order implies it
      int32_t& n = need.try_emplace(s.veu, -1).first->second;
      n = std::max(n, s.order);
    }
    Barrier b;
    for (const auto& [u, order] : need) {
      auto k = known.find(u);
      if (k != known.end() && k->second >= order) continue;  // an earlier barrier covered it
      b.waits.push_back(Slot{u, order});
      known[u] = order;
    }
    if (!b.waits.empty()) {
      stream.emplace_back(std::move(b));
      ++barriers_;
    }
    pending_.erase(it);
  }
  Slot slot{veu, static_cast<int32_t>(stream.size())};
  stream.emplace_back(Exec{task});
  placed_.emplace(task, slot);
  return slot;
}

Slot RProgram::slotOf(RTask task) const {
  auto it = placed_.find(task);
  return it == placed_.end() ? Slot{} : it->second;
}

size_t RProgram::depth() const {
  size_t d = 0;
  for (const auto& s : streams_) d = std::max(d, s.size());
  return d;
}

RProgram RProgram::fromStreams(std::vector<std::vector<Instr>> streams) {
  RProgram p(static_cast<int>(streams.size()));
  p.streams_ = std::move(streams);
  for (size_t v = 0; v < p.streams_.size(); ++v) {
    for (size_t o = 0; o < p.streams_[v].size(); ++o) {
      if (const auto* e = std::get_if<Exec>(&p.streams_[v][o]))
        p.placed_[e->task] = Slot{static_cast<int32_t>(v), static_cast<int32_t>(o)};
      else
        ++p.barriers_;
    }
  }
  return p;
}

}  // namespace rammer::schedule
