// SPDX-License-Identifier: Apache-2.0
// gpu_memory's request and reply crossbars (GPGPU-Sim's local_interconnect.cc xbar_router):
// ports, arbitration, grants into the sub-partitions' and clusters' output buffers.
#include <algorithm>

#include "memsys.h"

namespace gpuvp::sm {

namespace {
// One xbar_router::Advance arbitration. `inputs` (ascending GPGPU-Sim node ids: clusters 0..n-1,
// then the sub-partitions) have a packet whose head is for the output at the same index of
// `dests`; grant(i) moves input i's head to its output; an output whose buffer is full (room(dest)
// false: Has_Buffer_Out, -icnt_out_buffer_limit) takes nothing. iSLIP (algo 1): outputs in order,
// each grants the first input after its pointer in `next` (upper_bound of the pointer: the input
// after the last granted is passed over, as GPGPU-Sim does) whose head is for it, one packet per
// input; the pointer moves past the granted input. Round robin (0): inputs in order from node
// `pointer` (the router's Advance count modulo its `nodes`, clusters + sub-partitions), one
// packet per output.
// `after` and `any` are scratch.
template <class DestOf, class Room, class Grant>
void arbitrate(unsigned algo, std::vector<unsigned>& inputs, std::vector<unsigned>& dests, std::vector<unsigned>& next,
               uint64_t pointer, DestOf dest_of, Room room, Grant grant, std::vector<unsigned>& after,
               std::vector<unsigned>& any) {
  if (algo == 1) {
    std::sort(dests.begin(), dests.end());
    dests.erase(std::unique(dests.begin(), dests.end()), dests.end());
    // An input offers one packet, to one output, so a grant takes it from no other output's
    // candidates: per output, the scan from the pointer finds its first input above the pointer,
    // else its first input; both worked out in one pass over the inputs.
    if (after.size() < next.size()) {
      after.resize(next.size());
      any.resize(next.size());
    }
    for (unsigned dest : dests) after[dest] = any[dest] = ~0u;
    for (unsigned id : inputs) {
      const unsigned d = dest_of(id);
      if (any[d] == ~0u) any[d] = id;
      if (after[d] == ~0u && id > next[d]) after[d] = id;
    }
    for (unsigned dest : dests) {
      if (!room(dest)) continue;
      const unsigned id = after[dest] != ~0u ? after[dest] : any[dest];
      grant(id);
      next[dest] = id + 1;
    }
    return;
  }
  const size_t n = inputs.size();
  const unsigned start = unsigned(pointer);
  const size_t first = size_t(std::lower_bound(inputs.begin(), inputs.end(), start) - inputs.begin());
  dests.clear();  // outputs granted this cycle
  for (size_t j = 0; j < n; ++j) {
    const unsigned id = inputs[(first + j) % n];
    const unsigned dest = dest_of(id);
    if (!room(dest) || std::find(dests.begin(), dests.end(), dest) != dests.end()) continue;
    dests.push_back(dest);
    grant(id);
  }
}
}  // namespace

bool gpu_memory::concurrent_access(unsigned nodes) {
  if (nodes) port_of(nodes - 1);  // grown now: access() must not resize the port vectors
  return true;
}

bool gpu_memory::full(const mem_client* client) const {
  const unsigned node = client ? client->icnt_node() : ~0u;
  return node != ~0u && node + 1 < xin_.size() && xin_[node].size() >= m_.icnt_in_buffer;
}

// A client's port on both crossbars: cluster n at n (GPGPU-Sim's node numbers), other engines
// (icnt_node ~0u) at the last port, after every cluster seen.
unsigned gpu_memory::port_of(unsigned node) {
  if (node != ~0u && node + 1 >= xin_.size()) {  // grow, keeping the engines' port last
    const size_t n = size_t(node) + 2;
    ring<xbar_packet> ein;
    ring<reply> eout;
    unsigned enext = 0;
    if (!xin_.empty()) {
      ein = std::move(xin_.back());
      eout = std::move(rout_.back());
      enext = rnext_.back();
      xin_.back().clear();
      rout_.back().clear();
      rnext_.back() = 0;
    }
    xin_.resize(n);
    rout_.resize(n);
    rnext_.resize(n, 0);
    xin_.back() = std::move(ein);
    rout_.back() = std::move(eout);
    rnext_.back() = enext;
  }
  return node == ~0u ? unsigned(xin_.size() - 1) : node;
}

// The request crossbar's step (xbar_router::Advance) in cycle `now`: each input offers the packet
// at the head of its buffer (a head that loses holds back the packets behind it), arbitrated by
// -icnt_arbiter_algo (arbitrate) into the sub-partitions' output buffers of -icnt_out_buffer_limit
// packets (other engines' sectors, which enter there directly, count too).
void gpu_memory::advance(uint64_t now) {
  xscratch_.clear();
  dscratch_.clear();
  for (unsigned i = 0; i < xin_.size(); ++i)
    if (!xin_[i].empty() && xin_[i].front().ready <= now) {
      xscratch_.push_back(i);
      dscratch_.push_back(xin_[i].front().sp);
    }
  if (xscratch_.empty()) return;
  arbitrate(
      m_.icnt_arbiter, xscratch_, dscratch_, next_node_, rr_pointer(now), [&](unsigned i) { return xin_[i].front().sp; },
      [&](unsigned dest) { return sp_[dest].xout.size() < m_.icnt_out_buffer; }, [&](unsigned i) { grant(i, now); },
      ascratch_, bscratch_);
}

// The granted packet is in its output buffer after the interconnect step of `now`; the
// sub-partition pops it in its L2 step of a later cycle (step_sub_partition).
void gpu_memory::grant(unsigned input, uint64_t now) {
  const xbar_packet p = xin_[input].front();
  xin_[input].pop_front();
  --xbar_queued_;
  l2_request r = p.r;
  r.t = now + 1;
  sp_[p.sp].xout.push_back(r);
  l2_queued(r.t);
}

// The reply crossbar's step (xbar_router::Advance, -icnt_arbiter_algo as for requests): inputs
// are the sub-partitions, numbered after the clusters as GPGPU-Sim's mem2device does (so a
// cluster's first iSLIP grant starts from sub-partition 0), outputs the clusters' buffers of
// -icnt_out_buffer_limit packets.
void gpu_memory::reply_advance(uint64_t now) {
  xscratch_.clear();
  dscratch_.clear();
  const unsigned first = cfg_.num_clusters;  // sub-partition i is node first + i
  for (unsigned i = 0; i < sp_.size(); ++i)
    if (!sp_[i].rin.empty()) {
      xscratch_.push_back(first + i);
      dscratch_.push_back(sp_[i].rin.front().port);
    }
  if (xscratch_.empty()) return;
  arbitrate(
      m_.icnt_arbiter, xscratch_, dscratch_, rnext_, rr_pointer(now),
      [&](unsigned n) { return sp_[n - first].rin.front().port; },
      [&](unsigned dest) { return rout_[dest].size() < m_.icnt_out_buffer; },
      [&](unsigned n) {
        auto& rin = sp_[n - first].rin;
        rout_[rin.front().port].push_back(rin.front());
        rin.pop_front();
      },
      ascratch_, bscratch_);
}

// Round robin's first node in cycle `now`: both routers advance once a crossbar cycle from the
// GPU's first cycle (not reset between kernels) over clusters + sub-partitions nodes.
uint64_t gpu_memory::rr_pointer(uint64_t now) const { return (base_ + now) % (cfg_.num_clusters + sp_.size()); }

}  // namespace gpuvp::sm
