// SPDX-License-Identifier: Apache-2.0
// Accel-Sim trace input: kernelslist.g and post-processed kernel-N.traceg files
// (docs/formats/accel-sim-traces.md). Parsed into compact per-warp instruction arrays, each thread
// block with its own addresses: all at once (parse_kernel_trace), or block by block while the
// simulation runs (trace_stream.h). Every error is a trace_error whose message starts with
// "file:line: ".
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fu.h"
#include "opcodes.h"

namespace gpuvp::sm {

struct trace_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t(x) * y * z; }
};

struct trace_inst {
  uint32_t pc = 0;
  uint32_t mask = 0;
  uint16_t opcode = 0;  // index into kernel_trace::opcodes
  opcode_info info;
  uint8_t ndst = 0, nsrc = 0;
  uint16_t dst[4] = {0, 0, 0, 0};
  uint16_t src[4] = {0, 0, 0, 0};
  uint8_t width = 0;        // bytes per lane, from the opcode (0: no memory access)
  uint32_t addr_index = 0;  // first of 32 addresses in its trace_cta::addresses (width > 0)
};

// SASS's zero registers as the tracer numbers them, RZ (255) and URZ (511): never a dependence.
inline bool is_zero_reg(unsigned r) { return r == 255 || r == 511; }

struct trace_warp {
  std::vector<trace_inst> insts;
};

struct trace_cta {
  dim3 id;
  std::vector<trace_warp> warps;    // indexed by warp id in the block
  std::vector<uint64_t> addresses;  // 32 per memory instruction, 0 for inactive threads
  size_t bytes() const;             // heap memory held (the stream's window budget)
};

// The "-key = value" lines before the first thread block.
struct kernel_header {
  std::string file, name;
  unsigned id = 0;
  dim3 grid, block;
  unsigned shmem = 0, nregs = 0, binary_version = 0, tracer_version = 0;
  uint64_t stream = 0, shmem_base = 0, local_base = 0;
  sass_arch arch = sass_arch::volta;
  unsigned warps_per_cta() const { return unsigned((block.count() + 31) / 32); }
};

// A whole kernel in memory. A file must hold grid.count() thread blocks.
struct kernel_trace : kernel_header {
  std::vector<std::string> opcodes;  // distinct full opcode strings
  std::vector<trace_cta> ctas;       // in file order
  uint64_t warp_insts = 0;
};

struct memcpy_cmd {
  bool to_device = true;
  uint64_t addr = 0, size = 0;
};

struct kernelslist {
  std::string file;
  struct entry {
    bool is_kernel = false;
    std::string trace_path;  // resolved against the kernelslist directory
    memcpy_cmd copy;
    unsigned line = 0;
  };
  std::vector<entry> entries;
};

// Bytes per lane of a memory opcode: its first '.'-token that is a bit count ("64") or U<bits>
// ("U8"), else 4 (Accel-Sim's get_datawidth_from_opcode).
unsigned access_width_of(std::string_view opcode);

kernelslist parse_kernelslist(const std::string& path);
kernelslist parse_kernelslist_text(const std::string& text, const std::string& name, const std::string& dir);
// The whole file at once (read in chunks; trace_stream.h reads it while the simulation runs).
kernel_trace parse_kernel_trace(const std::string& path);
kernel_trace parse_kernel_trace_text(const std::string& text, const std::string& name);

// The .traceg grammar one line at a time, for parse_kernel_trace and kernel_trace_stream: the
// header into `header`, each thread block handed out once its #END_TB is read.
class kernel_trace_parser {
 public:
  kernel_trace_parser(const std::string& file, kernel_header& header);
  ~kernel_trace_parser();
  kernel_trace_parser(const kernel_trace_parser&) = delete;
  kernel_trace_parser& operator=(const kernel_trace_parser&) = delete;
  // Line `number` (from 1, untrimmed); true when it completed a thread block (take_cta()).
  bool line(std::string_view text, unsigned number);
  trace_cta take_cta();
  bool in_body() const;  // the first #BEGIN_TB was read: the header is complete
  // The end-of-file checks (a thread block left open, no header, fewer blocks than the grid);
  // `last`: the number of the last line.
  void finish(unsigned last) const;
  const std::vector<std::string>& opcodes() const;
  uint64_t warp_insts() const;
  uint64_t ctas() const;  // thread blocks completed

 private:
  struct state;
  std::unique_ptr<state> s_;
};

// Writes a trace in the post-processed format (tests and benchmarks generate their inputs).
struct trace_writer_inst {
  std::string opcode;
  std::vector<unsigned> dst, src;
  unsigned width = 0;
  std::vector<uint64_t> addrs;  // 32 (list-all format) when width > 0
  uint32_t mask = 0xffffffffu;
};
std::string write_kernel_trace(const std::string& name, unsigned id, dim3 grid, dim3 block, unsigned binary_version, unsigned shmem,
                               unsigned nregs, const std::vector<std::vector<trace_writer_inst>>& warps_per_cta);

}  // namespace gpuvp::sm
