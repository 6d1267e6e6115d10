// SPDX-License-Identifier: Apache-2.0
#include "compute_launch.h"

#include <sstream>
#include <systemc>

namespace gpuvp::pfifo {

namespace {
uint64_t now_ps() { return uint64_t(sc_core::sc_time_stamp().to_seconds() * 1e12 + 0.5); }

// The launch error of a LAUNCH whose GRID/BLOCK differ from its trace's header.
std::string shape_mismatch(const sm::dim3& g, const sm::dim3& b, const sm::kernel_trace& tr) {
  std::ostringstream os;
  os << "LAUNCH grid " << g.x << "x" << g.y << "x" << g.z << " block " << b.x << "x" << b.y << "x" << b.z
     << ": grid/block do not match trace " << tr.file << " (" << tr.grid.x << "x" << tr.grid.y << "x" << tr.grid.z << ", " << tr.block.x
     << "x" << tr.block.y << "x" << tr.block.z << ")";
  return os.str();
}
}  // namespace

compute_launch_engine::compute_launch_engine(std::string name, fifo_bus& bus, bool gf100, const sc_core::sc_object* owner)
    : engine(std::move(name)),
      port(owner, "kernelslist.g whose kernels the compute class's KERNEL method selects"),
      bus_(bus),
      gf100_(gf100) {}

compute_launch_engine::~compute_launch_engine() = default;

void compute_launch_engine::error(const std::string& what) {
  ++launch_errors;
  if (errors.size() < 8) errors.push_back(what);
}

void compute_launch_engine::describe_errors(std::vector<std::string>& out) const {
  for (const auto& e : errors) out.push_back(name() + ": " + e);
  if (launch_errors > errors.size()) out.push_back(name() + ": " + std::to_string(launch_errors - errors.size()) + " more launch errors");
}

std::shared_ptr<const sm::kernel_trace> compute_launch_engine::trace_of(uint32_t index) {
  if (index == 0 || index > port.size()) {
    error("KERNEL " + std::to_string(index) + " is not a kernel of '" + port.kernels.get() + "' (" + std::to_string(port.size()) +
          " kernels)");
    return nullptr;
  }
  try {
    return port.trace(index);
  } catch (const std::exception& e) {
    error(e.what());
    return nullptr;
  }
}

bool compute_launch_engine::access(bool write, unsigned ch, uint32_t obj, uint32_t bind, uint64_t off, void* data, unsigned len,
                                   uint64_t& t) {
  // GF100 has no DMA objects: the DMA_* methods carry a (32-bit) address instead.
  if (gf100_) return bus_.vm(write, ch, uint64_t(obj) + off, data, len, client::engine, t);
  return bus_.dma(write, ch, obj, off, data, len, client::engine, t, bind);
}

void compute_launch_engine::complete(const completion& c, uint32_t status, uint64_t t) {
  const uint64_t done_ns = t / 1000;  // the notifier's timestamp: completion, before these writes
  if (c.release) {
    uint32_t v = c.release_value;
    if (access(true, c.ch, c.dma_semaphore, c.bind_semaphore, c.semaphore_offset, &v, 4, t))
      ++releases;
    else
      ++kernel_errors;
  }
  if (c.notify) {
    struct {
      uint64_t ts;
      uint32_t ret, status;
    } n{done_ns, 0, status};
    if (access(true, c.ch, c.dma_notify, c.bind_notify, 0, &n, 16, t))
      ++notifies;
    else
      ++kernel_errors;
  }
}

// Hands the kernel to the compute engine at the LAUNCH's time; its completion (in the engine's
// thread) writes the notifier and semaphore and, with the last kernel done, ends the busy state.
void compute_launch_engine::start_kernel(const completion& c, sm::launch_if* ce, sm::kernel_launch k, uint64_t start, bool behind_kernel) {
  auto go = [this, c, ce, k = std::move(k)]() mutable {
    const size_t errors_before = ce->modelled_error_count();
    const uint64_t mem_errors_before = ce->memory_error_count();
    ce->submit(std::move(k), [this, c, ce, errors_before, mem_errors_before](const sm::launch_result&) {
      // Called by the compute engine's thread once the kernel is done (its time synchronised).
      // A kernel queued behind another one also sees that one's errors: good enough here.
      const bool failed = ce->modelled_error_count() != errors_before || ce->memory_error_count() != mem_errors_before;
      const uint64_t t = now_ps();
      ++completed;
      if (failed) ++kernel_errors;
      complete(c, failed ? 1 : 0, t);
      if (--outstanding_ == 0) finish(t);
    });
  };
  // PFIFO runs ahead of the kernel by up to a run slice: the kernel starts at the LAUNCH's
  // own time (behind a running kernel it only queues, so at once).
  const uint64_t now = now_ps();
  if (behind_kernel || start <= now) {
    go();
  } else {
    const sc_core::sc_time delay(double(start - now), sc_core::SC_PS);
    sc_core::sc_spawn([go, delay]() mutable {
      sc_core::wait(delay);
      go();
    });
  }
}

// LAUNCH: takes what its completion owes from the channel's state, checks the kernel (a refused
// launch completes at once with status 2) and starts it; the engine stays busy until it is done.
uint64_t compute_launch_engine::launch(unsigned ch, state& s, uint64_t start, uint64_t cost) {
  const bool behind_kernel = start == never;
  const completion c{ch,
                     s.dma_notify,
                     s.dma_semaphore,
                     s.semaphore_offset,
                     s.release_value,
                     s.notify_armed,
                     s.release_armed,
                     s.bind_notify,
                     s.bind_semaphore};
  s.notify_armed = s.release_armed = false;
  ++launches;
  auto refuse = [&](const std::string& why) {
    error(why);
    complete(c, 2, behind_kernel ? now_ps() : start);
    return cost;
  };
  sm::launch_if* ce = port.engine();
  if (!ce) return refuse("no compute engine bound to the launch port (" + port.kernels.path() + " is empty)");
  auto tr = trace_of(s.kernel);
  if (!tr) {
    complete(c, 2, behind_kernel ? now_ps() : start);
    return cost;
  }
  const sm::dim3 g{s.grid[0], s.grid[1], s.grid[2]}, b{s.block[0], s.block[1], s.block[2]};
  if (g.x != tr->grid.x || g.y != tr->grid.y || g.z != tr->grid.z || b.x != tr->block.x || b.y != tr->block.y || b.z != tr->block.z)
    return refuse(shape_mismatch(g, b, *tr));
  ++outstanding_;
  sm::mem_sideband sb;
  sb.vm_engine = vm_engine_pgraph;
  sb.vm_client = vm_client_prop;
  sb.dma_slot = s.dma_global;
  sb.dma_bind = s.bind_global;
  sb.vm_context = channel_desc ? channel_desc(ch) : 0xffffffffu;
  sb.channel = ch;
  // Trace: an arrow from this engine's "work" span (1 ns into it) to the kernel's span.
  const uint64_t arrow = flow ? flow(start + 1000) : 0;
  start_kernel(c, ce, sm::kernel_launch{g, b, tr, sb, arrow}, start, behind_kernel);
  return busy_async(start);
}

uint64_t compute_launch_engine::execute(unsigned ch, unsigned, uint32_t mthd, uint32_t param, uint64_t start) {
  // While a kernel runs the engine is busy until `never`: methods queued behind it take effect
  // on the state now (LAUNCH copies it) and cost nothing more.
  const bool behind_kernel = start == never;
  const uint64_t cost = behind_kernel ? 0 : method_cost_ps;
  if (st_.size() <= ch) st_.resize(ch + 1);
  state& s = st_[ch];
  switch (mthd) {
    case m_notify:
      s.notify_armed = true;
      break;
    case m_dma_notify:
      s.dma_notify = param;
      ++s.bind_notify;
      break;
    case m_dma_semaphore:
      s.dma_semaphore = param;
      ++s.bind_semaphore;
      break;
    case m_dma_global:
      s.dma_global = param;
      ++s.bind_global;
      break;
    case m_kernel:
      s.kernel = param;
      break;
    case m_grid_x:
    case m_grid_x + 4:
    case m_grid_x + 8:
      s.grid[(mthd - m_grid_x) / 4] = param;
      break;
    case m_block_x:
    case m_block_x + 4:
    case m_block_x + 8:
      s.block[(mthd - m_block_x) / 4] = param;
      break;
    case m_semaphore_offset:
      s.semaphore_offset = param;
      break;
    case m_semaphore_release:
      s.release_value = param;
      s.release_armed = true;
      break;
    case m_launch:
      return launch(ch, s, start, cost);
    default:
      break;  // OBJECT and other methods: accepted, no modelled effect
  }
  return cost;
}

}  // namespace gpuvp::pfifo
