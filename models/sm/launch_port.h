// SPDX-License-Identifier: Apache-2.0
// The kernel-launch port: how a launcher (the CP's CP_EXEC_CS, PFIFO's compute class, the ASC's
// launch command) runs a kernel of its kernel list on a compute engine (compute.h). A declared
// port header: other models include this one, never compute.h.
//
// A launcher owns a launch_port: its kernel list `<owner>.launch.kernels` (a kernelslist.g read
// once, traces parsed on first use) and the interface port `<component>.<port>.to` the platform
// binds from configuration to a compute engine's `launch` export (default `compute.launch`).
// Unbound with a kernel list, bound to an export of another interface, or bound to a name no
// component exports: configuration errors at elaboration (component::interface_port).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include <systemc>

#include "core/trace.h"
#include "gpuvp/config.h"
#include "gpuvp/extension.h"
#include "gpuvp/registry.h"

namespace gpuvp::sm {

// The gpu_ext side band of one kernel's memory accesses (the SM's accesses are user accesses).
struct mem_sideband {
  uint32_t vm_engine = gpu_ext::none, vm_client = gpu_ext::none;
  uint32_t dma_slot = gpu_ext::none, dma_bind = 0;  // DMA object selector and its rewrite generation
  uint32_t vm_context = gpu_ext::none;              // channel descriptor
  uint32_t channel = gpu_ext::none;                 // launching PFIFO channel
};

struct kernel_launch {
  dim3 grid, block;  // must match the trace's header
  std::shared_ptr<const kernel_trace> trace;
  // This kernel's side band (e.g. from the launching channel); none: the vm_* / dma_slot params.
  std::optional<mem_sideband> sideband = std::nullopt;
  // Trace flow arrow from the launching command (tracer::flow_out) to the kernel's span; 0: none.
  uint64_t flow = 0;
  // The kernel's number in the report, the results file and the trace: a kernel list numbers its
  // launches in list order (as Accel-Sim's kernel uids: one trace named 60 times runs kernels 1
  // to 60); 0: the trace header's id (a launch that picks a kernel of a list by its id).
  unsigned number = 0;
};

// What the launcher learns when its kernel is done.
struct launch_result {
  uint64_t cycles = 0;  // core cycles of the kernel
};

// The interface's name in configuration messages (component::interface_port).
inline constexpr const char* launch_interface = "kernel launch (launch_if)";

// The compute engine as a launcher sees it (exported as `<compute>.launch`).
class launch_if : public virtual sc_core::sc_interface {
 public:
  // Queues a kernel; `on_done` runs in the engine's thread, its time synchronised, when it is
  // done. Throws std::invalid_argument if grid/block do not match the trace.
  virtual void submit(kernel_launch k, std::function<void(const launch_result&)> on_done) = 0;
  // Counts that only grow: a launcher compares them around a kernel to tell whether it failed.
  virtual size_t modelled_error_count() const = 0;
  virtual uint64_t memory_error_count() const = 0;
};

class launch_port {
 public:
  // Declares <owner>.launch.kernels (`use`: what its kernels are for, the param's description).
  // `parse_all`: every trace is parsed now, so that bad input stops the run before it starts.
  launch_port(const sc_core::sc_object* owner, const std::string& use, bool parse_all = false);

  param<std::string> kernels;

  // The port for the owner's component::interface_ports(), named `name` in the component
  // ("launch"; the agx component's ASC: "asc.launch"). Needed when the kernel list is set.
  component::interface_port port(const std::string& name = "launch");
  void bind(launch_if& engine) { engine_ = &engine; }  // test benches without a platform
  launch_if* engine() const { return engine_; }

  size_t size() const { return paths_.size(); }
  // Kernel `number` (1-based) of the list, parsed on first use (then kept); throws the parser's
  // error (std::exception) on a bad trace. number must be in [1, size()].
  std::shared_ptr<const kernel_trace> trace(size_t number);

 private:
  std::vector<std::string> paths_;  // trace files of the list's kernels, in order
  std::vector<std::shared_ptr<const kernel_trace>> traces_;
  launch_if* engine_ = nullptr;
};

}  // namespace gpuvp::sm
