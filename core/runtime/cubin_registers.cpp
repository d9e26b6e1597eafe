#include "core/runtime/cubin_registers.h"

#include <cstdint>

namespace rammer::runtime {

namespace {

// Little-endian reads with bounds checks: a cubin is untrusted bytes.
class Bytes {
 public:
  explicit Bytes(const std::vector<char>& data) : bytes_(data) {}
  bool has(uint64_t offset, uint64_t size) const { return offset <= bytes_.size() && size <= bytes_.size() - offset; }
  uint64_t le(uint64_t offset, int width) const {
    uint64_t v = 0;
    for (int i = width - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes_[offset + static_cast<uint64_t>(i)]);
    return v;
  }
  std::string cstring(uint64_t offset, uint64_t end) const {
    std::string s;
    for (uint64_t i = offset; i < end && i < bytes_.size() && bytes_[i] != '\0'; ++i) s.push_back(bytes_[i]);
    return s;
  }

 private:
  const std::vector<char>& bytes_;
};

struct Section {
  std::string name;
  uint64_t nameOffset = 0, offset = 0, size = 0;
  uint32_t link = 0;
};

constexpr int kEifmtSval = 4;        // a record with a 16-bit size and a payload
constexpr int kEiattrRegcount = 0x2f;  // payload: symbol index, registers (u32 each)

// The section table with names, or an error for bytes that are not a cubin.
ir::Result<std::vector<Section>> readSections(const Bytes& b) {
  if (!b.has(0, 64) || b.le(0, 4) != 0x464c457f || b.le(4, 1) != 2 || b.le(5, 1) != 1)
    return ir::makeError("not a 64-bit little-endian ELF file (cubin)");
  const uint64_t shoff = b.le(0x28, 8);
  const uint64_t shentsize = b.le(0x3a, 2), shnum = b.le(0x3c, 2), shstrndx = b.le(0x3e, 2);
  if (shentsize < 64 || shstrndx >= shnum || !b.has(shoff, shentsize * shnum))
    return ir::makeError("the cubin's section table lies outside the file");

  std::vector<Section> sections(shnum);
  for (uint64_t i = 0; i < shnum; ++i) {
    const uint64_t h = shoff + i * shentsize;
    sections[i].offset = b.le(h + 24, 8);
    sections[i].size = b.le(h + 32, 8);
    sections[i].link = static_cast<uint32_t>(b.le(h + 40, 4));
    sections[i].nameOffset = b.le(h, 4);
  }
  const Section& names = sections[shstrndx];
  if (!b.has(names.offset, names.size)) return ir::makeError("the cubin's section names lie outside the file");
  for (Section& s : sections) s.name = b.cstring(names.offset + s.nameOffset, names.offset + names.size);
  return sections;
}

}  // namespace

ir::Result<std::map<std::string, int>> readCubinRegisterCounts(const std::vector<char>& cubin) {
  const Bytes b(cubin);
  auto read = readSections(b);
  if (!read) return read.errors();
  const std::vector<Section>& sections = *read;

  std::map<std::string, int> out;
  for (const Section& info : sections) {
    if (info.name != ".nv.info") continue;
    if (!b.has(info.offset, info.size) || info.link >= sections.size())
      return ir::makeError("the cubin's .nv.info section lies outside the file");
    const Section& symtab = sections[info.link];
    if (!b.has(symtab.offset, symtab.size) || symtab.link >= sections.size())
      return ir::makeError("the cubin's symbol table lies outside the file");
    const Section& strtab = sections[symtab.link];
    if (!b.has(strtab.offset, strtab.size)) return ir::makeError("the cubin's symbol names lie outside the file");

    for (uint64_t p = info.offset, end = info.offset + info.size; p + 4 <= end;) {
      const int format = static_cast<int>(b.le(p, 1));
      const int attr = static_cast<int>(b.le(p + 1, 1));
      if (format != kEifmtSval) {  // no payload beyond a 16-bit value
        p += 4;
        continue;
      }
      const uint64_t size = b.le(p + 2, 2);
      if (p + 4 + size > end) return ir::makeError("a .nv.info record of the cubin runs past its section");
      if (attr == kEiattrRegcount && size >= 8) {
        const uint64_t sym = b.le(p + 4, 4);
        const uint64_t regs = b.le(p + 8, 4);
        const uint64_t entry = symtab.offset + sym * 24;
        if (sym * 24 + 24 > symtab.size) return ir::makeError("a register count of the cubin names no symbol");
        const std::string name = b.cstring(strtab.offset + b.le(entry, 4), strtab.offset + strtab.size);
        out[name] = static_cast<int>(regs);
      }
      p += 4 + size;
    }
  }
  return out;
}

ir::Result<std::map<std::string, int64_t>> readCubinStaticShared(const std::vector<char>& cubin) {
  const Bytes b(cubin);
  auto read = readSections(b);
  if (!read) return read.errors();
  const std::string prefix = ".nv.shared.";
  std::map<std::string, int64_t> out;
  for (const Section& s : *read)
    if (s.name.rfind(prefix, 0) == 0) out[s.name.substr(prefix.size())] = static_cast<int64_t>(s.size);
  return out;
}

}  // namespace rammer::runtime
