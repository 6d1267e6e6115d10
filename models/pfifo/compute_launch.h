// SPDX-License-Identifier: Apache-2.0
// The compute class behind the puller (object class 0x50c0; its method set is this model's own,
// table in docs/models/pfifo.md): an engine that launches the kernels of its kernel list on the
// compute engine its launch port is bound to (sm/launch_port.h) and stays busy until the kernel is
// done, so that the puller's engine switch and REF_CNT wait for it. A completed launch writes its
// notifier (16 bytes, as M2MF's: time in ns, 0, status 0 done / 1 failed / 2 refused) and releases
// its semaphore; launch errors (unknown kernel, bad trace, grid/block mismatch, no engine bound) are
// the engine's modelled errors. The kernel's accesses carry PGRAPH's PROP client (nv50-vm.rst),
// DMA_GLOBAL's selector and the launching channel (sm::mem_sideband) as user accesses.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>
#include <systemc>
#include "fifo_core.h"
#include "gpuvp/config.h"
#include "launch_port.h"

namespace gpuvp::pfifo {

class compute_launch_engine : public engine {
 public:
  // The port lives under the owner (the pfifo component): <owner>.launch.kernels / .launch.to.
  compute_launch_engine(std::string name, fifo_bus& bus, bool gf100, const sc_core::sc_object* owner);
  ~compute_launch_engine() override;

  sm::launch_port port;  // kernelslist.g whose kernels KERNEL selects; the compute engine

  // Methods (0x000 OBJECT is accepted).
  enum : uint32_t {
    m_notify = 0x104,             // arm the notifier of the next LAUNCH
    m_dma_notify = 0x180,         // DMA object of the notifier (RAMHT handle; GF100: its address)
    m_dma_semaphore = 0x184,      // DMA object of the release semaphore (GF100: the base address)
    m_dma_global = 0x188,         // DMA object of the kernels' global/local memory (GF100: unused)
    m_kernel = 0x200,             // 1-based index of the kernel in launch.kernels
    m_grid_x = 0x204,             // GRID_X/Y/Z at 0x204/0x208/0x20c: must match the trace header
    m_block_x = 0x210,            // BLOCK_X/Y/Z at 0x210/0x214/0x218: idem
    m_semaphore_offset = 0x220,   // offset of the release semaphore in DMA_SEMAPHORE
    m_semaphore_release = 0x224,  // arm: the next LAUNCH's completion writes the parameter there
    m_launch = 0x300,             // launch the selected kernel with GRID/BLOCK
  };
  uint64_t launches = 0, completed = 0, launch_errors = 0, kernel_errors = 0, notifies = 0, releases = 0;
  static constexpr uint32_t vm_engine_pgraph = 0x0, vm_client_prop = 0x0b;
  // The channel descriptor of channel `ch` (the vm_context of its kernels): the pfifo component
  // that creates the engine sets it (fifo_core::channel::inst_desc); unset: 0xffffffff.
  std::function<uint32_t(unsigned ch)> channel_desc;
  std::vector<std::string> errors;  // launch errors (first 8)
  void describe_errors(std::vector<std::string>& out) const override;

  struct state {
    uint32_t dma_notify = 0, dma_semaphore = 0, kernel = 0, semaphore_offset = 0, release_value = 0;
    uint32_t dma_global = 0xffffffffu;
    uint32_t bind_notify = 0, bind_semaphore = 0, bind_global = 0;  // selector-rewrite generations (gpu_ext::dma_bind)
    uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
    bool notify_armed = false, release_armed = false;
  };

 protected:
  uint64_t execute(unsigned ch, unsigned subc, uint32_t mthd, uint32_t param, uint64_t start) override;

 private:
  // What a launch owes at completion (captured at LAUNCH time).
  struct completion {
    unsigned ch;
    uint32_t dma_notify, dma_semaphore, semaphore_offset, release_value;
    bool notify, release;
    uint32_t bind_notify, bind_semaphore;
  };
  bool access(bool write, unsigned ch, uint32_t obj, uint32_t bind, uint64_t off, void* data, unsigned len, uint64_t& t);
  void complete(const completion& c, uint32_t status, uint64_t t);
  // execute()'s LAUNCH (returns its execution time), and the start of an accepted launch's kernel.
  uint64_t launch(unsigned ch, state& s, uint64_t start, uint64_t cost);
  void start_kernel(const completion& c, sm::launch_if* ce, sm::kernel_launch k, uint64_t start, bool behind_kernel);
  void error(const std::string& what);
  std::shared_ptr<const sm::kernel_trace> trace_of(uint32_t index);

  fifo_bus& bus_;
  bool gf100_;
  std::vector<state> st_;
  unsigned outstanding_ = 0;
};

}  // namespace gpuvp::pfifo
