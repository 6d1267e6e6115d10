// SPDX-License-Identifier: Apache-2.0
// Building test kernels for the SM core: a shipped configuration with launch latency 0 (as the
// Accel-Sim calibration runs), and trace instructions written as the tracer writes them.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "core/gpu_config.h"
#include "core/trace.h"
#include "paths.h"

namespace gpuvp::sm::testing {

// A shipped configuration ("QV100", ...) with launch latency 0 and, if given, another scheduler.
inline gpu_config shipped(const std::string& name, const std::string& scheduler = "") {
  gpu_config c;
  const std::string dir = sm_config_dir() + "/" + shipped_config_dir(name);
  load_config_file(c, dir + "/gpgpusim.config");
  load_config_file(c, dir + "/trace.config");
  c.kernel_launch_latency = 0;
  if (!scheduler.empty()) c.scheduler = scheduler;
  c.validate();
  return c;
}

// An instruction without memory operands, all lanes active.
inline trace_writer_inst op(const std::string& opcode, std::vector<unsigned> dst, std::vector<unsigned> src) {
  return trace_writer_inst{opcode, std::move(dst), std::move(src), 0, {}, 0xffffffffu};
}

// A 4-byte memory instruction: the k-th active lane accesses base + k * stride.
inline trace_writer_inst mem(const std::string& opcode, std::vector<unsigned> dst, std::vector<unsigned> src, uint64_t base,
                             uint64_t stride, uint32_t mask = 0xffffffffu) {
  std::vector<uint64_t> a(32, 0);
  for (unsigned t = 0, k = 0; t < 32; ++t)
    if (mask >> t & 1) a[t] = base + (k++) * stride;
  return trace_writer_inst{opcode, std::move(dst), std::move(src), 4, a, mask};
}

// The 320-CTA calibration kernel's shape (bench/sm: BM_bandwidth_kernel) with `ctas` CTAs of 8
// warps (nregs 64): 16 x (LDG of line (8c+w)*16+i, 6 independent FFMA), 16 FFMA on the loaded registers.
inline std::string bandwidth_kernel_text(unsigned ctas, unsigned binver) {
  std::string text;
  // write_kernel_trace gives every CTA the same warps; this kernel's addresses differ per CTA,
  // so the CTAs are written one by one and joined.
  std::string body;
  for (unsigned c = 0; c < ctas; ++c) {
    std::vector<std::vector<trace_writer_inst>> warps;
    for (unsigned w = 0; w < 8; ++w) {
      std::vector<trace_writer_inst> v;
      for (unsigned i = 0; i < 16; ++i) {
        v.push_back(mem("LDG.E.32", {10 + i}, {2}, 0x7f4000000000ull + 128ull * ((8 * c + w) * 16 + i), 4));
        for (unsigned j = 0; j < 6; ++j) v.push_back(op("FFMA", {30 + j}, {2, 3, 4}));
      }
      for (unsigned i = 0; i < 16; ++i) v.push_back(op("FFMA", {40 + i}, {10 + i, 3, 4}));
      v.push_back(op("EXIT", {}, {}));
      warps.push_back(v);
    }
    std::string one = write_kernel_trace("bw", 1, {1, 1, 1}, {256, 1, 1}, binver, 0, 64, warps);
    const size_t b = one.find("#BEGIN_TB");
    if (c == 0) text = one.substr(0, b);
    std::string tb = one.substr(b);
    const size_t l = tb.find("thread block = 0,0,0");
    tb.replace(l, 20, "thread block = " + std::to_string(c) + ",0,0");
    body += tb;
  }
  const size_t g = text.find("grid dim = (1,1,1)");
  text.replace(g, 18, "grid dim = (" + std::to_string(ctas) + ",1,1)");
  return text + body;
}

// The message parsing `text` as file `file` fails with, or "no error".
inline std::string parse_error_of(const std::string& text, const std::string& file) {
  try {
    parse_kernel_trace_text(text, file);
  } catch (const trace_error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace gpuvp::sm::testing
