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
inline trace_writer_inst mem(const std::string& opcode, std::vector<unsigned> dst, std::vector<unsigned> src,
                             uint64_t base, uint64_t stride, uint32_t mask = 0xffffffffu) {
  std::vector<uint64_t> a(32, 0);
  for (unsigned t = 0, k = 0; t < 32; ++t)
    if (mask >> t & 1) a[t] = base + (k++) * stride;
  return trace_writer_inst{opcode, std::move(dst), std::move(src), 4, a, mask};
}

}  // namespace gpuvp::sm::testing
