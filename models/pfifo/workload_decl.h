// SPDX-License-Identifier: Apache-2.0
// Internals of the .pb workload (workload.h): what the parser (workload_parse.cpp) builds and the
// loader/checker (workload.cpp) runs.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>
#include "fifo_core.h"
#include <stdexcept>
#include "gpuvp/config.h"
#include "gpuvp/registry.h"

namespace gpuvp::pfifo::pbw {

struct chan_decl {
  unsigned id = 0;
  bool ib = false, big_endian = false, declared = false;
  bool sysram = false;    // pushbuffer DMA object in SYSRAM: pb, ibaddr and `push at` are SYSRAM addresses
  uint32_t ib_start = 0;  // IB_GET = IB_PUT before the first entry (`ibstart`): entries wrap past 2^order
  uint64_t pb = 0, ib_addr = 0, inst = 0, limit = 0xffffffff;
  uint32_t order = 4, sli_mask = 0;
  bool sli = false;
  std::vector<uint32_t> stream;  // DMA mode main stream
  struct ib_ent {
    uint64_t addr;
    uint32_t len;
    bool nonmain;
    bool raw = false;
    uint32_t w0 = 0, w1 = 0;
  };  // raw: `ibentry W0 W1`
  std::vector<ib_ent> ibs;
  uint64_t next_free = 0;  // IB mode: where the next block goes (offset from pb)
};
struct dmaobj_decl {
  unsigned ch;
  uint32_t sel, cls;
  unsigned target, rights;
  uint64_t base, limit;
};
struct object_decl {
  unsigned ch;
  uint32_t handle;
  unsigned engine;
  uint32_t sel;
};
struct mem_decl {
  uint64_t addr;
  bool vram;
  std::vector<uint32_t> words;
  int pb_channel = -1;
};  // pb_channel: pushbuffer words of that channel (its endianness)
struct expect_decl {
  int line;
  std::string kind;
  unsigned ch = 0;
  uint64_t addr = 0;
  uint32_t value = 0;
  bool vram = false;
  err_type type = err_type::none;
  int code = -1;
  bool has_word = false, has_pos = false;
  uint32_t word = 0;
  uint64_t pos = 0;  // expect error ... word W at POS
  bool read = false;
  uint32_t found = 0;  // expect userd/ramfc: read at the end of the run
};
struct seen_error {
  unsigned ch;
  err_type type;
  uint32_t code, word;
  uint64_t pos;
};

inline err_type parse_err_type(const std::string& s) {
  for (auto t : {err_type::dma_pusher, err_type::cache_error, err_type::semaphore, err_type::acquire_timeout})
    if (s == err_type_name(t)) return t;
  return err_type::none;
}

class pb_workload : public gpuvp::workload {
 public:
  std::string origin;
  gen g = gen::g84;
  uint64_t timeout_ps = 50000000000ull;                // 50 ms
  uint64_t poll_ps = 2000000;                          // 2 us
  unsigned max_channels = 8;                           // pfifo.channels when the file was read
  static constexpr size_t max_recorded_errors = 1024;  // errors kept for the checks; the rest only counted
  std::map<unsigned, chan_decl> chans;
  std::vector<dmaobj_decl> dmaobjs;
  std::vector<object_decl> objects;
  std::vector<mem_decl> mems;
  std::vector<expect_decl> expects;
  // results of the run
  std::vector<seen_error> errors;
  uint64_t errors_dropped = 0;  // errors past max_recorded_errors (acknowledged, counted)
  bool timed_out = false;       // the expectations are still checked; the run fails
  uint64_t notifies = 0;
  std::vector<std::string> run_problems;
  bool finished = false;

  void run(platform& p, host_port& h) override;
  int check(platform& p, std::ostream& os) override;
};

// G80:GF100 layout written by the loader (nouveau's channel set-up; docs/formats/pushbuffer.md):
// RAMFC at instance + 0 (G80) / + 0x5400 (G84+, after the engine contexts, the page directory
// at 0x200 and the CACHE area at 0x4400), the pushbuffer DMA object at selector 0x600 (instance
// + 0x6000, clear of both layouts), the runlist at VRAM 0xfff000.
constexpr uint64_t g84_ramfc_offset = 0x5400, g84_cache_offset = 0x4400, runlist_address = 0xfff000;
constexpr uint32_t pb_selector_g80 = 0x600;
// NV4:G80 (nouveau's nv04..nv40 fifo): one RAMFC record per channel at RAMIN + 0x20000 (NV40's
// nouveau address; above the default RAMHT at 0x10000-0x17fff), 32 records at most.
constexpr uint64_t nv04_ramfc_offset = 0x20000;
constexpr unsigned nv04_max_channels = 32;
inline bool nv04_family(gen g) { return g >= gen::nv4 && g < gen::g80; }

inline uint64_t num(const std::string& t, const std::string& what) {
  try {
    return parse_u64(t);
  } catch (const std::exception&) {
    throw std::runtime_error("'" + t + "' is not a valid " + what);
  }
}

}  // namespace gpuvp::pfifo::pbw
