#include "core/codegen/instruction_table.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <string>

namespace rammer::codegen {

namespace {

constexpr int64_t kMaxField = std::numeric_limits<int32_t>::max();

bool fits(int64_t v) { return v >= std::numeric_limits<int32_t>::min() && v <= kMaxField; }

}  // namespace

std::vector<int32_t> encodeWaits(std::vector<schedule::Slot> waits) {
  std::sort(waits.begin(), waits.end());
  std::vector<int32_t> out;
  for (const schedule::Slot& s : waits) {
    // The same vEU twice (sorted: this slot is the later one): waiting for
    // it covers the earlier, since a vEU runs its stream in order.
    if (!out.empty() && out[out.size() - 2] == s.veu)
      out.back() = s.order;
    else
      out.insert(out.end(), {s.veu, s.order});
  }
  return out;
}

ir::Result<InstructionTable> buildInstructionTable(const schedule::RProgram& program,
                                                   const std::vector<int32_t>& groupOfOp,
                                                   const std::vector<int32_t>& argOffsetOfOp) {
  // Slots someone waits for: only they publish.
  std::set<schedule::Slot> waited;
  for (const auto& stream : program.streams())
    for (const auto& ins : stream)
      if (const auto* b = std::get_if<schedule::Barrier>(&ins))
        for (const schedule::Slot& s : b->waits) waited.insert(s);

  InstructionTable t;
  std::map<std::vector<TableEntry>, StreamRange> shared;  // identical streams share one range
  std::map<std::vector<int32_t>, int32_t> waitLists;      // identical wait lists too
  int64_t events = 0;
  for (int v = 0; v < program.numVEUs(); ++v) {
    const auto& stream = program.stream(v);
    std::vector<TableEntry> mine;
    t.eventBase.push_back(events);
    if (!stream.empty()) t.activeVEUs = v + 1;
    for (size_t o = 0; o < stream.size(); ++o) {
      const auto order = static_cast<int32_t>(o);
      const int32_t publish = waited.count(schedule::Slot{v, order}) ? order + 1 : 0;
      if (const auto* e = std::get_if<schedule::Exec>(&stream[o])) {
        const int32_t op = e->task.op;
        if (op < 0 || static_cast<size_t>(op) >= groupOfOp.size() || static_cast<size_t>(op) >= argOffsetOfOp.size() ||
            groupOfOp[static_cast<size_t>(op)] < 0)
          return ir::makeError("vEU " + std::to_string(v) + " order " + std::to_string(o) + " runs op " +
                               std::to_string(op) + ", which has no rKernel function");
        if (!fits(e->task.rtask))
          return ir::makeError("rtask id " + std::to_string(e->task.rtask) + " does not fit the 32-bit instruction table");
        const int32_t fn = groupOfOp[static_cast<size_t>(op)];
        const int32_t args = argOffsetOfOp[static_cast<size_t>(op)];
        const auto rtask = static_cast<int32_t>(e->task.rtask);
        t.timedTasks.push_back(TimedTask{e->task, v, order});
        ++events;
        // Extend the previous run when this rTask continues its stride and
        // nobody waits in the middle of the run.
        if (!mine.empty()) {
          TableEntry& last = mine.back();
          if (last.fn == fn && last.args == args && last.publish == 0 && last.count < kMaxField) {
            const int64_t step = static_cast<int64_t>(rtask) - last.first;
            if (last.count == 1 && step != 0 && fits(step)) {
              last.stride = static_cast<int32_t>(step);
              last.count = 2;
              last.publish = publish;
              continue;
            }
            if (last.count > 1 && static_cast<int64_t>(last.first) + static_cast<int64_t>(last.count) * last.stride == rtask) {
              ++last.count;
              last.publish = publish;
              continue;
            }
          }
        }
        mine.push_back(TableEntry{fn, args, rtask, 1, 0, publish});
      } else {
        const auto& b = std::get<schedule::Barrier>(stream[o]);
        // A wait for a slot that never runs would hang the GPU: refuse it here.
        for (const schedule::Slot& s : b.waits)
          if (s.veu < 0 || s.veu >= program.numVEUs() || s.order < 0 ||
              static_cast<size_t>(s.order) >= program.stream(s.veu).size())
            return ir::makeError("the barrier at vEU " + std::to_string(v) + " order " + std::to_string(o) +
                                 " waits for vEU " + std::to_string(s.veu) + " order " + std::to_string(s.order) +
                                 ", which does not exist");
        const std::vector<int32_t> list = encodeWaits(b.waits);
        auto [it, added] = waitLists.try_emplace(list, static_cast<int32_t>(t.waits.size()));
        if (added) t.waits.insert(t.waits.end(), list.begin(), list.end());
        mine.push_back(TableEntry{-1, it->second, 0, static_cast<int32_t>(list.size() / 2), 0, publish});
      }
    }
    auto [it, added] = shared.try_emplace(mine, StreamRange{});
    if (added) {
      it->second.begin = static_cast<int32_t>(t.entries.size());
      t.entries.insert(t.entries.end(), mine.begin(), mine.end());
      it->second.end = static_cast<int32_t>(t.entries.size());
      if (!fits(static_cast<int64_t>(t.entries.size()) + 1) || !fits(static_cast<int64_t>(t.waits.size()) + 1))
        return ir::makeError("the instruction table of this program exceeds 2^31 entries");
    }
    t.streams.push_back(it->second);
  }
  return t;
}

}  // namespace rammer::codegen
