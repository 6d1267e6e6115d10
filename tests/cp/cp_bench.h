// SPDX-License-Identifier: Apache-2.0
// The CP test bench: a CP (and, on request, an SM compute engine on its own VRAM) driven
// through the register socket like the host would. Shared by test_cp_model and test_cp_compute.
#pragma once
#include <functional>
#include <memory>

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "compute.h"
#include "cp.h"
#include "gpuvp/extension.h"
#include "gpuvp/memory.h"
#include "pm4.h"

namespace cp_test {
using namespace gpuvp;
using namespace gpuvp::cp;

constexpr uint64_t ring_base = 0x10000;

struct cp_bench : sc_core::sc_module {
  sparse_memory mem{"mem"};
  command_processor cp{"cp"};
  std::unique_ptr<sparse_memory> vram;          // with_compute only
  std::unique_ptr<sm::compute_engine> compute;  // with_compute only: "<bench>.compute"
  sc_core::sc_signal<bool> irq_sig{"irq_sig"};
  tlm_utils::simple_initiator_socket<cp_bench> host{"host"};
  std::function<void(cp_bench&)> script;
  uint32_t wptr = 0;

  SC_HAS_PROCESS(cp_bench);
  cp_bench(sc_core::sc_module_name n, std::function<void(cp_bench&)> s, bool with_compute = false) : sc_module(n), script(std::move(s)) {
    cp.mem.bind(mem.in);
    host.bind(cp.regs.in);
    cp.irq(irq_sig);
    if (with_compute) {
      vram = std::make_unique<sparse_memory>("vram");
      compute = std::make_unique<sm::compute_engine>("compute");
      compute->out.bind(vram->in);
      cp.launch.bind(*compute);  // what the platform does from cp.launch.to
    }
    SC_THREAD(run);
  }
  void run() {
    write_reg(CP_RB_BASE, uint32_t(ring_base));
    write_reg(CP_RB_BASE_HI, 0);
    write_reg(CP_RB_CNTL, 10);  // 8 << 10 bytes = 2048 dwords
    script(*this);
    sc_core::sc_stop();
  }
  void write_reg(uint32_t r, uint32_t v) {
    transaction t(tlm::TLM_WRITE_COMMAND, 4ull * r, &v, 4);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    host->b_transport(t.gp, d);
    EXPECT_TRUE(t.ok()) << std::hex << r;
    wait(d);
  }
  uint32_t read_reg(uint32_t r) {
    uint32_t v = 0;
    transaction t(tlm::TLM_READ_COMMAND, 4ull * r, &v, 4);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    host->b_transport(t.gp, d);
    EXPECT_TRUE(t.ok()) << std::hex << r;
    wait(d);
    return v;
  }
  // Appends packets to the ring and moves the write pointer.
  void submit(const std::vector<uint32_t>& words) {
    for (uint32_t w : words) mem.write32(ring_base + 4ull * wptr++, w);
    write_reg(CP_RB_WPTR, wptr);
  }
  // Waits until the CP consumed the ring and waits for input (or the time runs out).
  bool wait_idle(sc_core::sc_time limit = sc_core::sc_time(1, sc_core::SC_MS)) {
    const sc_core::sc_time end = sc_core::sc_time_stamp() + limit;
    while (sc_core::sc_time_stamp() < end) {
      wait(sc_core::sc_time(100, sc_core::SC_NS));
      if (cp.idle() && read_reg(CP_RB_RPTR) == wptr) return true;
    }
    return false;
  }
  // Steps in 10 ns until cond() holds or `limit` passes.
  bool until(const std::function<bool()>& cond, sc_core::sc_time limit = sc_core::sc_time(1, sc_core::SC_MS)) {
    const sc_core::sc_time end = sc_core::sc_time_stamp() + limit;
    while (sc_core::sc_time_stamp() < end) {
      if (cond()) return true;
      wait(sc_core::sc_time(10, sc_core::SC_NS));
    }
    return cond();
  }
};

inline uint32_t t7(uint32_t op, uint32_t n) { return pm4_type7(op, n); }
inline uint32_t t4(uint32_t reg, uint32_t n) { return pm4_type4(reg, n); }
}  // namespace cp_test
