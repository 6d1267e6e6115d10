// SPDX-License-Identifier: Apache-2.0
// memory_system's request and reply crossbars (GPGPU-Sim's local_interconnect.cc xbar_router):
// ports, arbitration, grants into the sub-partitions' and clusters' output buffers.
#include <algorithm>

#include "memsys.h"

namespace gpuvp::gpu_memory {

namespace {
// -network_mode 1: a packet's flits (InterconnectInterface::Push: size / flit_size, rounded up);
// a read request and a write acknowledgement are 8 bytes of control, a write and a read reply
// its data and the 8 (icnt_inject_request_packet / the reply's mf->size(): data size + control;
// a sector's 32, with a non-sectored L2 up to a line: a 128-byte read's reply is 136 bytes).
unsigned packet_flits(unsigned data_bytes, unsigned flit_size) { return (data_bytes + 8 + flit_size - 1) / flit_size; }

// One xbar_router::Advance arbitration. Inputs (GPGPU-Sim node ids: clusters 0..n-1, then the
// sub-partitions) with a packet offer their head, for its output; grant(i) moves input i's head
// to its output; an output whose buffer is full (room(dest) false: Has_Buffer_Out,
// -icnt_out_buffer_limit) takes nothing. iSLIP (algo 1, islip), as GPGPU-Sim's
// iSLIP_Advance in the version behind Accel-Sim's calibration timelines: outputs in ascending order,
// each granting one packet: the first input, from its pointer in `next` on (the input at the
// pointer included) and wrapping, whose head is for it; the pointer moves to the input after the
// granted one. An input is not limited to one packet a cycle: after a grant its next packet
// (has(i): it has one the crossbar may move; dest_of(i): its output) competes for the outputs
// still to come. (A later GPGPU-Sim rewrote the scan over a set of inputs that starts after the
// pointer and takes each input once a cycle; Accel-Sim's timelines of ldg_stride128_3warp and
// ldg_hide_3cta match the scan above and neither of those.) Round robin (0, round_robin): inputs
// in order from node `pointer` (the router's Advance count modulo its `nodes`, clusters +
// sub-partitions), one packet per output.

// The first candidate of bit set b (`words` words, not empty) from node `from` on, wrapping.
inline unsigned first_candidate(const uint64_t* b, size_t words, unsigned from) {
  for (size_t w = from / 64; w < words; ++w) {
    const uint64_t x = w == from / 64 ? b[w] >> (from % 64) << (from % 64) : b[w];
    if (x) return unsigned(w * 64 + unsigned(__builtin_ctzll(x)));
  }
  for (size_t w = 0;; ++w)
    if (b[w]) return unsigned(w * 64 + unsigned(__builtin_ctzll(b[w])));
}

// iSLIP's candidates (algo 1): per output a bit set of node ids (`words` words, nodes below
// 64 * words), then the outputs with candidates, in `scratch` (all clear between arbitrations);
// the caller adds each input's head as it finds it.
struct islip_sets {
  islip_sets(std::vector<uint64_t>& scratch, size_t nodes, size_t outputs) : words((nodes + 63) / 64) {
    const size_t out_words = (outputs + 63) / 64;
    if (scratch.size() < outputs * words + out_words) scratch.resize(outputs * words + out_words, 0);
    sets = scratch.data();
    outs = sets + outputs * words;
    out_words_ = out_words;
  }
  void add(unsigned id, unsigned dest) {
    sets[dest * words + id / 64] |= uint64_t(1) << (id % 64);
    outs[dest / 64] |= uint64_t(1) << (dest % 64);
    any = true;
  }
  size_t words, out_words_ = 0;
  uint64_t *sets = nullptr, *outs = nullptr;
  bool any = false;
};

// The iSLIP walk (algo 1) over the candidates in c. Bit sets walked lowest bit first
// are the candidates in ascending node order, the outputs in ascending order (an output added
// while they are walked is above the one walked); each output's set is cleared once walked.
template <class DestOf, class Room, class Grant, class Has>
void islip(islip_sets& c, std::vector<unsigned>& next, DestOf dest_of, Room room, Grant grant, Has has) {
  const size_t words = c.words;
  for (size_t ow = 0; ow < c.out_words_; ++ow)
    while (c.outs[ow]) {
      const unsigned dest = unsigned(ow * 64 + unsigned(__builtin_ctzll(c.outs[ow])));
      c.outs[ow] &= c.outs[ow] - 1;
      uint64_t* b = &c.sets[dest * words];
      const unsigned id = room(dest) ? first_candidate(b, words, next[dest]) : ~0u;
      std::fill(b, b + words, 0);
      if (id == ~0u) continue;
      grant(id);
      next[dest] = id + 1;
      if (!has(id)) continue;
      const unsigned d2 = dest_of(id);
      if (d2 <= dest) continue;  // its output was arbitrated this cycle already
      c.add(id, d2);
    }
}

// Round robin (algo 0) over `inputs` (ascending node ids with a packet; `dests`: scratch).
template <class DestOf, class Room, class Grant>
void round_robin(std::vector<unsigned>& inputs, std::vector<unsigned>& dests, uint64_t pointer, DestOf dest_of, Room room, Grant grant) {
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

bool memory_system::concurrent_access(unsigned nodes) {
  if (nodes) port_of(nodes - 1);  // grown now: access() must not resize the port vectors
  return true;
}

bool memory_system::full(const mem_client* client) const {
  const unsigned node = client ? client->icnt_node() : ~0u;
  return node != ~0u && node + 1 < xin_.size() && xin_[node].size() >= in_buffer();
}

// A client's port on both crossbars: cluster n at n (GPGPU-Sim's node numbers), other engines
// (icnt_node ~0u) at the last port, after every cluster seen.
unsigned memory_system::port_of(unsigned node) {
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
    sm_decodes_.resize(n);
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
// -icnt_arbiter_algo (islip, round_robin) into the sub-partitions' output buffers of -icnt_out_buffer_limit
// packets (other engines' sectors, which enter there directly, count too).
void memory_system::advance(uint64_t now) {
  if (m_.network_mode == 1) return booksim_requests(now);
  const auto offers = [&](unsigned i) { return !xin_[i].empty() && xin_[i].front().ready <= now; };
  const auto dest_of = [&](unsigned i) { return xin_[i].front().sp; };
  const auto room = [&](unsigned dest) { return sp_[dest].xout_size() < m_.icnt_out_buffer; };
  const auto grant_input = [&](unsigned i) { grant(i, now); };
  if (m_.icnt_arbiter == 1) {  // (the candidates straight into iSLIP's sets)
    islip_sets c(bucket_scratch_, xin_.size(), next_node_.size());
    for (unsigned i = 0; i < xin_.size(); ++i)
      if (offers(i)) c.add(i, dest_of(i));
    if (c.any) islip(c, next_node_, dest_of, room, grant_input, offers);
    return;
  }
  xscratch_.clear();
  for (unsigned i = 0; i < xin_.size(); ++i)
    if (offers(i)) xscratch_.push_back(i);
  if (!xscratch_.empty()) round_robin(xscratch_, dscratch_, rr_pointer(now), dest_of, room, grant_input);
}

// The granted packet is in its output buffer after the interconnect step of `now`; the
// sub-partition pops it in its L2 step of a later cycle (step_sub_partition).
void memory_system::grant(unsigned input, uint64_t now) {
  const xbar_packet& p = xin_[input].front();
  auto& req = sp_[p.sp].req;
  req.push_back(p.r);
  req.back().t = now + 1;
  xin_[input].pop_front();
  --xbar_queued_;
  l2_queued(now + 1);
}

// The reply crossbar's step (xbar_router::Advance, -icnt_arbiter_algo as for requests): inputs
// are the sub-partitions, numbered after the clusters as GPGPU-Sim's mem2device does (so a
// cluster's first iSLIP grant starts from sub-partition 0), outputs the clusters' buffers of
// -icnt_out_buffer_limit packets.
void memory_system::reply_advance(uint64_t now) {
  if (m_.network_mode == 1) return booksim_replies(now);
  const unsigned first = cfg_.num_clusters;  // sub-partition i is node first + i
  const auto dest_of = [&](unsigned n) { return sp_[n - first].rep.front().port; };
  const auto room = [&](unsigned dest) { return rout_[dest].size() < m_.icnt_out_buffer; };
  const auto grant = [&](unsigned n) {
    sub_partition& P = sp_[n - first];
    rout_[P.rep.front().port].push_back(P.rep.front());
    P.rep.pop_front();
    --P.rin;
  };
  const auto has = [&](unsigned n) { return sp_[n - first].rin != 0; };
  if (m_.icnt_arbiter == 1) {  // (the candidates straight into iSLIP's sets)
    islip_sets c(bucket_scratch_, first + sp_.size(), rnext_.size());
    for (unsigned i = 0; i < sp_.size(); ++i)
      if (sp_[i].rin) c.add(first + i, sp_[i].rep.front().port);
    if (c.any) islip(c, rnext_, dest_of, room, grant, has);
    return;
  }
  xscratch_.clear();
  for (unsigned i = 0; i < sp_.size(); ++i)
    if (sp_[i].rin) xscratch_.push_back(first + i);
  if (!xscratch_.empty()) round_robin(xscratch_, dscratch_, rr_pointer(now), dest_of, room, grant);
}

// -network_mode 1 (booksim_fly.h): GPUTrafficManager::_Step of cycle now for the request subnet.
// Each cluster starts the packet at the head of its input queue (InterconnectInterface::Push's
// queue of input_buffer_size flits, counted here in packets) whose crossbar cycle has come, one
// flit a cycle; sub-partition
// i is node clusters + i (use_map 0). A packet whose tail reached the boundary buffer waits in the
// sub-partition's `xout`, which the L2 step pops from its t on; the router's VC allocation for an
// output waits while xout holds boundary_buffer_size + vc_buf_size (the ejection channel's
// credits) packets.
void memory_system::booksim_requests(uint64_t now) {
  const unsigned nc = cfg_.num_clusters;
  for (unsigned i = 0; i < nc && i < xin_.size(); ++i)
    if (!xin_[i].empty() && xin_[i].front().ready <= now && req_net_.can_inject(i, now)) {
      req_net_.inject(i, nc + xin_[i].front().sp, xin_[i].front(),
                      packet_flits(xin_[i].front().r.write ? xin_[i].front().r.bytes : 0, m_.icnt_file_flit_size), now);
      xin_[i].pop_front();
    }
  const size_t cap = size_t(m_.icnt_file_boundary_buffer) + m_.icnt_file_vc_buf;
  req_net_.step(
      now, [&](unsigned d) { return sp_[d - nc].xout_size() < cap; },
      [&](unsigned d, const xbar_packet& p, uint64_t t) {
        l2_request r = p.r;
        r.t = t;
        sp_[d - nc].req.push_back(r);
        --xbar_queued_;
        l2_queued(t);
      });
}

// The reply subnet's: each sub-partition starts the packet at the head of its input queue (pushed this cycle
// or before); a cluster pops its boundary buffer (`rout_`) from the packet's t on.
void memory_system::booksim_replies(uint64_t now) {
  const unsigned nc = cfg_.num_clusters;
  for (unsigned i = 0; i < sp_.size(); ++i) {
    sub_partition& P = sp_[i];
    if (P.rin && rep_net_.can_inject(nc + i, now)) {
      const reply& r = P.rep.front();
      rep_net_.inject(nc + i, r.port, r, packet_flits(r.write ? 0 : r.bytes, m_.icnt_file_flit_size), now);
      P.rep.pop_front();
      --P.rin;
    }
  }
  const size_t cap = size_t(m_.icnt_file_boundary_buffer) + m_.icnt_file_vc_buf;
  rep_net_.step(
      now, [&](unsigned d) { return rout_[d].size() < cap; },
      [&](unsigned d, const reply& r, uint64_t t) {
        reply a = r;
        a.t = t;
        rout_[d].push_back(a);
      });
}

// Round robin's first node in cycle `now`: both routers advance once a crossbar cycle from the
// GPU's first cycle (not reset between kernels) over clusters + sub-partitions nodes.
uint64_t memory_system::rr_pointer(uint64_t now) const { return (base_ + now) % (cfg_.num_clusters + sp_.size()); }

}  // namespace gpuvp::gpu_memory
