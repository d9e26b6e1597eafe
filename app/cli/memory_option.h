#pragma once
// --max-memory SIZE: the memory budget of the CPU side of a run (random
// inputs, reference executor, emulator, host target; core/exec/memory_budget.h).
#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace rammer::cli {

// "512M", "8G", "1.5GB", "2T", "1000000" (bytes): decimal units, the ones the
// refusal message prints. Empty for anything else, zero or below 1 KB.
std::optional<int64_t> parseByteSize(const std::string& text);

// Adds --max-memory to `cmd`, storing bytes into `bytes` (0 when not given:
// half this machine's memory).
void addMaxMemoryOption(CLI::App* cmd, int64_t& bytes);

}  // namespace rammer::cli
