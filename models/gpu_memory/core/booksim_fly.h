// SPDX-License-Identifier: Apache-2.0
// -network_mode 1: the timing of one subnet of GPGPU-Sim's BookSim interconnect (intersim2) for
// the configuration the model accepts (mem_config::validate): a one-stage fly (n = 1, one k x k
// iq router), one VC, single-flit packets, lookahead routing (routing_delay 0), separate VC and
// switch allocation (speculative 0, vc_alloc_delay 1, sw_alloc_delay 1), iSLIP allocators with
// one iteration, crossbar delay st_prepare_delay + st_final_delay = 1, internal_speedup 2,
// channel latency 1 (Channel's default; fly sets no other for injection and ejection).
//
// Cycle structure (GPUTrafficManager::_Step of cycle C, with the router's two internal steps
// 2C and 2C + 1, both at simulation time C):
//  - injection: each node's input-queue head enters its injection channel (one flit a cycle,
//    while the router's input buffer has a credit: vc_buf_size flits; a credit comes back two
//    cycles after the flit leaves that buffer: credit channel latency 1, read at the next _Step);
//  - the channel delivers it to the router at C + 2 (written after the network's ReadInputs of C,
//    read into the channel at C + 1, received by the router at C + 2), where the head may request
//    VC allocation from step 2(C + 2) on;
//  - VC allocation (iSLIP over the input VCs asking for an output VC, pointer moved past the
//    winner) at step s; the output VC stays taken until the flit is sent at the switch
//    allocation of step s + 1 (the tail frees it, wait_for_tail_credit 0), so the output's next
//    VC allocation is at s + 2, as is the next head's of the same input;
//  - crossbar traversal at step s + 2 (evaluated and updated in that step): in the output buffer
//    at cycle S = (s + 2) / 2, sent on the ejection channel in S's WriteOutputs, read by the
//    traffic manager at S + 2 into the ejection buffer and moved to the boundary buffer in that
//    _Step, so the receiver pops it in cycle S + 3 (gpgpu_sim::cycle pops before icnt_transfer).
// Zero load: injected in cycle T, popped in T + 6 (GPGPU-Sim's local crossbar: T + 1).
#pragma once
#include <cstdint>
#include <deque>
#include <vector>

namespace gpuvp::sm {

template <class P>
class booksim_fly {
 public:
  // k nodes (the file's k: node ids as GPGPU-Sim's with use_map 0: clusters, then memory
  // sub-partitions), vc_buf router input buffer flits per VC.
  void init(unsigned k, unsigned vc_buf) {
    k_ = k;
    vc_buf_ = vc_buf;
    in_.assign(k, {});
    out_free_.assign(k, 0);
    gptr_.assign(k, 0);
    inj_next_.assign(k, 0);
    used_.assign(k, 0);
    credits_.assign(k, {});
  }
  unsigned nodes() const { return k_; }
  // Whether node may inject a flit in cycle now (one a cycle, a credit for the router's buffer).
  bool can_inject(unsigned node, uint64_t now) {
    if (inj_next_[node] > now) return false;
    auto& c = credits_[node];
    while (!c.empty() && c.front() <= now) {
      c.pop_front();
      --used_[node];
    }
    return used_[node] < vc_buf_;
  }
  void inject(unsigned node, unsigned dest, const P& p, uint64_t now) {
    inj_next_[node] = now + 1;
    ++used_[node];
    in_[node].push_back({p, dest, 2 * (now + 2)});
    ++flits_;
  }
  bool empty() const { return flits_ == 0; }
  // The router's two internal steps of cycle now. room(dest): the output may take a flit (the
  // receiver's buffers); deliver(dest, p, t): p reaches dest's boundary buffer, poppable from t.
  template <class Room, class Deliver>
  void step(uint64_t now, Room room, Deliver deliver) {
    for (uint64_t s = 2 * now; s < 2 * now + 2 && flits_; ++s) {
      // VC allocation requests, per output in ascending input order (iSLIP's request map).
      req_.clear();
      for (unsigned i = 0; i < k_; ++i)
        if (!in_[i].empty() && in_[i].front().step <= s) {
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
        out_free_[d] = s + 2;
        const P p = in_[i].front().p;
        in_[i].pop_front();
        --flits_;
        if (!in_[i].empty() && in_[i].front().step < s + 2) in_[i].front().step = s + 2;
        credits_[i].push_back((s + 1) / 2 + 2);  // left the buffer at step s + 1
        deliver(d, p, (s + 2) / 2 + 3);
      }
    }
  }
  // Between kernels: every flit still in the network, in input order; the network is emptied
  // (pointers kept, as GPGPU-Sim's router is never reset).
  template <class F>
  void drain(F f) {
    for (auto& q : in_) {
      for (const auto& x : q) f(x.dest, x.p);
      q.clear();
    }
    for (auto& c : credits_) c.clear();
    used_.assign(k_, 0);
    inj_next_.assign(k_, 0);
    out_free_.assign(k_, 0);
    flits_ = 0;
  }

 private:
  struct flit {
    P p;
    unsigned dest;
    uint64_t step;  // the first router step the head may request VC allocation
  };
  unsigned k_ = 0, vc_buf_ = 0;
  size_t flits_ = 0;
  std::vector<std::deque<flit>> in_;           // router input buffers (flits injected, not yet sent)
  std::vector<uint64_t> out_free_;             // per output: first step its VC may be allocated
  std::vector<unsigned> gptr_;                 // per output: the VC allocator's grant pointer
  std::vector<uint64_t> inj_next_;             // per node: first cycle it may inject again
  std::vector<unsigned> used_;                 // per node: credits of the router's input buffer in use
  std::vector<std::deque<uint64_t>> credits_;  // per node: cycles its used credits come back
  std::vector<unsigned> req_, won_;
};

}  // namespace gpuvp::sm
