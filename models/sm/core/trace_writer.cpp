// SPDX-License-Identifier: Apache-2.0
// write_kernel_trace (trace.h): the post-processed format, list-all addresses.
#include <cstdio>
#include <sstream>

#include "trace.h"

namespace gpuvp::sm {

std::string write_kernel_trace(const std::string& name, unsigned id, dim3 grid, dim3 block, unsigned binary_version, unsigned shmem,
                               unsigned nregs, const std::vector<std::vector<trace_writer_inst>>& warps) {
  std::ostringstream os;
  os << "-kernel name = " << name << "\n-kernel id = " << id << "\n-grid dim = (" << grid.x << "," << grid.y << "," << grid.z
     << ")\n-block dim = (" << block.x << "," << block.y << "," << block.z << ")\n-shmem = " << shmem << "\n-nregs = " << nregs
     << "\n-binary version = " << binary_version
     << "\n-cuda stream id = 0\n-shmem base_addr = 0x00007f0000000000\n-local mem base_addr = "
        "0x00007f1000000000\n-nvbit version = 1.5.5\n-accelsim tracer version = 5\n-enable lineinfo = 0\n"
        "#traces format = PC mask dest_num reg_dests opcode src_num reg_srcs mem_width mem_addresses\n\n";
  for (unsigned z = 0; z < grid.z; ++z)
    for (unsigned y = 0; y < grid.y; ++y)
      for (unsigned x = 0; x < grid.x; ++x) {
        os << "#BEGIN_TB\n\nthread block = " << x << "," << y << "," << z << "\n\n";
        for (unsigned w = 0; w < warps.size(); ++w) {
          os << "warp = " << w << "\ninsts = " << warps[w].size() << "\n";
          unsigned pc = 0;
          for (auto& in : warps[w]) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%04x %08x ", pc, in.mask);
            os << buf << in.dst.size();
            for (auto d : in.dst) os << " R" << d;
            os << " " << in.opcode << " " << in.src.size();
            for (auto s : in.src) os << " R" << s;
            os << " " << in.width;
            if (in.width) {
              os << " 0";
              for (unsigned t = 0; t < 32; ++t)
                if (in.mask >> t & 1) {
                  std::snprintf(buf, sizeof buf, " 0x%llx", (unsigned long long)(t < in.addrs.size() ? in.addrs[t] : 0));
                  os << buf;
                }
            }
            os << "\n";
            pc += 16;
          }
          os << "\n";
        }
        os << "#END_TB\n\n";
      }
  return os.str();
}

}  // namespace gpuvp::sm
