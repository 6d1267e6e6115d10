// SPDX-License-Identifier: Apache-2.0
#include "mem_config.h"
#include "gpuvp/text.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "core/gpu_config.h"

namespace gpuvp::gpu_memory {

using sm::config_file_error;  // the GPU configuration the SMs and the memory system share (models/sm)
using sm::shipped_icnt_text;

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& msg) { throw config_file_error(where + ": " + msg); }

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  for (char ch : s) {
    if (ch == sep)
      out.emplace_back();
    else if (ch != ' ' && ch != '\t' && ch != '"')
      out.back() += ch;
  }
  return out;
}

unsigned number(const std::string& where, const std::string& opt, std::string_view s, unsigned lo, unsigned hi) {
  unsigned v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) fail(where, opt + ": '" + std::string(s) + "' is not an unsigned number");
  if (v < lo || v > hi) fail(where, opt + ": " + std::to_string(v) + " outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

bool pow2(unsigned v) { return v && !(v & (v - 1)); }

// Plain numeric options: name, field, range.
struct numeric_option {
  const char* name;
  unsigned mem_config::*field;
  unsigned lo, hi;
};
const numeric_option numeric_options[] = {
    {"-gpgpu_n_mem", &mem_config::n_mem, 1, 256},
    {"-gpgpu_l1_banks", &mem_config::l1_banks, 1, 32},
    {"-gpgpu_n_sub_partition_per_mchannel", &mem_config::sub_per_channel, 1, 8},
    {"-gpgpu_dram_buswidth", &mem_config::dram_buswidth, 1, 1024},
    {"-gpgpu_dram_burst_length", &mem_config::dram_burst_length, 1, 64},
    {"-dram_data_command_freq_ratio", &mem_config::dram_cmd_ratio, 1, 16},
    {"-gpgpu_frfcfs_dram_sched_queue_size", &mem_config::frfcfs_queue, 0, 1u << 16},
    {"-gpgpu_dram_return_queue_size", &mem_config::dram_return_queue, 0, 1u << 16},
    {"-gpgpu_n_cluster_ejection_buffer_size", &mem_config::cluster_ejection_buffer, 1, 1u << 16},
    {"-gpgpu_n_ldst_response_buffer_size", &mem_config::ldst_response_buffer, 1, 1u << 16},
    {"-gpgpu_dram_scheduler", &mem_config::dram_scheduler, 0, 1},
    {"-dram_dual_bus_interface", &mem_config::dram_dual_bus, 0, 1},
    {"-dram_bnkgrp_indexing_policy", &mem_config::dram_bnkgrp_lower_bits, 0, 1},
    {"-dram_bnk_indexing_policy", &mem_config::dram_bnk_xor_row, 0, 1},
    {"-icnt_flit_size", &mem_config::flit_size, 8, 1024},
    {"-network_mode", &mem_config::network_mode, 1, 2},
    {"-icnt_in_buffer_limit", &mem_config::icnt_in_buffer, 1, 1u << 16},
    {"-icnt_out_buffer_limit", &mem_config::icnt_out_buffer, 1, 1u << 16},
    {"-icnt_subnets", &mem_config::icnt_subnets, 1, 2},
    {"-icnt_arbiter_algo", &mem_config::icnt_arbiter, 0, 1},
    {"-gpgpu_memory_partition_indexing", &mem_config::partition_indexing, 0, 5},
};

}  // namespace

void parse_cache_config(cache_config& c, const std::string& name, const std::string& value, const std::string& where) {
  auto groups = split(value, ',');
  auto geo = split(groups[0], ':');
  cache_config n = c;
  if (!geo.empty() && (geo[0] == "S" || geo[0] == "N")) {
    n.sectored = geo[0] == "S";
    geo.erase(geo.begin());
  }
  if (geo.size() < 3) fail(where, name + ": expected [S|N:]sets:line:ways in '" + value + "'");
  n.sets = number(where, name + " sets", geo[0], 1, 1u << 20);
  n.line = number(where, name + " line size", geo[1], 32, 4096);
  n.ways = number(where, name + " ways", geo[2], 1, 1024);
  if (!pow2(n.line)) fail(where, name + ": line size " + geo[1] + " is not a power of two");
  if (groups.size() > 1) {
    auto pol = split(groups[1], ':');
    auto letter = [&](size_t i, const char* what, std::string_view allowed, char& into) {
      if (i >= pol.size()) return;
      if (pol[i].size() != 1 || allowed.find(pol[i][0]) == std::string_view::npos)
        fail(where, name + ": " + what + " '" + pol[i] + "' not one of " + std::string(allowed));
      into = pol[i][0];
    };
    char repl = 'L';
    letter(0, "replacement policy", "LF", repl);
    letter(1, "write policy", "RBTEWL", n.write_policy);
    letter(2, "allocation policy", "mfs", n.alloc_policy);
    letter(3, "write-allocate policy", "NWFL", n.write_alloc);
    letter(4, "set index function", "LHPXC", n.set_index);
  }
  if (groups.size() > 2) {
    auto m = split(groups[2], ':');
    if (m.size() >= 3) {
      n.mshrs = number(where, name + " MSHR entries", m[1], 1, 1u << 16);
      n.mshr_merge = number(where, name + " MSHR merge", m[2], 1, 1024);
    }
  }
  if (groups.size() > 3) {
    auto q = split(groups[3], ':');
    n.miss_queue = number(where, name + " miss queue", q[0], 1, 1u << 16);
  }
  c = n;
}

bool apply_mem_option(mem_config& m, const std::string& name, const std::string& v, const std::string& where) {
  for (const auto& o : numeric_options)
    if (name == o.name) {
      m.*o.field = number(where, name, split(v, ' ')[0], o.lo, o.hi);
      return true;
    }
  if (name == "-gpgpu_cache:dl2") {
    parse_cache_config(m.l2, name, v, where);
  } else if (name == "-gpgpu_dram_partition_queues") {
    auto f = split(v, ':');
    if (f.size() != 4) fail(where, name + ": expected icnt_L2:L2_dram:dram_L2:L2_icnt, got '" + v + "'");
    unsigned* into[4] = {&m.icnt_l2_queue, &m.l2_dram_queue, &m.dram_l2_queue, &m.l2_icnt_queue};
    for (size_t i = 0; i < 4; ++i) *into[i] = number(where, name, f[i], 1, 1u << 16);
  } else if (name == "-inter_config_file") {
    // Relative to the folder of the option file that names it (where = "file:line").
    std::string file = split(v, ' ')[0], dir;
    const std::string src = where.substr(0, where.rfind(':'));
    if (auto slash = src.rfind('/'); slash != std::string::npos) dir = src.substr(0, slash + 1);
    if (file.empty()) fail(where, name + ": empty file name");
    m.icnt_file = file[0] == '/' ? file : dir + file;
    load_icnt_file(m, m.icnt_file);
  } else if (name == "-gpgpu_flush_l1_cache") {
    m.flush_l1 = number(where, name, v, 0, 1) != 0;
  } else if (name == "-gpgpu_dram_timing_opt") {
    dram_timing t = m.dram;
    for (const auto& kv : split(v, ':')) {
      if (kv.empty()) continue;
      auto eq = kv.find('=');
      if (eq == std::string::npos) fail(where, name + ": expected key=value, got '" + kv + "'");
      const std::string k = kv.substr(0, eq), val = kv.substr(eq + 1);
      struct field {
        const char* key;
        unsigned dram_timing::*f;
        unsigned lo, hi;
      };
      static const field fields[] = {
          {"nbk", &dram_timing::nbk, 1, 256},   {"CCD", &dram_timing::CCD, 1, 255},  {"RRD", &dram_timing::RRD, 0, 255},
          {"RCD", &dram_timing::RCD, 0, 255},   {"RAS", &dram_timing::RAS, 0, 255},  {"RP", &dram_timing::RP, 0, 255},
          {"RC", &dram_timing::RC, 0, 511},     {"CL", &dram_timing::CL, 0, 255},    {"WL", &dram_timing::WL, 0, 255},
          {"CDLR", &dram_timing::CDLR, 0, 255}, {"WR", &dram_timing::WR, 0, 255},    {"nbkgrp", &dram_timing::nbkgrp, 1, 64},
          {"CCDL", &dram_timing::CCDL, 0, 255}, {"RTPL", &dram_timing::RTPL, 0, 255}};
      bool known = false;
      for (const auto& f : fields)
        if (k == f.key) {
          t.*f.f = number(where, name + " " + k, val, f.lo, f.hi);
          known = true;
        }
      if (!known) fail(where, name + ": unknown timing '" + k + "'");
    }
    if (t.nbk % t.nbkgrp) fail(where, name + ": nbk " + std::to_string(t.nbk) + " not a multiple of nbkgrp");
    m.dram = t;
  } else if (name == "-gpgpu_mem_addr_mapping") {
    std::string mask = v;
    if (auto at = v.find("dramid@"); at != std::string::npos) {
      auto semi = v.find(';', at);
      if (semi == std::string::npos) fail(where, name + ": expected dramid@N;mask in '" + v + "'");
      m.mem_addr_dramid_bit = number(where, name + " dramid", v.substr(at + 7, semi - at - 7), 5, 40);
      mask = v.substr(semi + 1);
    }
    std::string bits;
    for (char ch : mask)
      if (ch != '.' && ch != ' ' && ch != '"') bits += ch;
    if (bits.empty() || bits.size() > 64) fail(where, name + ": mask of " + std::to_string(bits.size()) + " bits (1..64)");
    uint64_t bank = 0, row = 0;
    for (size_t i = 0; i < bits.size(); ++i) {
      const uint64_t bit = 1ull << (bits.size() - 1 - i);
      switch (bits[i]) {
        case 'B':
          bank |= bit;
          break;
        case 'R':
          row |= bit;
          break;
        case '0':
        case 'C':
        case 'S':
        case 'D':
        case 'K':
          break;
        default:
          fail(where, name + ": unknown mask letter '" + std::string(1, bits[i]) + "'");
      }
    }
    if (!bank || !row) fail(where, name + ": the mask needs B (bank) and R (row) bits");
    m.bank_mask = bank;
    m.row_mask = row;
  } else {
    return false;
  }
  return true;
}

void load_icnt_file(mem_config& m, const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw config_file_error(path + ": is a directory, expected an interconnect configuration (-inter_config_file)");
  std::string text;
  if (auto file = read_whole_file(path)) {
    text = std::move(*file);
  } else if (!shipped_icnt_text(path.substr(path.rfind('/') + 1), text)) {
    throw config_file_error(path + ": cannot open the interconnect configuration (-inter_config_file)");
  }
  std::istringstream in(text);
  std::string line;
  unsigned n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (auto c = line.find("//"); c != std::string::npos) line.erase(c);
    std::string t;
    for (char ch : line)
      if (ch != ' ' && ch != '\t' && ch != '\r') t += ch;
    if (t.empty()) continue;
    const std::string where = path + ":" + std::to_string(n);
    const auto eq = t.find('=');
    if (eq == std::string::npos || eq == 0 || t.back() != ';') fail(where, "expected 'key = value;', got '" + line + "'");
    const std::string key = t.substr(0, eq), val = t.substr(eq + 1, t.size() - eq - 2);
    if (val.empty()) fail(where, key + ": empty value");
    // The keys the model reads; the others (topology, routing, allocators, traffic) are BookSim's.
    if (key == "flit_size")
      m.icnt_file_flit_size = number(where, key, val, 8, 1024);
    else if (key == "input_buffer_size")
      m.icnt_file_input_buffer = val == "0" ? 9 : number(where, key, val, 1, 1u << 16);
    else if (key == "ejection_buffer_size")
      m.icnt_file_ejection_buffer = number(where, key, val, 1, 1u << 16);
    else if (key == "subnets")
      m.icnt_file_subnets = number(where, key, val, 1, 2);
    else if (key == "k")
      m.icnt_file_k = number(where, key, val, 1, 4096);
    else if (key == "vc_buf_size")
      m.icnt_file_vc_buf = number(where, key, val, 1, 1u << 16);
    else if (key == "boundary_buffer_size")
      m.icnt_file_boundary_buffer = number(where, key, val, 1, 1u << 16);
    else if (key == "internal_speedup") {
      if (val != "1" && val != "1.0" && val != "2" && val != "2.0")
        fail(where, "internal_speedup = " + val + " is not modelled by -network_mode 1 (1.0 or 2.0)");
      m.icnt_file_internal_speedup = val[0] == '2' ? 2 : 1;
    } else
      m.icnt_file_timing.push_back(key + "=" + val);
  }
}

namespace {
// The BookSim options booksim_fly.h is written for, with BookSim's (booksim_config.cpp,
// intersim_config.cpp) default when the file does not set one.
struct booksim_need {
  const char* key;
  const char* def;   // BookSim's default
  const char* need;  // the value modelled
};
// input_speedup may take any value: with one VC every flit of an input uses the same expanded
// crossbar input (IQRouter: input * input_speedup + vc % input_speedup).
constexpr booksim_need booksim_needs[] = {
    {"topology", "torus", "fly"},
    {"n", "2", "1"},
    {"router", "iq", "iq"},
    {"num_vcs", "16", "1"},
    {"routing_delay", "1", "0"},
    {"vc_alloc_delay", "1", "1"},
    {"sw_alloc_delay", "1", "1"},
    {"st_prepare_delay", "0", "0"},
    {"st_final_delay", "1", "1"},
    {"output_speedup", "1", "1"},
    {"speculative", "0", "0"},
    {"vc_allocator", "islip", "islip"},
    {"sw_allocator", "islip", "islip"},
    {"alloc_iters", "1", "1"},
    {"wait_for_tail_credit", "0", "0"},
    {"hold_switch_for_packet", "0", "0"},
    {"noq", "0", "0"},
    {"use_map", "1", "0"},
    {"routing_function", "none", "dest_tag"},
    {"c", "1", "1"},
};
}  // namespace

void validate_booksim(const mem_config& m, unsigned nodes, const std::string& where) {
  for (const booksim_need& b : booksim_needs) {
    std::string v = b.def;
    for (const std::string& kv : m.icnt_file_timing)
      if (kv.compare(0, std::string(b.key).size() + 1, std::string(b.key) + "=") == 0) v = kv.substr(std::string(b.key).size() + 1);
    if (v != b.need) fail(where, m.icnt_file + ": " + b.key + " = " + v + " is not modelled by -network_mode 1 (needs " + b.need + ")");
  }
  if (m.icnt_file_k < nodes)
    fail(where, m.icnt_file + ": k = " + std::to_string(m.icnt_file_k) + " nodes, fewer than the " + std::to_string(nodes) +
                    " clusters and sub-partitions");
}

void set_memory_clocks(mem_config& m, const std::vector<std::string>& fields, const std::string& name, const std::string& where) {
  double* into[3] = {&m.icnt_mhz, &m.l2_mhz, &m.dram_mhz};
  for (size_t i = 1; i < fields.size() && i < 4; ++i) {
    double mhz = 0;
    try {
      mhz = std::stod(fields[i]);
    } catch (const std::exception&) {
      fail(where, name + ": bad clock '" + fields[i] + "'");
    }
    if (!(mhz >= 1 && mhz <= 100000)) fail(where, name + ": clock " + fields[i] + " MHz outside [1, 100000]");
    *into[i - 1] = mhz;
  }
}

void validate(const mem_config& m, const std::string& where) {
  if (m.l2.sectored && m.l2.line != 128) fail(where, "-gpgpu_cache:dl2: a sectored L2 needs 128-byte lines (4 sectors)");
  if (!m.l2.sectored && (m.l2.line < 32 || m.l2.line > 128))
    fail(where, "-gpgpu_cache:dl2: a non-sectored L2 line of 32 to 128 bytes is modelled (one to four 32-byte bursts)");
  if (m.l1.sectored && m.l1.line > 256) fail(where, "-gpgpu_cache:dl1: a sectored L1 line holds at most 8 sectors");
  // One line access needs room for all its sectors at once, else it could never be made.
  const unsigned sectors = m.l1.line / 32;
  if (m.l1.miss_queue < sectors || m.l1.mshrs < sectors)
    fail(where, "-gpgpu_cache:dl1: miss queue " + std::to_string(m.l1.miss_queue) + " and MSHRs " + std::to_string(m.l1.mshrs) +
                    " must hold the " + std::to_string(sectors) + " sectors of a line");
  if (m.icnt_l2_queue < 4)
    fail(where, "-gpgpu_dram_partition_queues: an icnt->L2 queue of " + std::to_string(m.icnt_l2_queue) +
                    " never takes a request (the crossbar is popped only with room for 4 sectors)");
  if (m.l2.set_index == 'H' || m.l2.set_index == 'C')
    fail(where, std::string("-gpgpu_cache:dl2: set index function ") + m.l2.set_index + " not modelled (L, P or X)");
  if (m.l2.set_index != 'L' && !pow2(m.l2.sets))
    fail(where, std::string("-gpgpu_cache:dl2: set index function ") + m.l2.set_index + " needs a power-of-two set count, not " +
                    std::to_string(m.l2.sets));
  if (m.l2.set_index == 'P' && m.l2.sets != 16 && m.l2.sets != 32 && m.l2.sets != 64)
    fail(where, "-gpgpu_cache:dl2: set index function P (IPOLY) needs 16, 32 or 64 sets, not " + std::to_string(m.l2.sets));
  if (m.l2.line % 32 || m.l1.line % 32) fail(where, "-gpgpu_cache:dl1/dl2: line size must be a multiple of 32 (sectors)");
  // dram_t's atom (BL x bus width) is what one column command moves: a 32-byte sector would
  // need several column commands per access below it (not modelled).
  if (uint64_t(m.dram_buswidth) * m.dram_burst_length < 32)
    fail(where, "-gpgpu_dram_buswidth x -gpgpu_dram_burst_length: " + std::to_string(m.dram_buswidth) + " B x " +
                    std::to_string(m.dram_burst_length) + " = " + std::to_string(m.dram_buswidth * m.dram_burst_length) +
                    " B per column command, below a 32-byte sector (several column commands per access: not modelled)");
  if (m.dram.nbk % m.dram.nbkgrp) fail(where, "-gpgpu_dram_timing_opt: nbk not a multiple of nbkgrp");
  if (m.dram_bnk_xor_row && !pow2(m.dram.nbk))
    fail(where, "-dram_bnk_indexing_policy 1 (bank XOR row) needs a power-of-two nbk, not " + std::to_string(m.dram.nbk));
  if (!(m.icnt_mhz > 0 && m.l2_mhz > 0 && m.dram_mhz > 0)) fail(where, "-gpgpu_clock_domains: clocks must be > 0");
  if (!pow2(m.sub_per_channel)) fail(where, "-gpgpu_n_sub_partition_per_mchannel: not a power of two");
  if (m.partition_indexing == 2) {
    unsigned p2 = 1;
    while (p2 < m.n_mem) p2 *= 2;
    const unsigned n = p2 * m.sub_per_channel;
    if (n != 16 && n != 32 && n != 64)
      fail(where,
           "-gpgpu_memory_partition_indexing 2 (IPOLY) needs 16, 32 or 64 sub-partitions (channels rounded up to a power of two), not " +
               std::to_string(n));
  }
  if (m.network_mode == 1 && m.icnt_file.empty()) fail(where, "-network_mode 1 (BookSim) needs -inter_config_file with a flit_size");
  if (m.network_mode == 1 && !m.icnt_file_flit_size) fail(where, m.icnt_file + ": no flit_size (needed by -network_mode 1)");
  if (m.partition_indexing == 1 && !pow2(m.n_mem)) fail(where, "-gpgpu_memory_partition_indexing 1 needs a power-of-two -gpgpu_n_mem");
  // Accel-Sim's GPGPU-Sim enumerates PAE (3) but its addrdec_tlx has no case for it: it stops on
  // "Undefined set index function". There is no timing to match.
  if (m.partition_indexing == 3)
    fail(where,
         "-gpgpu_memory_partition_indexing 3 (PAE): Accel-Sim's GPGPU-Sim has no decoder for it (addrdec_tlx stops on "
         "'Undefined set index function'); use 0, 1, 2, 4 or 5");
}

}  // namespace gpuvp::gpu_memory
