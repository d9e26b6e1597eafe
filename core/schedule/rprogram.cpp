#include "core/schedule/rprogram.h"

#include <algorithm>
#include <stdexcept>

namespace rammer::schedule {

RProgram::RProgram(int numVEUs) : streams_(static_cast<size_t>(std::max(0, numVEUs))) {}

void RProgram::wait(RTask task, const std::vector<RTask>& deps) {
  std::vector<RTask>& p = pending_[task];
  p.insert(p.end(), deps.begin(), deps.end());
}

Slot RProgram::append(RTask task, int veu) {
  if (veu < 0 || veu >= numVEUs()) throw std::out_of_range("append: vEU " + std::to_string(veu) + " out of range");
  if (placed_.count(task)) throw std::logic_error("append: rTask placed twice");
  auto& stream = streams_[static_cast<size_t>(veu)];

  if (auto it = pending_.find(task); it != pending_.end()) {
    if (known_.empty()) known_.resize(streams_.size());  // first barrier: a program without any pays nothing
    auto& known = known_[static_cast<size_t>(veu)];
    // Latest order needed per other vEU (a dense scratch row: a consumer
    // of a spread-out producer waits on hundreds of vEUs).
    need_.resize(streams_.size(), -1);
    touched_.clear();
    for (const RTask& d : it->second) {
      auto at = placed_.find(d);
      if (at == placed_.end()) continue;  // earlier program
      const Slot s = at->second;
      if (s.veu == veu) continue;         // program order implies it
      int32_t& n = need_[static_cast<size_t>(s.veu)];
      if (n < 0) touched_.push_back(s.veu);
      n = std::max(n, s.order);
    }
    std::sort(touched_.begin(), touched_.end());
    Barrier b;
    for (int32_t u : touched_) {
      const int32_t order = need_[static_cast<size_t>(u)];
      need_[static_cast<size_t>(u)] = -1;
      if (known.empty()) known.assign(streams_.size(), -1);
      if (known[static_cast<size_t>(u)] >= order) continue;  // an earlier barrier covered it
      b.waits.push_back(Slot{u, order});
      known[static_cast<size_t>(u)] = order;
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
