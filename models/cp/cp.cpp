// SPDX-License-Identifier: Apache-2.0
#include "cp.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <sstream>

#include "afuc_asm.h"
#include "cp_uc.h"
#include "gpuvp/extension.h"
#include "gpuvp/trace.h"

#ifndef GPUVP_CP_FIRMWARE_DIR
#define GPUVP_CP_FIRMWARE_DIR "firmware/cp"
#endif

namespace gpuvp::cp {

namespace {
// gpuvp's own firmware: the build tree's, or once installed (the build tree gone) the copy in
// <prefix>/share/gpuvp/firmware/cp next to <prefix>/bin (cmake/install.cmake).
std::string firmware_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(GPUVP_CP_FIRMWARE_DIR, ec)) return GPUVP_CP_FIRMWARE_DIR;
  const fs::path installed = fs::read_symlink("/proc/self/exe", ec).parent_path().parent_path() / "share/gpuvp/firmware/cp";
  return !ec && fs::is_directory(installed, ec) ? installed.string() : GPUVP_CP_FIRMWARE_DIR;
}
}  // namespace

void command_processor::uc::catch_up() {
  const uint64_t n = iss.stats().instructions - accounted;
  if (n) {
    accounted += n;
    instructions += n;
    cycles += n * m.cycles_per_instr;
    lt.advance(m.clock.get() * double(n * m.cycles_per_instr));
  }
  const auto& st = iss.stats();
  if (st.interrupts != irqs_seen) {  // handler entered: the request is acknowledged (STOP clears)
    m.preemptions += st.interrupts - irqs_seen;
    irqs_seen = st.interrupts;
    m.ctx_switch_cntl = m.ctx_switch_cntl.get() & ~uint64_t(1);
  }
  if (st.packets != packets_seen) {
    // IN_IB_END dispatches are the CP's own, not the stream's packets (cp.ib_ends counts them).
    const uint64_t internal = gen() >= 6 ? st.packets_by_id[PM4_IN_IB_END] - by_id_seen[PM4_IN_IB_END] : 0;
    if (role != pfp) m.packets += st.packets - packets_seen - internal;  // the ME executes them
    packets_seen = st.packets;
    for (unsigned id = 0; id < 128; id++) {
      if (st.packets_by_id[id] == by_id_seen[id]) continue;
      const uint64_t d = st.packets_by_id[id] - by_id_seen[id];
      by_id_seen[id] = st.packets_by_id[id];
      if (role == pfp || (id == PM4_IN_IB_END && gen() >= 6)) continue;  // the ME executes them; internal
      m.by_opcode_[id] += d;
      auto& c = m.opcode_counters_[id];
      if (!c) c = std::make_unique<counter>(&m, "packets." + pm4_id_name(id, gen()), "packets of this opcode");
      *c += d;
    }
  }
}

void command_processor::uc::request_preempt(bool from_sqe) {
  ++m.preempt_requests;
  ctrl[CTRL_PREEMPT_TRIGGER] = from_sqe;  // Mesa: "reads return 1 if SQE triggered preemption"
  const uint32_t pi = iss.sqe_reg(SQE_PREEMPT_INSTR);
  iss.interrupt(pi ? pi : iss.jumptable(15));
  m.wptr_ev_.notify(sc_core::SC_ZERO_TIME);  // wakes a wait for packet data
}

bool command_processor::uc::set_secure(uint32_t v) {
  if (!m.secure_switch) {
    ++m.secure_refused;
    return false;
  }
  m.secure_ = v & 1;
  ctrl[CTRL_SECURE_MODE] = v & 1;
  ++m.secure_switches;
  return true;
}

void command_processor::uc::error(const std::string& msg) {
  m.fault(FAULT_MICROCODE, iss.pc(), m.name() + std::string(".") + tag + ": " + msg);
}

void command_processor::uc::thread() {
  if (!m.autostart) {  // wait for CP_SQE_CNTL bit 0
    waiting = true;
    while (!(m.sqe_cntl.get() & 1)) sc_core::wait(m.start_ev_);
    waiting = false;
  }
  for (;;) {
    iss.run(m.batch);
    catch_up();
    if (iss.st() == afuc_iss::state::halted) {
      waiting = true;
      lt.sync();
      sc_core::wait(m.never_);
    }
    iss.resume();
  }
}

command_processor::command_processor(sc_core::sc_module_name name) : sc_module(name) {
  for (unsigned i = 0; i < scratch.size(); i++)
    scratch[i] = std::make_unique<reg>(regs, "CP_SCRATCH_REG" + std::to_string(i), 4 * (CP_SCRATCH_REG0 + i), 4, 0);
  rb_wptr.sync = true;
  mem.register_invalidate_direct_mem_ptr(this, &command_processor::invalidate_dmi);
  sqe_cntl.on_write = [this](uint64_t, uint64_t) { start_ev_.notify(sc_core::SC_ZERO_TIME); };
  rb_wptr.on_write = [this](uint64_t, uint64_t) { wptr_ev_.notify(sc_core::SC_ZERO_TIME); };
  int_status.on_write = [this](uint64_t, uint64_t) { irq_ev_.notify(sc_core::SC_ZERO_TIME); };
  int_en.on_write = [this](uint64_t, uint64_t) { irq_ev_.notify(sc_core::SC_ZERO_TIME); };
  ctx_switch_cntl.on_write = [this](uint64_t v, uint64_t) {
    if ((v & 1) && generation == 6) request_preempt();  // a6xx preemption (a5xx: stored only)
  };

  const std::string dir = firmware_dir();
  if (generation == 6) {
    ucs_.push_back(std::make_unique<uc>(*this, uc::sqe, load_fw(firmware, dir + "/sqe.fw")));
  } else {
    ucs_.push_back(std::make_unique<uc>(*this, uc::pfp, load_fw(pfp_firmware, dir + "/pfp5.fw")));
    ucs_.push_back(std::make_unique<uc>(*this, uc::me, load_fw(firmware, dir + "/me5.fw")));
  }
  for (auto& u : ucs_) {
    uc* p = u.get();
    sc_core::sc_spawn_options o;
    sc_core::sc_spawn([p] { p->thread(); }, (std::string(p->tag) + "_thread").c_str(), &o);
  }
  SC_HAS_PROCESS(command_processor);
  SC_METHOD(drive_irq);
  sensitive << irq_ev_;
  dont_initialize();
}

command_processor::~command_processor() = default;

std::vector<uint32_t> command_processor::load_fw(const std::string& path, const std::string& fallback) {
  const std::string file = path.empty() ? fallback : path;
  // Name the key that chose the file (cp.firmware / cp.pfp_firmware), or the built-in image.
  const std::string key = path.empty()               ? std::string(name()) + ": built-in firmware"
                          : &path == &firmware.get() ? firmware.path()
                                                     : pfp_firmware.path();
  std::vector<uint32_t> w;
  try {
    w = read_words(file);
  } catch (const std::exception& e) {
    throw config_error(key + ": cannot load CP firmware: " + e.what());
  }
  if (w.empty()) throw config_error(key + ": " + file + ": empty firmware image (expected a header word and microcode)");
  if (w.size() < 3) throw config_error(key + ": CP firmware " + file + " is too short (" + std::to_string(w.size()) + " words)");
  return std::vector<uint32_t>(w.begin() + 1, w.end());  // drop the file header
}

uint32_t command_processor::reg_read(uint32_t r) {
  if (uint64_t(r) * 4 >= window_size) return 0;
  if (reg* R = regs.find(uint64_t(r) * 4)) return uint32_t(R->get());
  auto it = other_regs_.find(r);
  return it == other_regs_.end() ? 0 : it->second;
}

void command_processor::reg_write(uint32_t r, uint32_t v) {
  if (uint64_t(r) * 4 >= window_size) {
    fault(FAULT_BUS, r, std::string(name()) + ": firmware write to register " + to_hex(r) + " outside the GPU register file");
    return;
  }
  if (r == CP_LPAC_SQE_CNTL && lpac_boot_ack && generation == 6) {
    // No LPAC in the model: do what Mesa's emulator does for its boot code, which sets
    // THREAD_SYNC bit 1 (the SQE's boot code waits for it after setting bit 0).
    ucs_[0]->ctrl[CTRL_THREAD_SYNC] |= 2u;
  }
  written_[r] = v;
  if (reg* R = regs.find(uint64_t(r) * 4)) {
    R->set(v);
    if (R == &rb_wptr) wptr_ev_.notify(sc_core::SC_ZERO_TIME);
    if (R == &int_status || R == &int_en) irq_ev_.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  other_regs_[r] = v;
}

uint32_t command_processor::gpu_reg(uint32_t r) const { return const_cast<command_processor*>(this)->reg_read(r); }

void command_processor::raise(uint32_t bits) {
  int_status = int_status.get() | bits;
  ++interrupts;
  irq_ev_.notify(sc_core::SC_ZERO_TIME);
}

void command_processor::fault(uint32_t cause, uint32_t detail, const std::string& msg) {
  if (hw_fault.get() == 0) hw_fault = cause | detail << 8;
  if (errors_.empty()) ib1_rem_at_fault_ = uint32_t(ib1_rem.get());
  errors_.push_back(msg);
  GPUVP_LOG(this, error, msg);
  raise(INT_ERROR);
}

void command_processor::drive_irq() { irq.write((int_status.get() & int_en.get()) != 0); }

const afuc_iss& command_processor::iss(unsigned i) const { return ucs_.at(i)->iss; }
unsigned command_processor::num_ucs() const { return unsigned(ucs_.size()); }

bool command_processor::idle() const {
  for (auto& u : ucs_)
    if (!u->waiting) return false;
  return meq_.empty() && cs_outstanding_ == 0;
}

void command_processor::exec_cs(std::vector<uint32_t> words, uint64_t flow) {
  const size_t n = dispatches_.size();  // this dispatch's index
  dispatches_.push_back({words, false});
  sm::launch_if* ce = launch.engine();
  if (!ce || launch.size() == 0) return;  // the recording sink
  auto fail = [&](const std::string& why) {
    fault(FAULT_COMPUTE, uint32_t(n), std::string(name()) + ": CP_EXEC_CS #" + std::to_string(n) + ": " + why);
  };
  if (words.size() != 4) return fail("payload has " + std::to_string(words.size()) + " dwords, expected 4");
  if (n >= launch.size())
    return fail("no kernel " + std::to_string(n + 1) + " in " + launch.kernels.get() + " (" + std::to_string(launch.size()) + " kernels)");
  std::shared_ptr<const sm::kernel_trace> k;
  try {
    k = launch.trace(n + 1);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  const sm::dim3 grid{words[1], words[2], words[3]};
  try {
    ce->submit({grid, k->block, k, std::nullopt, flow}, [this](const sm::launch_result&) {
      --cs_outstanding_;
      ++cs_completed;
      cs_done_ev_.notify(sc_core::SC_ZERO_TIME);
    });
  } catch (const std::invalid_argument& e) {
    return fail(e.what());
  }
  ++cs_outstanding_;
  ++cs_launched;
  dispatches_.back().launched = true;
}

const uint8_t* command_processor::dmi_read_ptr(uint64_t addr, unsigned len) {
  if (!fetch_dmi) return nullptr;
  auto covers = [&] {
    return dmi_valid_ && dmi_.is_read_allowed() && addr >= dmi_.get_start_address() && addr + len - 1 <= dmi_.get_end_address();
  };
  if (!covers() && dmi_hint_) {
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(addr);
    gp.set_data_length(len);
    tlm::tlm_dmi d;
    if (mem->get_direct_mem_ptr(gp, d)) {
      dmi_ = d;
      dmi_valid_ = true;
    } else {
      dmi_hint_ = false;  // until a b_transport says DMI is allowed
    }
  }
  return covers() ? dmi_.get_dmi_ptr() + (addr - dmi_.get_start_address()) : nullptr;
}

void command_processor::invalidate_dmi(sc_dt::uint64 start, sc_dt::uint64 end) {
  if (dmi_valid_ && start <= dmi_.get_end_address() && end >= dmi_.get_start_address()) dmi_valid_ = false;
}

void command_processor::request_preempt() { ucs_.at(0)->request_preempt(); }

std::string command_processor::iss_position() const {
  std::string s;
  for (auto& u : ucs_) s += (s.empty() ? "" : ", ") + std::string(u->tag) + " pc " + to_hex(u->iss.pc());
  return s;
}

bool command_processor::halted() const {
  for (auto& u : ucs_)
    if (u->iss.st() == afuc_iss::state::halted) return true;
  return false;
}

bool command_processor::qtest(const std::vector<std::string>& words, std::string& reply) {
  if (words.empty() || words[0] != "cp_status") return false;
  std::ostringstream os;
  os << "OK";
  for (auto& u : ucs_) {
    os << " " << u->tag << "_pc=" << to_hex(u->iss.pc()) << " " << u->tag << "_state="
       << (u->iss.st() == afuc_iss::state::halted ? "halted"
           : u->waiting                           ? "waiting"
                                                  : "running");
  }
  os << " packets=" << packets.value() << " dispatches=" << dispatches_.size();
  reply = os.str();
  return true;
}

void command_processor::report(std::ostream& os) {
  // One line: "sqe 198 instr 198 cycles, 15 packets (PKT4 3, ...), 1 dispatches, stalls ..."
  for (auto& u : ucs_) {
    u->catch_up();
    os << u->tag << " " << u->instructions.value() << " instr " << u->cycles.value() << " cycles, ";
  }
  os << packets.value() << " packets (";
  bool first = true;
  for (auto& [id, n] : by_opcode_) {
    os << (first ? "" : ", ") << pm4_id_name(id, int(generation.get())) << " " << n;
    first = false;
  }
  os << "), " << dispatches_.size() << " compute dispatches (" << cs_launched.value() << " launched, " << cs_completed.value()
     << " completed), stalls: data " << stall_data.value() << ", compute " << stall_compute.value() << ", poll " << stall_poll.value();
  if (ucs_.size() > 1) os << ", meq full " << stall_meq_full.value() << ", meq empty " << stall_meq_empty.value();
  os << "\n";
}

}  // namespace gpuvp::cp
