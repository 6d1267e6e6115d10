// SPDX-License-Identifier: Apache-2.0
// -network_mode 1: the timing of one subnet of GPGPU-Sim's BookSim interconnect (intersim2) for
// the configuration the model accepts (mem_config::validate): a one-stage fly (n = 1, one k x k
// iq router), one VC, lookahead routing (routing_delay 0), separate VC and switch allocation
// (speculative 0, vc_alloc_delay 1, sw_alloc_delay 1), iSLIP allocators with one iteration,
// crossbar delay st_prepare_delay + st_final_delay = 1, internal_speedup f (1 or 2 router steps a
// cycle), output_speedup 1, channel latency 1 (Channel's default; fly sets no other for injection
// and ejection). A packet is size / flit_size flits, rounded up.
//
// Cycle structure (GPUTrafficManager::_Step of cycle C, with the router's internal steps f C to
// f C + f - 1, all at simulation time C):
//  - injection: each node's packet enters its injection channel one flit a cycle, while the
//    router's input buffer has a credit (vc_buf_size flits); a credit comes back two cycles after
//    the flit leaves that buffer (credit channel latency 1, read at the next _Step);
//  - the channel delivers a flit to the router at C + 2 (written after the network's ReadInputs
//    of C, read into the channel at C + 1, received by the router at C + 2): from step f(C + 2) on
//    a head may request VC allocation, a body flit switch allocation;
//  - VC allocation (iSLIP over the input VCs asking for an output VC, pointer moved past the
//    winner) at step s; the head wins the switch at s + 1, each further flit at the step after the
//    one before it or when it arrives, whichever is later (nothing competes: the output VC is the
//    packet's until its tail wins the switch, wait_for_tail_credit 0, so the output's next VC
//    allocation is a step later, as is the next head's of the same input);
//  - crossbar traversal in the step after the switch: in the output buffer at cycle step / f,
//    sent on the ejection channel in that cycle's WriteOutputs (one flit a cycle), read by the
//    traffic manager two cycles later into the ejection buffer and moved to the boundary buffer in
//    that _Step, so the receiver pops a packet whose tail was sent in cycle S in cycle S + 3
//    (gpgpu_sim::cycle pops before icnt_transfer).
// Zero load, one flit, f = 2: injected in cycle T, popped in T + 6 (GPGPU-Sim's local crossbar:
// T + 1).
#pragma once
#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

namespace gpuvp::gpu_memory {

template <class P>
class booksim_fly {
 public:
  // k nodes (the file's k: node ids as GPGPU-Sim's with use_map 0: clusters, then memory
  // sub-partitions), vc_buf router input buffer flits per VC, speedup router steps per cycle
  // (internal_speedup: 1 or 2).
  void init(unsigned k, unsigned vc_buf, unsigned speedup) {
    k_ = k;
    vc_buf_ = vc_buf;
    f_ = speedup;
    gptr_.assign(k, 0);
    clear();
  }
  // Whether node may start a packet in cycle now: the last one's flits are all injected, and its
  // head may enter the injection channel now (one flit a cycle, a credit for the router's buffer).
  bool can_inject(unsigned node, uint64_t now) { return pend_[node].left == 0 && can_send(node, now); }
  // Starts a packet of `flits` flits (GPGPU-Sim's size / flit_size, rounded up) at node; its head
  // enters the injection channel now, each further flit in the first later cycle with a credit.
  void inject(unsigned node, unsigned dest, const P& p, unsigned flits, uint64_t now) {
    pend_[node] = {p, dest, flits, flits};
    send(node, now);
  }
  bool empty() const { return flits_ == 0 && packets_ == 0; }
  // The router's internal steps of cycle now (after the injections of cycle now). room(dest):
  // the output may take a packet (the receiver's buffers); deliver(dest, p, t): p's tail reaches
  // dest's boundary buffer, poppable from t.
  template <class Room, class Deliver>
  void step(uint64_t now, Room room, Deliver deliver) {
    for (unsigned i = 0; i < k_ && packets_; ++i)
      if (pend_[i].left && can_send(i, now)) send(i, now);
    for (uint64_t s = f_ * now; s < f_ * now + f_ && (flits_ || packets_); ++s) {
      // Switch allocation of body and tail flits: the input's VC owns its output VC, so nothing
      // competes (one VC per input and output).
      for (unsigned i = 0; i < k_; ++i) {
        active& a = act_[i];
        if (!a.left || in_[i].empty() || in_[i].front().step > s || a.next_sw > s) continue;
        in_[i].pop_front();
        --flits_;
        traverse(i, s, deliver);
      }
      // VC allocation requests of head flits, per output in ascending input order (iSLIP's
      // request map).
      req_.clear();
      for (unsigned i = 0; i < k_; ++i)
        if (!act_[i].left && !in_[i].empty() && in_[i].front().step <= s) {
          const unsigned d = in_[i].front().dest;
          if (out_free_[d] <= s && room(d)) req_.push_back(i);
        }
      if (req_.empty()) continue;
      // Grant phase (one iteration): each output grants the first requester at or after its
      // pointer, wrapping; every input asks for one output VC, so it accepts.
      won_.assign(k_, ~0u);
      for (unsigned i : req_) {
        const unsigned d = in_[i].front().dest;
        if (won_[d] == ~0u || (won_[d] < gptr_[d] && i >= gptr_[d])) won_[d] = i;
      }
      for (unsigned d = 0; d < k_; ++d) {
        const unsigned i = won_[d];
        if (i == ~0u) continue;
        gptr_[d] = (i + 1) % k_;
        const flit h = in_[i].front();
        in_[i].pop_front();
        --flits_;
        act_[i] = {h.p, d, h.flits, s + 1};
        out_free_[d] = ~uint64_t(0);  // until the tail's switch allocation
        traverse(i, s + 1, deliver);  // the head's switch allocation: the next step
      }
    }
  }
  // Between kernels: every packet still in the network, in input order; the network is emptied
  // (pointers kept, as GPGPU-Sim's router is never reset).
  template <class F>
  void drain(F f) {
    for (unsigned i = 0; i < k_; ++i) {
      if (act_[i].left) f(act_[i].dest, act_[i].p);
      for (const auto& x : in_[i])
        if (x.head) f(x.dest, x.p);
    }
    clear();
  }

 private:
  struct flit {
    P p;
    unsigned dest, flits;
    bool head;
    uint64_t step;  // the first router step it may be allocated (VC for a head, switch for others)
  };
  struct pending {  // the packet a node is injecting
    P p;
    unsigned dest = 0, flits = 0, left = 0;  // flits not yet injected
  };
  struct active {  // an input whose head won its output VC
    P p;
    unsigned dest = 0, left = 0;  // flits not yet through the switch
    uint64_t next_sw = 0;         // the first step the next flit may win the switch
  };
  // Every buffer, credit and reservation emptied (the allocators' pointers are kept).
  void clear() {
    in_.assign(k_, {});
    credits_.assign(k_, {});
    used_.assign(k_, 0);
    inj_next_.assign(k_, 0);
    out_free_.assign(k_, 0);
    out_last_.assign(k_, 0);
    pend_.assign(k_, {});
    act_.assign(k_, {});
    flits_ = packets_ = 0;
  }
  bool can_send(unsigned node, uint64_t now) {
    if (inj_next_[node] > now) return false;
    auto& c = credits_[node];
    while (!c.empty() && c.front() <= now) {
      c.pop_front();
      --used_[node];
    }
    return used_[node] < vc_buf_;
  }
  // One flit of node's packet enters the injection channel in cycle now: at the router from the
  // first step of cycle now + 2.
  void send(unsigned node, uint64_t now) {
    pending& q = pend_[node];
    inj_next_[node] = now + 1;
    ++used_[node];
    in_[node].push_back({q.p, q.dest, q.flits, q.left == q.flits, f_ * (now + 2)});
    ++flits_;
    if (q.left == q.flits) ++packets_;
    --q.left;
  }
  // Input i's next flit wins the switch at step s: it leaves the input buffer (its credit back
  // two cycles later), crosses at s + 1 into the output buffer, which sends one flit a cycle on
  // the ejection channel; the tail frees the output VC (wait_for_tail_credit 0) for step s + 1
  // and reaches the boundary buffer three cycles after it is sent.
  template <class Deliver>
  void traverse(unsigned i, uint64_t s, Deliver& deliver) {
    active& a = act_[i];
    credits_[i].push_back(s / f_ + 2);
    const uint64_t out = std::max((s + 1) / f_, out_last_[a.dest] + 1);
    out_last_[a.dest] = out;
    a.next_sw = s + 1;
    if (--a.left) return;
    out_free_[a.dest] = s + 1;
    if (!in_[i].empty() && in_[i].front().step < s + 1) in_[i].front().step = s + 1;
    --packets_;
    deliver(a.dest, a.p, out + 3);
  }

  unsigned k_ = 0, vc_buf_ = 0, f_ = 2;
  size_t flits_ = 0, packets_ = 0;             // flits in the router's input buffers; packets not yet delivered
  std::vector<std::deque<flit>> in_;           // router input buffers (flits injected, not yet switched)
  std::vector<uint64_t> out_free_;             // per output: first step its VC may be allocated
  std::vector<uint64_t> out_last_;             // per output: the last cycle it sent a flit
  std::vector<unsigned> gptr_;                 // per output: the VC allocator's grant pointer
  std::vector<uint64_t> inj_next_;             // per node: first cycle it may inject again
  std::vector<unsigned> used_;                 // per node: credits of the router's input buffer in use
  std::vector<std::deque<uint64_t>> credits_;  // per node: cycles its used credits come back
  std::vector<pending> pend_;
  std::vector<active> act_;
  std::vector<unsigned> req_, won_;
};

}  // namespace gpuvp::gpu_memory
