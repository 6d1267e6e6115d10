// SPDX-License-Identifier: Apache-2.0
// The .pb workload parser (docs/formats/pushbuffer.md): text to channels, memory, objects, blocks and expectations.
#include "workload.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include "gpuvp/config.h"
#include "gpuvp/text.h"
#include "pb_text.h"
#include "workload_decl.h"

namespace gpuvp::pfifo {

using namespace pbw;

namespace {

using words = std::vector<std::string>;

// A statement with fewer than k words: "'STATEMENT' needs USAGE".
void need(const words& t, size_t k, const char* usage) {
  if (t.size() < k) throw std::runtime_error("'" + t[0] + "' needs " + usage);
}

// The word after `key` (searched from word `from` on), or nullptr: options come in any order.
const std::string* opt(const words& t, size_t from, const std::string& key) {
  for (size_t i = from; i + 1 < t.size(); ++i)
    if (t[i] == key) return &t[i + 1];
  return nullptr;
}

// The parser's state across lines: the workload built so far and the open `push` block, whose
// words are placed only at its `end` (in the DMA stream, as an IB block, or `at` an offset).
struct pb_parser {
  pb_workload& w;
  int n = 0;  // the current line
  chan_decl* block = nullptr;
  bool block_main = false, block_nonmain = false;
  uint64_t block_at = 0;
  bool block_placed = false;
  std::vector<uint32_t> block_words;
  int block_line = 0;

  explicit pb_parser(pb_workload& wl) : w(wl) {}
  chan_decl& chan(const std::string& t);
  void line_in_block(const std::string& line);
  void end_block();
  void statement(const std::string& line);
  void timeout(const std::string& line);
  void channel(const words& t);
  void dmaobj(const words& t);
  void object(const words& t);
  void ibentry(const words& t);
  void mem(const words& t);
  void push(const words& t);
  void expect(const words& t);
  void expect_error(const words& t, expect_decl& e);
  void expect_channel_state(const words& t, expect_decl& e);
  // Checks across statements, once the whole file is read.
  void check_channels(const std::string& origin);
  void check_nv04(const std::string& origin);
  void check_g80_selectors(const std::string& origin);
};

// A channel by number, below pfifo.channels (created undeclared on first mention).
chan_decl& pb_parser::chan(const std::string& t) {
  const uint64_t id = num(t, "channel number");
  if (id >= w.max_channels)
    throw std::runtime_error("channel " + t + " is not below pfifo.channels (" + std::to_string(w.max_channels) + ")");
  auto& c = w.chans[unsigned(id)];
  c.id = unsigned(id);
  return c;
}

// Inside a `push` block: a pb-asm line, or `end`.
void pb_parser::line_in_block(const std::string& line) {
  std::istringstream ls(line.substr(0, line.find('#')));
  std::string first;
  ls >> first;
  if (first == "end") {
    end_block();
    return;
  }
  assemble_line(line, w.g, block_words);
}

// `end`: the block's words go where its `push` line said.
void pb_parser::end_block() {
  const bool vram = !block->sysram;
  const int owner = int(block->id);  // pushbuffer words: written in the channel's endianness
  if (block_placed) {
    w.mems.push_back({block_at, vram, block_words, owner});
    if (block->ib && block_main) block->ibs.push_back({block_at, uint32_t(block_words.size()), block_nonmain});
  } else if (block->ib) {
    const uint64_t at = block->pb + block->next_free;
    w.mems.push_back({at, vram, block_words, owner});
    block->ibs.push_back({at, uint32_t(block_words.size()), block_nonmain});
    block->next_free += 4 * block_words.size();
  } else {
    block->stream.insert(block->stream.end(), block_words.begin(), block_words.end());
  }
  block = nullptr;
}

// One statement outside a block, dispatched by its first word.
void pb_parser::statement(const std::string& line) {
  const words t = split_words(line.substr(0, line.find('#')));
  if (t.empty()) return;
  if (t[0] == "gen") {
    need(t, 2, "a generation");
    auto g = parse_gen(t[1]);
    if (!g) throw std::runtime_error("unknown generation '" + t[1] + "'");
    w.g = *g;
  } else if (t[0] == "compute") {
    // Platform configuration only (overlay_for): the compute component and the compute class.
    need(t, 2, "a kernelslist.g");
    if (t.size() != 2 && !(t.size() == 4 && t[2] == "engine")) throw std::runtime_error("usage: compute KERNELSLIST [engine ID]");
    if (t.size() == 4 && num(t[3], "engine id") >= 32) throw std::runtime_error("engine id is not below 32");
  } else if (t[0] == "timeout") {
    need(t, 2, "a time");
    timeout(line);
  } else if (t[0] == "channel") {
    channel(t);
  } else if (t[0] == "dmaobj") {
    dmaobj(t);
  } else if (t[0] == "object") {
    object(t);
  } else if (t[0] == "ibentry") {
    ibentry(t);
  } else if (t[0] == "mem" || t[0] == "vram") {
    mem(t);
  } else if (t[0] == "push") {
    push(t);
  } else if (t[0] == "expect") {
    expect(t);
  } else {
    throw std::runtime_error("unknown statement '" + t[0] + "'");
  }
}

// `timeout TIME`: the rest of the line, which may hold a space ("50 ms").
void pb_parser::timeout(const std::string& line) {
  std::string rest = line.substr(line.find("timeout") + 7);
  rest = rest.substr(0, rest.find('#'));
  rest.erase(0, rest.find_first_not_of(" \t\r"));
  rest.erase(rest.find_last_not_of(" \t\r") + 1);
  try {
    w.timeout_ps = uint64_t(parse_time(rest).to_seconds() * 1e12);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("timeout: ") + e.what());
  }
}

void pb_parser::channel(const words& t) {
  need(t, 2, "a channel number");
  auto& c = chan(t[1]);
  c.declared = true;
  c.pb = 0x2000000 + 0x40000 * uint64_t(c.id);
  c.ib_addr = c.pb + 0x30000;
  c.inst = 0x1000000 + 0x20000 * uint64_t(c.id);
  for (size_t i = 2; i < t.size(); ++i) {
    if (t[i] == "dma")
      c.ib = false;
    else if (t[i] == "ib")
      c.ib = true;
    else if (t[i] == "big_endian")
      c.big_endian = true;
    else if (t[i] == "sysram")
      c.sysram = true;
    else if (i + 1 < t.size() && t[i] == "ibstart")
      c.ib_start = uint32_t(num(t[++i], "IB start index"));
    else if (i + 1 < t.size() && t[i] == "pb")
      c.pb = num(t[++i], "pushbuffer address");
    else if (i + 1 < t.size() && t[i] == "ibaddr")
      c.ib_addr = num(t[++i], "IB address");
    else if (i + 1 < t.size() && t[i] == "order")
      c.order = uint32_t(num(t[++i], "IB order"));
    else if (i + 1 < t.size() && t[i] == "limit")
      c.limit = num(t[++i], "DMA limit");
    else if (i + 1 < t.size() && t[i] == "inst")
      c.inst = num(t[++i], "channel structure address");
    else if (i + 1 < t.size() && t[i] == "sli") {
      c.sli = true;
      c.sli_mask = uint32_t(num(t[++i], "SLI mask"));
    } else
      throw std::runtime_error("unknown channel option '" + t[i] + "'");
  }
  if (c.order > 20) throw std::runtime_error("IB order " + std::to_string(c.order) + " is above 20");
  if (c.ib_start >> c.order)
    throw std::runtime_error("ibstart " + std::to_string(c.ib_start) + " is not below 2^" + std::to_string(c.order));
  if (c.ib_start && !(c.ib && w.g >= gen::g80 && w.g < gen::gf100))
    throw std::runtime_error("ibstart needs an IB channel on G80:GF100 (RAMFC's IB_GET/IB_PUT)");
  if (c.inst & 0xfff) throw std::runtime_error("channel structure address must be 4 KiB aligned");
}

void pb_parser::dmaobj(const words& t) {
  need(t, 3, "CHANNEL SELECTOR [target vram|sys|vm] [base B] [limit L] [class C] [rights rw|ro|wo]");
  dmaobj_decl d{unsigned(num(t[1], "channel")), uint32_t(num(t[2], "selector")), 0x3d, 1, 0, 0, 0xffffffff};
  if (d.sel == 0 || d.sel > 0xffff) throw std::runtime_error("selector " + t[2] + " is not in 1..0xffff");
  if (auto* v = opt(t, 3, "target")) {
    if (*v == "vram")
      d.target = 1;
    else if (*v == "sys")
      d.target = 2;
    else if (*v == "vm")
      d.target = 0;
    else
      throw std::runtime_error("unknown target '" + *v + "' (vram, sys, vm)");
  }
  if (auto* v = opt(t, 3, "base")) d.base = num(*v, "base");
  if (auto* v = opt(t, 3, "limit")) d.limit = num(*v, "limit");
  if (auto* v = opt(t, 3, "class")) d.cls = uint32_t(num(*v, "class"));
  if (auto* v = opt(t, 3, "rights")) {
    if (*v == "rw")
      d.rights = 0;
    else if (*v == "ro")
      d.rights = 1;
    else if (*v == "wo")
      d.rights = 2;
    else
      throw std::runtime_error("unknown rights '" + *v + "' (rw, ro, wo)");
  }
  w.dmaobjs.push_back(d);
}

void pb_parser::object(const words& t) {
  need(t, 6, "CHANNEL HANDLE engine E sel SELECTOR");
  object_decl o{unsigned(num(t[1], "channel")), uint32_t(num(t[2], "handle")), 0, 0};
  const auto* e = opt(t, 3, "engine");
  const auto* s = opt(t, 3, "sel");
  if (!e || !s) throw std::runtime_error("'object' needs engine E and sel SELECTOR");
  o.engine = unsigned(num(*e, "engine id"));
  o.sel = uint32_t(num(*s, "selector"));
  w.objects.push_back(o);
}

void pb_parser::ibentry(const words& t) {
  need(t, 4, "CHANNEL WORD0 WORD1");
  auto& c = chan(t[1]);
  if (!c.declared || !c.ib) throw std::runtime_error("channel " + t[1] + " is not a declared IB channel (channel N ib)");
  const uint64_t w0 = num(t[2], "IB entry word"), w1 = num(t[3], "IB entry word");
  if ((w0 | w1) > 0xffffffffull) throw std::runtime_error("IB entry words must fit in 32 bits");
  c.ibs.push_back({0, 0, false, true, uint32_t(w0), uint32_t(w1)});
}

void pb_parser::mem(const words& t) {
  need(t, 3, "ADDRESS WORD...");
  mem_decl m{num(t[1], "address"), t[0] == "vram", {}};
  for (size_t i = 2; i < t.size(); ++i) {
    const uint64_t v = num(t[i], "word");
    if (v > 0xffffffffull) throw std::runtime_error("word " + t[i] + " does not fit in 32 bits");
    m.words.push_back(uint32_t(v));
  }
  w.mems.push_back(m);
}

// `push CHANNEL [nonmain] [at OFFSET] [submit]`: opens a block.
void pb_parser::push(const words& t) {
  need(t, 2, "a channel number");
  block = &chan(t[1]);
  if (!block->declared) throw std::runtime_error("channel " + t[1] + " is not declared (channel N ...)");
  block_words.clear();
  block_line = n;
  block_main = true;
  block_nonmain = false;
  block_placed = false;
  for (size_t i = 2; i < t.size(); ++i) {
    if (t[i] == "nonmain")
      block_nonmain = true;
    else if (t[i] == "at" && i + 1 < t.size()) {
      block_placed = true;
      block_main = false;
      block_at = num(t[++i], "offset");
    } else if (t[i] == "submit")
      block_main = true;
    else
      throw std::runtime_error("unknown push option '" + t[i] + "'");
  }
}

void pb_parser::expect(const words& t) {
  need(t, 2, "what to expect");
  expect_decl e;
  e.line = n;
  e.kind = t[1];
  if (e.kind == "mem" || e.kind == "vram") {
    need(t, 4, "ADDRESS VALUE");
    e.vram = e.kind == "vram";
    e.addr = num(t[2], "address");
    e.value = uint32_t(num(t[3], "value"));
  } else if (e.kind == "ref") {
    need(t, 4, "CHANNEL VALUE");
    e.ch = unsigned(num(t[2], "channel"));
    e.value = uint32_t(num(t[3], "value"));
  } else if (e.kind == "error") {
    expect_error(t, e);
  } else if (e.kind == "hang") {
    need(t, 3, "CHANNEL");
    e.ch = unsigned(num(t[2], "channel"));
  } else if (e.kind == "userd" || e.kind == "ramfc") {
    expect_channel_state(t, e);
  } else if (e.kind == "notify") {
    e.value = t.size() >= 3 ? uint32_t(num(t[2], "count")) : 1;
  } else if (e.kind == "no-errors") {
  } else {
    throw std::runtime_error("unknown expectation '" + e.kind + "' (mem, vram, ref, error, hang, notify, no-errors, userd, ramfc)");
  }
  w.expects.push_back(e);
}

// `expect error CHANNEL TYPE [CODE] [word W] [at POSITION]`: CODE by name (of this generation) or number.
void pb_parser::expect_error(const words& t, expect_decl& e) {
  need(t, 4, "CHANNEL TYPE [CODE]");
  e.ch = unsigned(num(t[2], "channel"));
  e.type = parse_err_type(t[3]);
  if (e.type == err_type::none)
    throw std::runtime_error("unknown error type '" + t[3] + "' (DMA_PUSHER, CACHE_ERROR, SEMAPHORE, ACQUIRE_TIMEOUT)");
  for (size_t i = 4; i < t.size(); ++i) {
    if (t[i] == "word" && i + 1 < t.size()) {
      e.has_word = true;
      e.word = uint32_t(num(t[++i], "word"));
    } else if (t[i] == "at" && i + 1 < t.size()) {
      e.has_pos = true;
      e.pos = num(t[++i], "position");
    } else if (i == 4) {
      e.code = -2;
      for (uint32_t c = 1; c <= 6; ++c)
        if (t[4] == err_code_name(w.g, e.type, c)) e.code = int(c);
      if (e.code == -2) e.code = int(num(t[4], "error code"));
    } else {
      throw std::runtime_error("usage: expect error CHANNEL TYPE [CODE] [word W] [at POSITION]");
    }
  }
}

// `expect userd|ramfc CHANNEL OFFSET VALUE`: a word inside the declared channel's area.
void pb_parser::expect_channel_state(const words& t, expect_decl& e) {
  need(t, 5, "CHANNEL OFFSET VALUE");
  e.ch = unsigned(num(t[2], "channel"));
  e.addr = num(t[3], "offset");
  e.value = uint32_t(num(t[4], "value"));
  if (!w.chans.count(e.ch) || !w.chans[e.ch].declared) throw std::runtime_error("channel " + t[2] + " is not declared");
  if (e.addr & 3) throw std::runtime_error("offset " + t[3] + " is not 4-byte aligned");
  if (e.kind == "ramfc" && !(w.g >= gen::nv4 && w.g < gen::gf100))
    throw std::runtime_error("expect ramfc needs NV4:GF100 (channels with a RAMFC)");
  const uint64_t size = e.kind == "userd" ? 0x1000 : nv04_family(w.g) ? nv04_ramfc::of(w.g)->size : ramfc::size(w.g);
  if (e.addr >= size) throw std::runtime_error("offset " + t[3] + " is not below the " + e.kind + " size " + hex_string(size));
}

// Channel modes against the generation, IB entries against the ring size, objects against channels.
void pb_parser::check_channels(const std::string& origin) {
  if (w.g >= gen::gf100)
    for (auto& [id, c] : w.chans)
      if (c.declared && !c.ib)
        throw std::runtime_error(origin + ": channel " + std::to_string(id) + ": GF100 channels use IB mode in this format");
  for (auto& [id, c] : w.chans)
    if (c.ib && c.ibs.size() >= (size_t(1) << c.order))
      throw std::runtime_error(origin + ": channel " + std::to_string(id) + ": " + std::to_string(c.ibs.size()) +
                               " IB entries do not fit in 2^" + std::to_string(c.order) + " - 1");
}

// NV4:G80 RAMFC has DMA_PUT/GET, DMA_INSTANCE, DMA_FETCH (big-endian from NV11): no IB, no
// DMA limit (the pushbuffer object's own limit), no SLI. DMA objects stay clear of the records.
void pb_parser::check_nv04(const std::string& origin) {
  for (auto& [id, c] : w.chans) {
    const std::string what = origin + ": channel " + std::to_string(id) + ": ";
    if (!c.declared) continue;
    if (c.ib) throw std::runtime_error(what + "IB mode needs G80 or later");
    if (c.limit != 0xffffffff) throw std::runtime_error(what + "'limit' needs G80 or later (NV4-style RAMFC has no DMA_LIMIT)");
    if (c.sli) throw std::runtime_error(what + "'sli' needs G80 or later (NV4-style RAMFC has no SLI word)");
    if (c.big_endian && w.g < gen::nv1a)
      throw std::runtime_error(what + "big-endian channels exist from NV1A (envytools order: NV10, NV1A, NV11)");
    if (id >= nv04_max_channels) throw std::runtime_error(what + "MODE enables channels 0-31 only");
  }
  const uint64_t end = nv04_ramfc_offset + nv04_max_channels * nv04_ramfc::of(w.g)->size;
  for (const auto& d : w.dmaobjs) {
    const uint64_t at = uint64_t(d.sel) * 16;
    if (at + 12 > nv04_ramfc_offset && at < end)
      throw std::runtime_error(origin + ": dmaobj selector " + hex_string(d.sel) + " overlaps RAMFC (RAMIN " +
                               hex_string(nv04_ramfc_offset) + "-" + hex_string(end - 1) + ")");
  }
}

// G80:GF100: DMA objects stay clear of the channel's RAMFC and of the pushbuffer object.
void pb_parser::check_g80_selectors(const std::string& origin) {
  for (const auto& d : w.dmaobjs) {
    const uint64_t at = uint64_t(d.sel) * 16, ramfc_at = w.g >= gen::g84 ? g84_ramfc_offset : 0;
    if ((at + 24 > ramfc_at && at < ramfc_at + ramfc::size(w.g)) || d.sel == pb_selector_g80)
      throw std::runtime_error(origin + ": dmaobj selector " + hex_string(d.sel) +
                               " overlaps the channel's RAMFC or the pushbuffer object (selector 0x600)");
  }
}

}  // namespace

std::unique_ptr<gpuvp::workload> parse_pb_workload(const std::string& text, const std::string& origin) {
  auto w = std::make_unique<pb_workload>();
  w->origin = origin;
  // Default generation: the configured pfifo's.
  for (const auto& d : config::global().declarations())
    if (d.path == "pfifo.generation")
      if (auto g = parse_gen(d.value)) w->g = *g;
  for (const auto& d : config::global().declarations())  // the configured channel count bounds `channel N`
    if (d.path == "pfifo.channels") try {
        w->max_channels = unsigned(std::min<uint64_t>(parse_u64(d.value), 128));
      } catch (const std::exception&) {  // the component reports a bad value
      }
  std::istringstream in(text);
  std::string line;
  pb_parser ps(*w);
  while (std::getline(in, line)) {
    ++ps.n;
    try {
      if (ps.block)
        ps.line_in_block(line);
      else
        ps.statement(line);
    } catch (const asm_error& e) {
      throw std::runtime_error(origin + ":" + std::to_string(ps.n) + ": " + e.what());
    } catch (const std::exception& e) {
      // Every failure of a line, including the shared number and time parsers' std::invalid_argument
      // and std::out_of_range (logic_error, not runtime_error), is reported at its file:line.
      throw std::runtime_error(origin + ":" + std::to_string(ps.n) + ": " + e.what());
    }
  }
  if (ps.block) throw std::runtime_error(origin + ":" + std::to_string(ps.block_line) + ": 'push' block without 'end'");
  ps.check_channels(origin);
  if (nv04_family(w->g)) ps.check_nv04(origin);
  if (w->g >= gen::g80 && w->g < gen::gf100) ps.check_g80_selectors(origin);
  for (auto& o : w->objects)
    if (!w->chans.count(o.ch) || !w->chans[o.ch].declared)
      throw std::runtime_error(origin + ": object " + std::to_string(o.handle) + " names undeclared channel " + std::to_string(o.ch));
  return w;
}

std::unique_ptr<gpuvp::workload> load_pb_workload(const std::string& path) {
  const auto text = read_whole_file(path);
  if (!text) throw std::runtime_error(path + ": cannot open workload");
  return parse_pb_workload(*text, path);
}

}  // namespace gpuvp::pfifo
