#pragma once
// What a person pinned in a schedule; every policy honours it. Built from
// schedule-edit files (the JSON the GUI writes and `--schedule` reads).
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace rammer::schedule {

struct TaskPin {
  std::string node;     // operator (node name)
  int64_t rtask = -1;   // -1: every rTask of the operator
  int veu = -1;         // vEU index within its program
  int order = -1;       // position on that vEU; -1 keeps the policy's order
};

struct Constraints {
  std::map<std::string, std::string> kernelFor;  // node name -> rKernel name
  std::vector<TaskPin> pins;
  std::set<std::string> cutBefore;    // a new program starts at this operator
  std::set<std::string> noCutBefore;  // programs merged: never cut here
  // node name -> vEUs per SM of the program that runs it (the vDevice
  // shape: 1, 2 or 4 vEUs of 256 threads get up to 255, 128 or 64 registers).
  std::map<std::string, int> shapeFor;
  // node name -> claim shards of the dynamic program that runs it
  // (DynamicProgram::claimShards; the dynamic policy only).
  std::map<std::string, int> claimShardsFor;

  bool empty() const {
    return kernelFor.empty() && pins.empty() && cutBefore.empty() && noCutBefore.empty() && shapeFor.empty() &&
           claimShardsFor.empty();
  }
};

}  // namespace rammer::schedule
