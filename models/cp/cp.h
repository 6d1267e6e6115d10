// SPDX-License-Identifier: Apache-2.0
// cp: the Adreno command processor. a6xx: one SQE microcontroller; a5xx: PFP and ME with the
// MEQ FIFO between them (param `generation`). Each microcontroller is an afuc ISS running
// firmware (by default gpuvp's own, firmware/cp/*.asm assembled at build time) with temporal
// decoupling: it synchronises only when it waits for packet data, a full/empty MEQ, a poll delay,
// or at the end of the quantum.
//
// Packet fetch (ROQ): from the ring buffer (CP_RB_*) and IB1/IB2 indirect buffers through the
// `mem` initiator, in bursts. Registers live in the CP window, BAR0 0x400000 + 4 x GPU register
// dword offset (host 0x1_0040_0000). Firmware $addr/$data writes land in this register file.
// Fetch bursts go through DMI where the target grants it (fetch_dmi); each still sends its
// transaction (gpu_ext::dmi_shadow), so timing and statistics do not depend on fetch_dmi.
// Preemption (a6xx): CP_CONTEXT_SWITCH_CNTL.STOP or PREEMPT_TRIGGER interrupts the SQE into the
// handler at PREEMPT_INSTR; secure mode follows setsecure (secure_switch).
#pragma once
#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>
#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include "afuc_iss.h"
#include "cp_regs.h"
#include "gpuvp/config.h"
#include "gpuvp/regbank.h"
#include "gpuvp/registry.h"
#include "gpuvp/stats.h"
#include "gpuvp/timing.h"
#include "launch_port.h"

namespace gpuvp::cp {

// One CP_EXEC_CS seen by the compute-dispatch port: its payload {0, NGROUPS_X, NGROUPS_Y,
// NGROUPS_Z}; `launched` when it went to the compute engine (see docs/models/cp.md).
struct cs_dispatch {
  std::vector<uint32_t> words;
  bool launched = false;
};

class command_processor : public sc_core::sc_module, public component {
 public:
  static constexpr uint64_t window_size = 0x40000;

  register_bank regs{"regs", window_size};
  reg rb_base{regs, "CP_RB_BASE", 4 * CP_RB_BASE, 4, 0};                       // ring base, bits 31:0
  reg rb_base_hi{regs, "CP_RB_BASE_HI", 4 * CP_RB_BASE_HI, 4, 0};              // ring base, bits 63:32
  reg rb_cntl{regs, "CP_RB_CNTL", 4 * CP_RB_CNTL, 4, 0};                       // [4:0] BUFSZ: 8 << BUFSZ bytes
  reg rb_rptr{regs, "CP_RB_RPTR", 4 * CP_RB_RPTR, 4, 0, access::ro};           // dwords
  reg rb_wptr{regs, "CP_RB_WPTR", 4 * CP_RB_WPTR, 4, 0};                       // dwords; a write kicks the CP
  reg sqe_cntl{regs, "CP_SQE_CNTL", 4 * CP_SQE_CNTL, 4, 0};                    // bit 0 starts the microcontrollers (autostart off)
  reg sqe_instr_base{regs, "CP_SQE_INSTR_BASE", 4 * CP_SQE_INSTR_BASE, 4, 0};  // image address (read by real a6xx firmware)
  reg sqe_instr_base_hi{regs, "CP_SQE_INSTR_BASE_HI", 4 * CP_SQE_INSTR_BASE_HI, 4, 0};
  reg hw_fault{regs, "CP_HW_FAULT", 4 * CP_HW_FAULT, 4, 0, access::ro};         // first error: cause | detail << 8
  reg int_status{regs, "CP_INT_STATUS", 4 * CP_INT_STATUS, 4, 0, access::w1c};  // bit0 error, bit1 event, bit2 preemption (gpuvp firmware)
  reg int_en{regs, "CP_INT_EN", 4 * CP_INT_EN, 4, 0xffffffff};                  // interrupt enable mask
  reg nrt_addr_lo{regs, "CP_ME_NRT_ADDR_LO", 4 * CP_ME_NRT_ADDR_LO, 4, 0};
  reg nrt_addr_hi{regs, "CP_ME_NRT_ADDR_HI", 4 * CP_ME_NRT_ADDR_HI, 4, 0};
  reg nrt_data{regs, "CP_ME_NRT_DATA", 4 * CP_ME_NRT_DATA, 4, 0};  // firmware memory data port
  std::array<std::unique_ptr<reg>, 8> scratch;                     // CP_SCRATCH_REG0..7
  reg ib1_base{regs, "CP_IB1_BASE", 4 * CP_IB1_BASE, 4, 0, access::ro};
  reg ib1_base_hi{regs, "CP_IB1_BASE_HI", 4 * CP_IB1_BASE_HI, 4, 0, access::ro};
  reg ib1_rem{regs, "CP_IB1_REM_SIZE", 4 * CP_IB1_REM_SIZE, 4, 0, access::ro};
  reg ib2_base{regs, "CP_IB2_BASE", 4 * CP_IB2_BASE, 4, 0, access::ro};
  reg ib2_base_hi{regs, "CP_IB2_BASE_HI", 4 * CP_IB2_BASE_HI, 4, 0, access::ro};
  reg ib2_rem{regs, "CP_IB2_REM_SIZE", 4 * CP_IB2_REM_SIZE, 4, 0, access::ro};
  reg ctx_switch_cntl{regs, "CP_CONTEXT_SWITCH_CNTL", 4 * CP_CONTEXT_SWITCH_CNTL, 4, 0};  // bit 0 STOP: preempt the SQE

  tlm_utils::simple_initiator_socket<command_processor> mem{"mem"};  // packet fetch and memory access
  sc_core::sc_out<bool> irq{"irq"};                                  // (CP_INT_STATUS & CP_INT_EN) != 0

  param<uint64_t> base{this, "base", 0x400000, "BAR0 offset of the CP register window", 0, uint64_t(1) << 40};
  param<std::string> mem_port{this, "mem_port", "interconnect", "where the mem initiator binds (e.g. an MMU's target port)"};
  param<uint64_t> generation{this, "generation", 6, "5: PFP + ME with the MEQ; 6: one SQE", 5, 6};
  param<std::string> firmware{this, "firmware", "", "SQE (a6xx) or ME (a5xx) firmware file; empty: gpuvp's own"};
  param<std::string> pfp_firmware{this, "pfp_firmware", "", "PFP firmware file (a5xx); empty: gpuvp's own"};
  param<uint64_t> call_depth{this, "call_depth", 4, "return-stack depth of each microcontroller", 1, 64};
  param<uint64_t> meq_depth{this, "meq_depth", 64, "MEQ FIFO depth in dwords (a5xx)", 1, 1 << 16};
  param<sc_core::sc_time> clock{this,
                                "clock",
                                sc_core::sc_time(1, sc_core::SC_NS),
                                "microcontroller clock period",
                                sc_core::sc_time(1, sc_core::SC_PS),
                                sc_core::sc_time(1, sc_core::SC_MS)};
  param<uint64_t> cycles_per_instr{this, "cycles_per_instr", 1, "cycles per microcode instruction", 1, 1000};
  param<uint64_t> batch{this, "batch", 1024, "instructions run between time updates", 1, 1 << 20};
  param<uint64_t> ctrl0{this, "ctrl0",    0, "control register 0 at reset (real a650 firmware expects 0x10000000, a660 0x30000000)",
                        0,    0xffffffffu};
  param<bool> autostart{this, "autostart", true, "start the microcontrollers at time 0 (else on CP_SQE_CNTL bit 0)"};
  param<uint64_t> fetch_burst{this, "fetch_burst", 16, "dwords per ROQ fetch", 1, 256};
  param<bool> secure_switch{this, "secure_switch", true, "setsecure succeeds (false: every secure-mode switch is refused)"};
  param<bool> lpac_boot_ack{this, "lpac_boot_ack", true,
                            "a write to CP_LPAC_SQE_CNTL sets THREAD_SYNC (control 0x200) bit 1, as LPAC's boot code would"};
  param<bool> fetch_dmi{this, "fetch_dmi", true, "packet fetch reads through DMI where the target grants it"};
  // Compute-dispatch port (launch_port.h, bound by cp.launch.to): with launch.kernels set the n-th
  // CP_EXEC_CS launches its n-th kernel; without, the port only records (dispatches()).
  sm::launch_port launch{this, "kernelslist.g: the n-th CP_EXEC_CS launches its n-th kernel (empty: record only)"};

  // .rd replay (rd_workload.cpp, docs/formats/rd.md).
  param<uint64_t> rd_submits{this, "rd.submits", 0, "replay only the first N submits of a .rd capture (0: all)", 0, 1u << 30};
  param<uint64_t> rd_ibs{this, "rd.ibs", 0, "replay only the first N IB1s of each submit (0: all)", 0, 1u << 30};
  param<sc_core::sc_time> rd_hang_timeout{this,
                                          "rd.hang_timeout",
                                          sc_core::sc_time(1, sc_core::SC_MS),
                                          "a busy CP that dispatches no packet this long is hung (.rd replay)",
                                          sc_core::sc_time(1, sc_core::SC_US),
                                          sc_core::sc_time(10, sc_core::SC_SEC)};

  counter packets{this, "packets", "PM4 packets dispatched (by the SQE or the ME)"};
  counter fetched{this, "fetched_dwords", "dwords fetched by the ROQ"};
  counter fetches{this, "fetches", "ROQ fetch transactions"};
  counter mem_reads{this, "mem_reads", "firmware memory reads (CP_ME_NRT / MEM_READ / load)"};
  counter mem_writes{this, "mem_writes", "firmware memory writes"};
  counter events{this, "events", "CP_EVENT_WRITE packets"};
  counter ib_ends{this, "ib_ends", "IN_IB_END dispatches (an IB's dwords consumed; a5xx: on the PFP)"};
  counter interrupts{this, "interrupts", "CP interrupt bits raised"};
  counter pipe_other{this, "pipe_writes_unmodelled", "pipe register writes without behaviour (see docs/models/cp.md)"};
  counter packets_noop{this, "packets_noop", "packets gpuvp's firmware accepts without effect (draws, blits, markers, waits)"};
  counter pipe_events{this, "pipe_events", "event pipe: EVENT_CMD writes (a6xx pipe register 0xe7)"};
  counter pipe_ts_writes{this, "pipe_ts_writes", "event pipe: timestamps or EVENT_TS_DATA written to EVENT_TS_ADDR"};
  counter stall_data{this, "stalls.packet_data", "waits for ring-buffer data"};
  counter stall_meq_full{this, "stalls.meq_full", "PFP waits on a full MEQ"};
  counter stall_meq_empty{this, "stalls.meq_empty", "ME waits on an empty MEQ"};
  counter stall_poll{this, "stalls.poll", "firmware poll delays (CP_WAIT_REG_MEM)"};
  counter stall_compute{this, "stalls.compute", "CP_EVENT_WRITE waits for launched kernels"};
  counter preempt_requests{this, "preempt_requests", "preemption requests (CP_CONTEXT_SWITCH_CNTL STOP, PREEMPT_TRIGGER)"};
  counter preemptions{this, "preemptions", "interrupt handlers entered by the SQE"};
  counter secure_switches{this, "secure_switches", "setsecure successes"};
  counter secure_refused{this, "secure_refused", "setsecure failures (secure_switch off)"};
  counter dmi_fetches{this, "dmi_fetches", "ROQ fetches served through DMI"};
  counter cs_launched{this, "cs_launched", "CP_EXEC_CS launched on the compute engine"};
  counter cs_completed{this, "cs_completed", "launched kernels completed"};
  histogram meq_occupancy{this, "meq_occupancy", "MEQ dwords at each PFP push", "dwords"};

  explicit command_processor(sc_core::sc_module_name name);
  ~command_processor() override;

  sc_core::sc_module& module() override { return *this; }
  std::vector<target_port> targets() override { return {{"regs", &regs.in, base, window_size, true}}; }
  std::vector<initiator_port> initiators() override { return {{"mem", &mem, mem_port}}; }
  std::vector<irq_port> irqs() override { return {{"irq", &irq}}; }
  std::vector<interface_port> interface_ports() override { return {launch.port()}; }
  bool qtest(const std::vector<std::string>& words, std::string& reply) override;
  void report(std::ostream& os) override;
  std::vector<std::string> modelled_errors() override { return errors_; }
  std::vector<std::string> busy() override {
    if (idle()) return {};
    return {"microcode running (" + std::to_string(packets.value()) + " packets dispatched)"};
  }

  // Backdoor views for tests and workloads.
  uint32_t gpu_reg(uint32_t r) const;
  const std::vector<cs_dispatch>& dispatches() const { return dispatches_; }
  const std::map<uint32_t, uint64_t>& packets_by_opcode() const { return by_opcode_; }
  // CP_IB1_REM_SIZE when the first fault came (the IB1 dwords not consumed yet).
  uint32_t ib1_rem_at_fault() const { return ib1_rem_at_fault_; }
  // Every GPU register the microcontrollers wrote, with its last value.
  const std::map<uint32_t, uint32_t>& written_registers() const { return written_; }
  // "sqe pc 0x0c1" (each microcontroller's pc), for messages.
  std::string iss_position() const;
  const afuc_iss& iss(unsigned i) const;  // 0: SQE or PFP, 1: ME
  unsigned num_ucs() const;
  // Control registers the firmware used that the model stores without behaviour.
  const std::set<uint32_t>& unmodelled_control_registers() const { return unmodelled_ctrl_; }
  bool idle() const;                       // every microcontroller waiting for input (or stopped) and the MEQ empty
  bool halted() const;                     // a microcontroller stopped on a microcode error
  bool secure() const { return secure_; }  // secure mode (last successful setsecure)

  struct uc;  // one microcontroller (ISS + environment + thread)

 private:
  friend struct uc;
  uint32_t reg_read(uint32_t r);
  void reg_write(uint32_t r, uint32_t v);
  void raise(uint32_t bits);
  void fault(uint32_t cause, uint32_t detail, const std::string& msg);
  void drive_irq();
  void request_preempt();
  // Packet-fetch DMI: a host pointer to [addr, addr + len) when fetch_dmi is on and the target
  // granted a region covering it; nullptr otherwise (then fetch uses b_transport).
  const uint8_t* dmi_read_ptr(uint64_t addr, unsigned len);
  void invalidate_dmi(sc_dt::uint64 start, sc_dt::uint64 end);
  // CP_EXEC_CS at the dispatch port; called by the microcontroller at its local time.
  // `flow`: a trace flow arrow (tracer::flow_out) from the dispatching unit to the kernel; 0: none.
  void exec_cs(std::vector<uint32_t> words, uint64_t flow = 0);
  std::vector<uint32_t> load_fw(const std::string& path, const std::string& fallback);

  std::vector<std::unique_ptr<uc>> ucs_;
  std::map<uint32_t, uint32_t> other_regs_;  // GPU registers without a reg member
  std::map<uint32_t, uint32_t> written_;     // every register the firmware wrote: last value
  std::vector<cs_dispatch> dispatches_;
  uint64_t cs_outstanding_ = 0;  // launched, not completed
  sc_core::sc_event cs_done_ev_;
  std::vector<uint32_t> cs_words_;
  std::map<uint32_t, uint64_t> by_opcode_;
  std::map<uint32_t, std::unique_ptr<counter>> opcode_counters_;
  std::vector<std::string> errors_;
  uint32_t ib1_rem_at_fault_ = 0;
  std::set<uint32_t> unmodelled_ctrl_;
  bool secure_ = false;
  tlm::tlm_dmi dmi_;
  bool dmi_valid_ = false;
  bool dmi_hint_ = true;  // ask for DMI (again after a b_transport that allowed it)
  std::deque<uint32_t> meq_;
  sc_core::sc_event start_ev_, wptr_ev_, meq_push_ev_, meq_pop_ev_, irq_ev_, never_;
};

}  // namespace gpuvp::cp
