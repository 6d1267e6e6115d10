// SPDX-License-Identifier: Apache-2.0
// PM4 workload format (docs/formats/pm4.md): a text file with the ring-buffer stream, indirect
// buffers, memory contents and expectations; the assembler to dwords and the decoder listing.
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuvp::cp {

struct pm4_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct pm4_program {
  struct block {  // memory contents: dwords at a GPU (= host physical) address
    uint64_t addr = 0;
    std::vector<uint32_t> words;
    int line = 0;
  };
  struct ib {
    std::string name;
    uint64_t addr = 0;
    std::vector<uint32_t> words;
    int line = 0;
  };
  struct expectation {
    enum kind_t { mem, reg, dispatches, irq, fault } kind;
    uint64_t where = 0;
    uint32_t value = 0;
    int line = 0;
  };
  uint64_t ring_addr = 0x100000;
  int ring_line = 0;            // 0: the default ring address
  uint32_t ring_dwords = 4096;  // power of two, >= 4
  std::vector<uint32_t> ring;
  std::vector<ib> ibs;
  std::vector<block> mem;
  std::vector<expectation> expects;
  std::string origin;
};

// Parses the text; errors throw pm4_error "file:line: message".
pm4_program pm4_parse(const std::string& text, const std::string& origin);
pm4_program pm4_parse_file(const std::string& path);

// Readable listing of a dword stream. Returns the number of invalid headers found.
unsigned pm4_decode(const std::vector<uint32_t>& words, std::string& listing, uint64_t base = 0);

// CP register names (PKT4 targets, expectations) <-> GPU register dword offsets.
std::optional<uint32_t> cp_reg_by_name(const std::string& name);
const char* cp_reg_name(uint32_t reg);

int pm4_asm_main(int argc, char** argv);
int pm4_decode_main(int argc, char** argv);

}  // namespace gpuvp::cp
