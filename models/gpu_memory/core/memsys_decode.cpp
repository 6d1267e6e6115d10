// SPDX-License-Identifier: Apache-2.0
// memory_system's address decode (GPGPU-Sim's addrdec.cc): channel, sub-partition, DRAM bank and row
// of an address, its L2 set, and the random sub-partitions of -gpgpu_memory_partition_indexing 4
// with the order in which they are drawn.
#include <bit>
#include <initializer_list>

#include "memsys.h"

namespace gpuvp::gpu_memory {

namespace {
// The mask of the given bit positions.
constexpr uint64_t bits_mask(std::initializer_list<unsigned> bits) {
  uint64_t m = 0;
  for (unsigned b : bits) m |= uint64_t(1) << b;
  return m;
}
// The XOR of the bits of a that mask selects.
constexpr unsigned xor_bits(uint64_t a, uint64_t mask) { return unsigned(std::popcount(a & mask) & 1); }
}  // namespace

// GPGPU-Sim's ipoly_hash_function (hashing.cc): the index bits XORed with the GF(2) residues of
// the higher address bits for IPOLY(5), IPOLY(37) and IPOLY(67) (16, 32 and 64 entries; Rau,
// "Pseudo-randomly interleaved memory", ISCA 1991). Other counts: the index unchanged (GPGPU-Sim
// refuses them; validate() does too).
// Per result bit i: the address bits whose XOR flips index bit i.
static constexpr uint64_t h16[] = {
    bits_mask({11, 10, 9, 8, 6, 4, 3, 0}),
    bits_mask({12, 8, 7, 6, 5, 3, 1, 0}),
    bits_mask({9, 8, 7, 6, 4, 2, 1}),
    bits_mask({10, 9, 8, 7, 5, 3, 2}),
};
static constexpr uint64_t h32[] = {
    bits_mask({13, 12, 11, 10, 9, 6, 5, 3, 0}), bits_mask({14, 13, 12, 11, 10, 7, 6, 4, 1}), bits_mask({14, 10, 9, 8, 7, 6, 3, 2, 0}),
    bits_mask({11, 10, 9, 8, 7, 4, 3, 1}),      bits_mask({12, 11, 10, 9, 8, 5, 4, 2}),
};
static constexpr uint64_t h64[] = {
    bits_mask({18, 17, 16, 15, 12, 10, 6, 5, 0}), bits_mask({15, 13, 12, 11, 10, 7, 5, 1, 0}),  bits_mask({16, 14, 13, 12, 11, 8, 6, 2, 1}),
    bits_mask({17, 15, 14, 13, 12, 9, 7, 3, 2}),  bits_mask({18, 16, 15, 14, 13, 10, 8, 4, 3}), bits_mask({17, 16, 15, 14, 11, 9, 5, 4}),
};
// The residue is linear over GF(2) and the masks take bits 0-18: per table, per byte of bits
// 0-23, the residue of each byte value, worked out at compile time; a hash XORs three.
struct byte_tables {
  uint8_t t[3][3][256];
};
static constexpr byte_tables ipoly_bytes = [] {
  byte_tables x{};
  const uint64_t* hs[3] = {h16, h32, h64};
  for (unsigned k = 0; k < 3; ++k)
    for (unsigned b = 0; b < 3; ++b)
      for (unsigned v = 0; v < 256; ++v) {
        const uint64_t av = uint64_t(v) << (8 * b);
        unsigned r = 0;
        for (unsigned i = 0; i < 4 + k; ++i) r |= xor_bits(av, hs[k][i]) << i;
        x.t[k][b][v] = uint8_t(r);
      }
  return x;
}();

// The byte tables of an n-entry hash, chosen once (nullptr: the index unchanged).
static const uint8_t* ipoly_table(unsigned n) {
  return n == 16 ? &ipoly_bytes.t[0][0][0] : n == 32 ? &ipoly_bytes.t[1][0][0] : n == 64 ? &ipoly_bytes.t[2][0][0] : nullptr;
}

static unsigned ipoly_hash(const uint8_t* t, uint64_t a, unsigned index, unsigned n) {
  if (!t) return index;
  return (index ^ t[a & 255] ^ t[256 + (a >> 8 & 255)] ^ t[512 + (a >> 16 & 255)]) & (n - 1);
}

// The decode's constants of this configuration.
void memory_system::init_decode() {
  ch_gap_ = m_.n_mem & (m_.n_mem - 1);
  ch_bits_ = unsigned(std::bit_width(m_.n_mem - 1));
  sp_bits_ = unsigned(std::bit_width(m_.sub_per_channel - 1));
  part_hash_ = ipoly_table((1u << ch_bits_) * m_.sub_per_channel);
  set_hash_ = ipoly_table(m_.l2.sets);
}

// GPGPU-Sim's l2_cache_config::set_index: the set function of -gpgpu_cache:dl2 applied to the
// partition address (linear_to_raw_address_translation::partition_address: the address without
// its channel bits -- the quotient of the channel division with a non-power-of-two count -- and
// without the bank bits that pick the sub-partition, "to reduce set camping"): linear takes the
// line number's low bits, X XORs them with the bits above (bitwise_hash_function), P hashes those
// into them (ipoly_hash_function). A linear index of a non-power-of-two set count takes the
// remainder.
unsigned memory_system::l2_set(uint64_t line) const {
  const uint64_t addr = line * m_.l2.line;
  const unsigned lo = m_.mem_addr_dramid_bit;
  const uint64_t high = addr >> lo;
  const uint64_t quot = ch_gap_ ? high / m_.n_mem : high >> ch_bits_;
  const uint64_t local = (quot << lo) | (addr & ((1ull << lo) - 1));
  const uint64_t pl = part_runs_.extract(local) >> std::countr_zero(m_.l2.line);
  const unsigned sets = m_.l2.sets;
  if (sets & (sets - 1)) return unsigned(pl % sets);
  const unsigned index = unsigned(pl & (sets - 1));
  const uint64_t higher = pl >> std::countr_zero(sets);
  if (m_.l2.set_index == 'P') return ipoly_hash(set_hash_, higher, index, sets);
  if (m_.l2.set_index == 'X') return index ^ unsigned(higher & (sets - 1));
  return index;
}

dram_address memory_system::decode(uint64_t addr) {
  // addrdec: the channel is the address above bit N modulo the channel count; the rest of the
  // address, with those bits taken out, goes through the mask for bank and row.
  dram_address a;
  const unsigned lo = m_.mem_addr_dramid_bit;
  const uint64_t high = addr >> lo;
  const bool gap = ch_gap_;
  const unsigned ch_bits = ch_bits_, sp_bits = sp_bits_;
  const uint64_t quot = gap ? high / m_.n_mem : high >> ch_bits;  // (no division for 2^k channels)
  a.channel = unsigned(high - quot * m_.n_mem);
  const uint64_t local = (quot << lo) | (addr & ((1ull << lo) - 1));
  const uint64_t bank = bank_runs_.extract(local);
  a.bank = unsigned(m_.dram.nbk & (m_.dram.nbk - 1) ? bank % m_.dram.nbk : bank & (m_.dram.nbk - 1));
  a.row = row_runs_.extract(local);
  a.sub_partition = a.channel * m_.sub_per_channel + (a.bank & (m_.sub_per_channel - 1));
  // -gpgpu_memory_partition_indexing (addrdec_tlx): the address bits above the channel and
  // sub-partition bits (with a power-of-two channel count; otherwise the quotient of the
  // channel division) permute the channel (1, XOR) or the sub-partition (2, IPOLY); or the
  // sub-partition is the one drawn for the address's chunk (4, random_sub_partition). Bank and
  // row stay those of the consecutive decode. 5 (CUSTOM) has no function in GPGPU-Sim: consecutive.
  const uint64_t higher = gap ? quot : addr >> (lo + ch_bits + sp_bits);
  if (m_.partition_indexing == 1) {
    a.channel = unsigned((a.channel ^ (higher & ((1ull << ch_bits) - 1))) % m_.n_mem);
    a.sub_partition = a.channel * m_.sub_per_channel + (a.bank & (m_.sub_per_channel - 1));
  } else if (m_.partition_indexing == 2) {
    const unsigned pow2_ch = 1u << ch_bits;
    unsigned sp = ipoly_hash(part_hash_, higher, a.sub_partition, pow2_ch * m_.sub_per_channel);
    if (gap) sp %= m_.sub_partitions();
    a.sub_partition = sp;
    a.channel = sp / m_.sub_per_channel;
  } else if (random_) {
    a.sub_partition = random_sub_partition(addr);
    a.channel = a.sub_partition / m_.sub_per_channel;
  }
  // -dram_bnk_indexing_policy 1: the DRAM bank (dram_req_t), not the sub-partition's, XORs the row in.
  if (m_.dram_bnk_xor_row) a.bank ^= unsigned(a.row & (m_.dram.nbk - 1));
  return a;
}

// -gpgpu_memory_partition_indexing 4 (addrdec_tlx's RANDOM): every chunk of 2^(N - log2
// sub-partitions per channel) bytes (N: -gpgpu_mem_addr_mapping's dramid@N) gets the
// sub-partition rand() % sub-partitions the first time an address in it is decoded, from the
// sequence srand(1) starts (addrdec's init). GPGPU-Sim decodes in its mem_fetch constructor, so
// the order of first decodes is the order it makes mem_fetches; the SMs report theirs
// (decoded(), access()), the memory side's (L2 write-backs, memcpy) are decoded where they are made.
unsigned memory_system::random_sub_partition(uint64_t addr) {
  const auto [it, fresh] = random_sp_.try_emplace(addr >> chunk_shift_, 0u);
  if (fresh) it->second = rand_.next() % m_.sub_partitions();
  return it->second;
}

// An SM's decode (instruction fetch, L1D access) or sector access (access() with the SMs' packet
// left undecoded): kept per crossbar node, in order, until draw_sm_decodes. SMs on several host
// threads each touch only their own node's list.
void memory_system::decoded(uint64_t addr, const mem_client* client) {
  if (!random_) return;
  const unsigned node = client ? client->icnt_node() : ~0u;
  if (node == ~0u) {  // not an SM: decoded now
    draw_sm_decodes();
    random_sub_partition(addr);
    return;
  }
  sm_decodes_[port_of(node)].push_back({addr, false});
}

// The SMs' decodes since the last call, as GPGPU-Sim's cores make them in a cycle: SM by SM
// (node by node; a cluster's SMs in order, on one thread), each in its order. Their sector
// accesses, the last packets of their crossbar input, get their channel and sub-partition.
void memory_system::draw_sm_decodes() {
  for (unsigned p = 0; p < sm_decodes_.size(); ++p) {
    auto& list = sm_decodes_[p];
    if (list.empty()) continue;
    size_t accesses = 0;
    for (const sm_decode& d : list) accesses += d.access;
    size_t next = xin_[p].size() - accesses;
    for (const sm_decode& d : list) {
      const dram_address a = decode(d.addr);
      if (!d.access) continue;
      xbar_packet& x = xin_[p][next++];
      x.sp = a.sub_partition;
      x.r.a = a;
      // (logged as access() logs the others, in the cycle after the SM's)
      if (log_)
        log_->add(mem_event_log::INJ, x.ready - 1, p, d.addr & ~uint64_t(31), 1u << (d.addr % m_.l2.line / 32 % 4), x.sp,
                  x.r.write ? 4 : 0);
    }
    list.clear();
  }
}

void memory_system::sms_stepped() { draw_sm_decodes(); }

}  // namespace gpuvp::gpu_memory
