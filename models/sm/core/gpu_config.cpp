// SPDX-License-Identifier: Apache-2.0
#include "gpu_config.h"
#include "gpuvp/text.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpuvp::sm {

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& msg) { throw config_file_error(where + ": " + msg); }

// Range of every number an option gives, checked before anything is sized from it (an option's
// name, or a prefix ending in '*'); the first match wins, the last entry covers the rest.
// Documented in docs/models/sm.md.
struct option_range {
  const char* option;
  unsigned min, max;
};
constexpr option_range option_ranges[] = {
    {"-gpgpu_n_clusters", 1, 1024},
    {"-gpgpu_n_cores_per_cluster", 1, 1024},
    {"-gpgpu_shader_core_pipeline", 1, 4096},
    {"-gpgpu_shader_cta", 1, 1024},
    {"-gpgpu_num_sched_per_core", 1, 64},
    {"-gpgpu_num_*", 0, 1024},
    {"-gpgpu_pipeline_widths", 0, 64},
    {"-gpgpu_operand_collector_*", 0, 1024},
    {"-gpgpu_cache:dl1", 0, 65536},
    {"-specialized_unit_*", 0, 1024},
    {"-gpgpu_inst_fetch_throughput", 0, 64},
    {"-gpgpu_max_insn_issue_per_warp", 0, 64},
    {"*", 0, 1u << 24},
};
const option_range& range_of(const std::string& opt) {
  for (const auto& r : option_ranges) {
    const std::string_view name(r.option);
    if (name.ends_with('*') ? opt.starts_with(name.substr(0, name.size() - 1)) : opt == name) return r;
  }
  return option_ranges[std::size(option_ranges) - 1];
}

unsigned to_uint(const std::string& where, const std::string& opt, std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || (ec != std::errc() && ec != std::errc::result_out_of_range) || p != s.data() + s.size())
    fail(where, opt + ": '" + std::string(s) + "' is not an unsigned number");
  const option_range& r = range_of(opt);
  if (ec == std::errc::result_out_of_range || v < r.min || v > r.max)
    fail(where, opt + ": " + std::string(s) + " is outside [" + std::to_string(r.min) + ", " + std::to_string(r.max) + "]");
  return unsigned(v);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : s) {
    if (ch == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  out.push_back(cur);
  return out;
}

std::vector<unsigned> uint_list(const std::string& where, const std::string& opt, const std::string& v, char sep, size_t min_count) {
  auto parts = split(v, sep);
  if (parts.size() < min_count)
    fail(where, opt + ": expected " + std::to_string(min_count) + " values separated by '" + sep + "', got '" + v + "'");
  std::vector<unsigned> out;
  for (auto& p : parts) out.push_back(to_uint(where, opt, p));
  return out;
}

lat_ii pair_of(const std::string& where, const std::string& opt, const std::string& v) {
  auto l = uint_list(where, opt, v, ',', 2);
  return {l[0], l[1]};
}

bool to_bool(const std::string& where, const std::string& opt, const std::string& v) { return to_uint(where, opt, v) != 0; }

}  // namespace

bool option_is_read(const std::string& name) {
  gpu_config scratch;
  try {
    return apply_option(scratch, name, "", "");
  } catch (const config_file_error&) {
    return true;  // refused an empty value: an option it parses
  }
}

lat_ii gpu_config::latency_of(op_class c) const {
  switch (c) {
    case op_class::sp:
      return lat_sp;
    case op_class::dp:
      return lat_dp;
    case op_class::sfu:
      return lat_sfu;
    case op_class::intp:
      return lat_int;
    case op_class::tensor:
      return lat_tensor;
    case op_class::mem:
      return {1, 1};
    // Accel-Sim's set_latency: EXIT_OPS and BARRIER_OP keep the default 1,1; NOP-class opcodes
    // (NOP, DEPBAR, ERRBAR, CCTL, ...) are ALU_OP and take the int latency.
    case op_class::exit:
    case op_class::barrier:
      return {1, 1};
    case op_class::nop:
      return lat_int;
    default:
      return spec[unsigned(c) - unsigned(op_class::spec1) + 1].op;
  }
}

void gpu_config::validate() const {
  const std::string where = files.empty() ? std::string("gpu config") : files.back();
  auto check = [&](const char* what, lat_ii l) {
    if (l.latency == 0 || l.latency >= MAX_ALU_LATENCY)
      fail(where, std::string(what) + " latency " + std::to_string(l.latency) + " outside [1, 511]");
    if (l.initiation == 0) fail(where, std::string(what) + " initiation interval 0");
  };
  check("int", lat_int);
  check("sp", lat_sp);
  check("dp", lat_dp);
  check("sfu", lat_sfu);
  check("tensor", lat_tensor);
  for (unsigned i = 1; i <= SPECIALIZED_UNIT_NUM; ++i)
    if (spec[i].enabled) {
      check(("spec_op_" + std::to_string(i)).c_str(), spec[i].op);
      if (spec[i].max_latency == 0) fail(where, "specialized unit " + std::to_string(i) + " max latency 0");
    }
  // A width may be 0 only for units the configuration has none of (their work goes elsewhere:
  // INT to SP, DP to SFU; no opcode class uses the tensor-core unit without units).
  for (unsigned i = 0; i < N_PIPELINE_STAGES; ++i) {
    const bool unused = ((i == ID_OC_DP || i == OC_EX_DP) && num_dp == 0) || ((i == ID_OC_INT || i == OC_EX_INT) && num_int == 0) ||
                        ((i == ID_OC_TENSOR_CORE || i == OC_EX_TENSOR_CORE) && num_tensor == 0);
    if (widths[i] == 0 && !unused)
      fail(where, "-gpgpu_pipeline_widths: width " + std::to_string(i + 1) + " is 0 but its units are configured");
  }
  if (num_sched == 0 || warp_size != 32) fail(where, "need >= 1 scheduler and warp size 32");
  if (inst_fetch_throughput == 0 || inst_fetch_throughput > 64)
    fail(where, "-gpgpu_inst_fetch_throughput " + std::to_string(inst_fetch_throughput) + " outside [1, 64]");
  if (max_insn_issue_per_warp == 0) fail(where, "-gpgpu_max_insn_issue_per_warp 0");
  if (max_threads_per_sm < 32 || max_ctas_per_sm == 0) fail(where, "need >= 32 threads and >= 1 CTA per SM");
  if (smem_banks == 0 || l1_mshrs == 0) fail(where, "need >= 1 shared-memory bank and >= 1 L1 MSHR");
  if (smem_latency < 2 || smem_latency > 4096)
    fail(where, "-gpgpu_smem_latency " + std::to_string(smem_latency) +
                    " outside [2, 4096] (the LDST unit's shared-memory pipeline stages; GPGPU-Sim asserts > 1)");
  // Every scheduler's slot of a unit kind's OC_EX set must be served by some unit (in sub-core
  // mode unit k serves slot k mod width, scheduler s uses slot s mod width), else it deadlocks.
  auto units_ok = [&](const char* what, unsigned units, unsigned width) {
    const unsigned need = sub_core ? std::min(width, num_sched) : 1;
    if (units < need)
      fail(where, std::string(what) + ": " + std::to_string(units) + " units, need at least " + std::to_string(need) +
                      (sub_core ? " (one per scheduler slot in sub-core mode)" : ""));
  };
  units_ok("-gpgpu_num_sp_units", num_sp, widths[OC_EX_SP]);
  if (num_dp) units_ok("-gpgpu_num_dp_units", num_dp, widths[OC_EX_DP]);      // 0: DP runs on the SFUs
  if (num_int) units_ok("-gpgpu_num_int_units", num_int, widths[OC_EX_INT]);  // 0: INT runs on the SPs
  units_ok("-gpgpu_num_sfu_units", num_sfu, widths[OC_EX_SFU]);
  for (unsigned i = 1; i <= SPECIALIZED_UNIT_NUM; ++i)
    if (spec[i].enabled) {
      units_ok(("-specialized_unit_" + std::to_string(i)).c_str(), spec[i].num_units, spec[i].oc_ex_width);
      if (spec[i].id_oc_width == 0 || spec[i].oc_ex_width == 0)
        fail(where, "specialized unit " + std::to_string(i) + ": register set width 0");
      if (spec[i].id_oc_width > 64 || spec[i].oc_ex_width > 64)
        fail(where, "specialized unit " + std::to_string(i) + ": register set width above 64 (the limit of -gpgpu_pipeline_widths)");
    }
  if (num_sms() == 0) fail(where, "no SMs configured");
  if (uint64_t(num_clusters) * cores_per_cluster > max_sms)
    fail(where, "-gpgpu_n_clusters " + std::to_string(num_clusters) + " x -gpgpu_n_cores_per_cluster " + std::to_string(cores_per_cluster) +
                    " is more than " + std::to_string(max_sms) + " SMs");
  if (uint64_t(l1_sets) * l1_ways > 65536)
    fail(where, "-gpgpu_cache:dl1: " + std::to_string(l1_sets) + " sets x " + std::to_string(l1_ways) + " ways is more than 65536 lines");
  if (adaptive_l1) {
    // l1d_cache_config::get_max_cache_multiplier: the unified size is a whole multiple of the dl1 size.
    const uint64_t dl1_bytes = uint64_t(l1_sets) * l1_line * l1_ways;
    if (unified_l1d_kb == 0 || unified_l1d_kb > 4096)
      fail(where,
           "-gpgpu_adaptive_cache_config 1 needs -gpgpu_unified_l1d_size in [1, 4096] KB (got " + std::to_string(unified_l1d_kb) + ")");
    if (dl1_bytes % 1024 || unified_l1d_kb % (dl1_bytes / 1024))
      fail(where, "-gpgpu_unified_l1d_size " + std::to_string(unified_l1d_kb) +
                      " KB is not a whole multiple of the -gpgpu_cache:dl1 size (" + std::to_string(dl1_bytes) + " bytes)");
    if (shmem_options_kb.empty()) fail(where, "-gpgpu_adaptive_cache_config 1 needs -gpgpu_shmem_option (a list of KB)");
    if (shmem_options_kb.back() >= unified_l1d_kb)
      fail(where, "-gpgpu_shmem_option " + std::to_string(shmem_options_kb.back()) + " KB leaves no L1D of the " +
                      std::to_string(unified_l1d_kb) + " KB unified size");
    if (uint64_t(l1_sets) * l1_ways * (unified_l1d_kb / (dl1_bytes / 1024)) > 65536)
      fail(where, "-gpgpu_unified_l1d_size " + std::to_string(unified_l1d_kb) + " KB is more than 65536 L1D lines");
  }
  gpu_memory::validate(mem, where);
  if (mem.network_mode == 1) validate_booksim(mem, num_clusters + mem.sub_partitions(), where);
  check_state_size(where);
}

// Each option is range-checked alone; their products size the caches' state. Refused before
// anything is allocated when they need more than state_limit_bytes (no real GPU comes near:
// an H100's 50 MB L2 is ~30 MB of model state).
void gpu_config::check_state_size(const std::string& where) const {
  constexpr uint64_t l2_line_bytes = 72, l1_line_bytes = 56;  // l2_line + tag, LRU, bytes written; l1_tags
  auto gib = [](uint64_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(1ull << 30));
    return std::string(buf);
  };
  const uint64_t l2_lines = uint64_t(mem.sub_partitions()) * mem.l2.sets * mem.l2.ways;
  const uint64_t l2_bytes = l2_lines * l2_line_bytes;
  if (l2_bytes > state_limit_bytes)
    fail(where, "-gpgpu_cache:dl2: " + std::to_string(mem.l2.sets) + " sets x " + std::to_string(mem.l2.ways) + " ways x " +
                    std::to_string(mem.sub_partitions()) +
                    " sub-partitions (-gpgpu_n_mem x -gpgpu_n_sub_partition_per_mchannel) = " + std::to_string(l2_lines) +
                    " L2 lines need " + gib(l2_bytes) + " of model state, more than the " + gib(state_limit_bytes) + " allowed");
  uint64_t l1_lines = uint64_t(l1_sets) * l1_ways;
  if (adaptive_l1 && l1_sets && l1_line && l1_ways)
    l1_lines *= std::max<uint64_t>(1, unified_l1d_kb / std::max<uint64_t>(1, l1_lines * l1_line / 1024));
  const uint64_t l1_bytes = l1_lines * num_sms() * l1_line_bytes;
  if (l2_bytes + l1_bytes > state_limit_bytes)
    fail(where, "-gpgpu_cache:dl1: " + std::to_string(l1_lines) + " L1D lines x " + std::to_string(num_sms()) +
                    " SMs (-gpgpu_n_clusters x -gpgpu_n_cores_per_cluster) need " + gib(l1_bytes) + " of model state (" + gib(l2_bytes) +
                    " more for the L2), more than the " + gib(state_limit_bytes) + " allowed");
}

// GPGPU-Sim's adaptive cache configuration (shader_core_config::max_cta): the first shared-memory
// option (sorted) holding the kernel's, then ways = max ways x (1 - option / unified) rounded,
// in single precision as GPGPU-Sim computes it.
unsigned gpu_config::l1_ways_for(uint64_t total_shmem) const {
  if (!adaptive_l1) return l1_ways;
  const unsigned max_ways = l1_ways * (unified_l1d_kb / unsigned(uint64_t(l1_sets) * l1_line * l1_ways / 1024));
  for (unsigned kb : shmem_options_kb)
    if (total_shmem <= uint64_t(kb) * 1024) {
      const float l1_ratio = 1 - float(kb * 1024) / float(unified_l1d_kb * 1024);
      return std::max(1u, unsigned(float(max_ways) * l1_ratio + 0.5f));
    }
  throw std::runtime_error("the kernel's resident CTAs use " + std::to_string(total_shmem) +
                           " bytes of shared memory per SM, more than the largest -gpgpu_shmem_option (" +
                           std::to_string(shmem_options_kb.back()) + " KB)");
}

void gpu_config::note_unmodelled(const std::string& name, const std::string& value, const std::string& where) {
  for (auto& o : ignored)
    if (o.name == name) {
      o.value = value;
      o.where = where;
      return;
    }
  ignored.push_back({name, value, where});
}

namespace {
// Options the model does not read but whose value changes Accel-Sim's timing: the value the
// model behaves as, GPGPU-Sim's default (gpu-sim.cc reg_options), and what it would take.
struct timing_option {
  const char *name, *modelled, *gpgpusim_default, *what;
};
constexpr timing_option timing_options[] = {
    {"-gpgpu_cache:dl2_texture_only", "0", "1", "the L2 serves every access (a texture-only L2 is not modelled)"},
    {"-gpgpu_perfect_mem", "0", "0", "perfect memory is not modelled"},
    {"-l2_ideal", "0", "0", "an ideal L2 is not modelled"},
    {"-gpgpu_simple_dram_model", "0", "0", "only the detailed DRAM model exists"},
    {"-dram_seperate_write_queue_enable", "0", "0", "a separate DRAM write queue is not modelled"},
    {"-dram_elimnate_rw_turnaround", "0", "0", "DRAM read/write turnaround is always modelled"},
    {"-gpgpu_l1_banks_byte_interleaving", "32", "32", "L1D banks interleave 32 bytes"},
    {"-gpgpu_l1_banks_hashing_function", "0", "0", "L1D banks are picked without hashing"},
    {"-gpgpu_concurrent_kernel_sm", "0", "0", "kernels do not share an SM"},
    {"-gpgpu_TB_launch_latency", "0", "0", "CTAs launch without latency"},
    {"-gpgpu_max_cycle", "0", "0", "kernels run to the end"},
    {"-gpgpu_max_insn", "0", "0", "kernels run to the end"},
    {"-gpgpu_max_cta", "0", "0", "kernels run to the end"},
    {"-gpgpu_max_completed_cta", "0", "0", "kernels run to the end"},
    {"-gpgpu_flush_l2_cache", "0", "0", "the L2 is not flushed between kernels"},
};

// A value as GPGPU-Sim's option parser reads a number: its leading word.
std::string first_word(const std::string& v) {
  size_t b = v.find_first_not_of(" \t\"");
  if (b == std::string::npos) return "";
  size_t e = v.find_first_of(" \t\"", b);
  return v.substr(b, e == std::string::npos ? std::string::npos : e - b);
}
}  // namespace

std::vector<std::string> gpu_config::unmodelled_timing(bool from_defaults) const {
  std::vector<std::string> out;
  for (const auto& t : timing_options) {
    std::string value = from_defaults ? t.gpgpusim_default : t.modelled, where = "GPGPU-Sim's default";
    for (const auto& o : ignored)
      if (o.name == t.name) {
        value = first_word(o.value);
        where = o.where;
      }
    if (value != t.modelled) out.push_back(std::string(t.name) + " " + value + " (" + where + "): " + t.what + ", as if " + t.modelled);
  }
  return out;
}

std::string gpu_config::unmodelled_list() const {
  if (ignored.empty()) return "";
  std::string s = "not modelled:";
  for (size_t i = 0; i < ignored.size(); ++i)
    s += (i ? ", " : " ") + ignored[i].name + (ignored[i].value.empty() ? "" : " " + ignored[i].value);
  return s;
}

std::string gpu_config::summary() const {
  std::ostringstream os;
  os << "sm config:";
  for (auto& f : files) os << " " << f;
  os << " (" << num_sms() << " SMs, " << num_sched << " schedulers, " << widths[EX_WB] << " result buses";
  os << "; " << ignored.size() << " options ignored as not modelled)";
  return os.str();
}

namespace {

// -gpgpu_scheduler: lrr, gto or two_level_active[:N[:inner:outer]].
void set_scheduler(gpu_config& c, const std::string& name, const std::string& v, const std::string& where) {
  if (v != "lrr" && v != "gto" && v.rfind("two_level_active", 0) != 0)
    fail(where, name + ": unknown scheduler '" + v + "' (lrr, gto, two_level_active:...)");
  if (v.rfind("two_level_active", 0) == 0) {
    // two_level_active:N:inner:outer; GPGPU-Sim implements only inner 0 (LRR), outer 1 (SRR).
    unsigned n = 0, inner = 0, outer = 1;
    const int got = std::sscanf(v.c_str(), "two_level_active:%u:%u:%u", &n, &inner, &outer);
    if (v != "two_level_active" && (got < 1 || n == 0))
      fail(where, name + ": '" + v + "': expected two_level_active:N[:0:1] with N >= 1 active warps");
    if (got >= 2 && inner != 0) fail(where, name + ": '" + v + "': inner level " + std::to_string(inner) + " (only 0, LRR, exists)");
    if (got >= 3 && outer != 1) fail(where, name + ": '" + v + "': outer level " + std::to_string(outer) + " (only 1, SRR, exists)");
  }
  c.scheduler = v;
}

// -gpgpu_clock_domains core:icnt:l2:dram (MHz).
void set_clock_domains(gpu_config& c, const std::string& name, const std::string& v, const std::string& where) {
  auto parts = split(v, ':');
  try {
    c.core_mhz = std::stod(parts.at(0));
  } catch (const std::exception&) {
    fail(where, name + ": bad clock '" + v + "'");
  }
  if (!(c.core_mhz > 0 && c.core_mhz <= 100000)) fail(where, name + ": core clock must be in (0, 100000] MHz");
  set_memory_clocks(c.mem, parts, name, where);
}

// -gpgpu_cache:dl1 [S|N:]sets:line:ways,repl:...,mshr_type:entries:merge,...
void set_l1_cache(gpu_config& c, const std::string& name, const std::string& v, const std::string& where) {
  auto groups = split(v, ',');
  auto geo = split(groups[0], ':');
  if (!geo.empty() && (geo[0] == "S" || geo[0] == "N")) geo.erase(geo.begin());
  if (geo.size() < 3) fail(where, name + ": expected sets:line:ways in '" + v + "'");
  c.l1_sets = to_uint(where, name, geo[0]);
  c.l1_line = to_uint(where, name, geo[1]);
  c.l1_ways = to_uint(where, name, geo[2]);
  if (groups.size() > 2) {
    auto m = split(groups[2], ':');
    if (m.size() >= 3) {
      c.l1_mshrs = to_uint(where, name, m[1]);
      c.l1_mshr_merge = to_uint(where, name, m[2]);
    }
  }
  if (!c.l1_sets || !c.l1_line || !c.l1_ways || (c.l1_line & (c.l1_line - 1)))
    fail(where, name + ": sets, ways must be > 0 and the line a power of two");
  if (c.l1_line < 32 || c.l1_line > 256)  // whole 32-byte sectors, at most 8 a line (the L1's sector bits)
    fail(where, name + ": line " + std::to_string(c.l1_line) + " outside [32, 256] bytes");
  parse_cache_config(c.mem.l1, name, v, where);  // policies, miss queue (mem_config.cpp)
}

// -trace_opcode_latency_initiation_UNIT latency,initiation; false for a unit not modelled.
bool set_opcode_latency(gpu_config& c, const std::string& name, const std::string& v, const std::string& where) {
  std::string k = name.substr(33);
  lat_ii p = pair_of(where, name, v);
  if (k == "int")
    c.lat_int = p;
  else if (k == "sp")
    c.lat_sp = p;
  else if (k == "dp")
    c.lat_dp = p;
  else if (k == "sfu")
    c.lat_sfu = p;
  else if (k == "tensor")
    c.lat_tensor = p;
  else if (k.rfind("spec_op_", 0) == 0) {
    unsigned n = to_uint(where, name, k.substr(8));
    if (n < 1 || n > SPECIALIZED_UNIT_NUM) fail(where, name + ": specialized unit number outside 1..8");
    c.spec[n].op = p;
  } else {
    return false;
  }
  return true;
}

// -specialized_unit_N enabled,num_units,max_latency,ID_OC width,OC_EX width,NAME
void set_specialized_unit(gpu_config& c, const std::string& name, const std::string& v, const std::string& where) {
  unsigned n = to_uint(where, name, std::string_view(name).substr(18));
  if (n < 1 || n > SPECIALIZED_UNIT_NUM) fail(where, name + ": specialized unit number outside 1..8");
  auto parts = split(v, ',');
  if (parts.size() != 6) fail(where, name + ": expected enabled,num_units,max_latency,ID_OC width,OC_EX width,NAME, got '" + v + "'");
  auto& s = c.spec[n];
  s.enabled = to_bool(where, name, parts[0]);
  s.num_units = to_uint(where, name, parts[1]);
  s.max_latency = to_uint(where, name, parts[2]);
  s.id_oc_width = to_uint(where, name, parts[3]);
  s.oc_ex_width = to_uint(where, name, parts[4]);
  s.name = parts[5];
  if (s.name.empty()) fail(where, name + ": empty unit name");
}

}  // namespace

bool apply_option(gpu_config& c, const std::string& name, const std::string& v, const std::string& where) {
  auto u = [&] { return to_uint(where, name, v); };
  if (name == "-gpgpu_n_clusters")
    c.num_clusters = u();
  else if (name == "-gpgpu_n_cores_per_cluster")
    c.cores_per_cluster = u();
  else if (name == "-gpgpu_shader_core_pipeline") {
    auto l = uint_list(where, name, v, ':', 2);
    c.max_threads_per_sm = l[0];
    c.warp_size = l[1];
  } else if (name == "-gpgpu_shader_cta")
    c.max_ctas_per_sm = u();
  else if (name == "-gpgpu_shader_registers")
    c.registers_per_sm = u();
  else if (name == "-gpgpu_shmem_size")
    c.shmem_per_sm = u();
  else if (name == "-gpgpu_pipeline_widths") {
    // GPGPU-Sim reads the last two (tensor core) widths only with -gpgpu_tensor_core_avail 1:
    // files for GPUs without tensor cores give 11.
    auto l = uint_list(where, name, v, ',', ID_OC_TENSOR_CORE);
    for (unsigned i = 0; i < N_PIPELINE_STAGES; ++i) c.widths[i] = i < l.size() ? l[i] : 0;
  } else if (name == "-gpgpu_num_sp_units")
    c.num_sp = u();
  else if (name == "-gpgpu_num_dp_units")
    c.num_dp = u();
  else if (name == "-gpgpu_num_sfu_units")
    c.num_sfu = u();
  else if (name == "-gpgpu_num_int_units")
    c.num_int = u();
  else if (name == "-gpgpu_num_tensor_core_units")
    c.num_tensor = u();
  else if (name == "-gpgpu_sub_core_model")
    c.sub_core = to_bool(where, name, v);
  else if (name == "-gpgpu_num_sched_per_core")
    c.num_sched = u();
  else if (name == "-gpgpu_scheduler")
    set_scheduler(c, name, v, where);
  else if (name == "-gpgpu_max_insn_issue_per_warp")
    c.max_insn_issue_per_warp = u();
  else if (name == "-gpgpu_inst_fetch_throughput")
    c.inst_fetch_throughput = u();
  else if (name == "-gpgpu_dual_issue_diff_exec_units")
    c.dual_issue_diff_exec_units = to_bool(where, name, v);
  else if (name == "-gpgpu_num_reg_banks")
    c.reg_banks = u();
  else if (name == "-gpgpu_reg_file_port_throughput")
    c.reg_port_throughput = u();
  else if (name == "-gpgpu_operand_collector_num_units_gen")
    c.oc_units_gen = u();
  else if (name == "-gpgpu_operand_collector_num_units_sp")
    c.oc_units_sp = u();
  else if (name == "-gpgpu_operand_collector_num_units_dp")
    c.oc_units_dp = u();
  else if (name == "-gpgpu_operand_collector_num_units_sfu")
    c.oc_units_sfu = u();
  else if (name == "-gpgpu_operand_collector_num_units_int")
    c.oc_units_int = u();
  else if (name == "-gpgpu_operand_collector_num_units_tensor_core")
    c.oc_units_tensor = u();
  else if (name == "-gpgpu_operand_collector_num_units_mem")
    c.oc_units_mem = u();
  else if (name == "-gpgpu_clock_domains")
    set_clock_domains(c, name, v, where);
  else if (name == "-gpgpu_adaptive_cache_config")
    c.adaptive_l1 = to_bool(where, name, v);
  else if (name == "-gpgpu_shmem_option") {
    c.shmem_options_kb = uint_list(where, name, v, ',', 0);
    std::sort(c.shmem_options_kb.begin(), c.shmem_options_kb.end());
  } else if (name == "-gpgpu_unified_l1d_size")
    c.unified_l1d_kb = u();
  else if (name == "-gpgpu_l1_latency")
    c.l1_latency = u();
  else if (name == "-gpgpu_gmem_skip_L1D")
    c.gmem_skip_l1d = to_bool(where, name, v);
  else if (name == "-gpgpu_ignore_resources_limitation")
    c.ignore_resources_limitation = to_bool(where, name, v);
  else if (name == "-gpgpu_perfect_inst_const_cache")
    c.perfect_icache = to_bool(where, name, v);
  else if (name == "-gpgpu_cache:il1")
    parse_cache_config(c.il1, name, v, where);
  else if (name == "-gpgpu_smem_latency")
    c.smem_latency = u();
  else if (name == "-gpgpu_shmem_num_banks")
    c.smem_banks = u();
  else if (name == "-gpgpu_l2_rop_latency")
    c.l2_rop_latency = u();
  else if (name == "-dram_latency")
    c.dram_latency = u();
  else if (name == "-gpgpu_kernel_launch_latency")
    c.kernel_launch_latency = u();
  else if (name == "-gpgpu_cache:dl1")
    set_l1_cache(c, name, v, where);
  else if (name.rfind("-trace_opcode_latency_initiation_", 0) == 0) {
    if (!set_opcode_latency(c, name, v, where)) {
      c.note_unmodelled(name, v, where);
      return false;
    }
  } else if (name.rfind("-specialized_unit_", 0) == 0)
    set_specialized_unit(c, name, v, where);
  else if (!apply_mem_option(c.mem, name, v, where)) {  // the memory system's options (mem_config.cpp)
    c.note_unmodelled(name, v, where);
    return false;
  }
  return true;
}

void load_config_text(gpu_config& c, const std::string& text, const std::string& name) {
  std::istringstream in(text);
  std::string line;
  unsigned n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (auto h = line.find('#'); h != std::string::npos) line.erase(h);
    std::istringstream ls(line);
    std::string opt, val, extra;
    if (!(ls >> opt)) continue;
    const std::string where = name + ":" + std::to_string(n);
    if (opt[0] != '-') fail(where, "expected an option starting with '-', got '" + opt + "'");
    if (!(ls >> val)) {
      // A few Accel-Sim options are bare flags; none is one the SM model reads, so an option the
      // model reads (one apply_option takes or refuses) given bare is a mistake, not a flag.
      if (option_is_read(opt)) fail(where, opt + ": no value (the model reads this option)");
      c.note_unmodelled(opt, "", where);
      continue;
    }
    std::string rest;
    while (ls >> extra) rest += " " + extra;
    // A quoted value may go on over the next lines ("-gpgpu_dram_timing_opt" in the shipped files).
    if (val[0] == '"' && std::count(val.begin(), val.end(), '"') + std::count(rest.begin(), rest.end(), '"') == 1) {
      std::string more;
      while (std::getline(in, more)) {
        ++n;
        if (auto h = more.find('#'); h != std::string::npos) more.erase(h);
        rest += " " + more;
        if (more.find('"') != std::string::npos) break;
      }
      if (std::count(rest.begin(), rest.end(), '"') != 1) fail(where, opt + ": unterminated quoted value");
    }
    if (!rest.empty() && opt != "-gpgpu_scheduler") val += rest;
    apply_option(c, opt, val, where);
  }
  c.files.push_back(name);
}

void load_config_file(gpu_config& c, const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw config_file_error(path + ": is a directory, expected a gpgpusim.config file");
  const auto text = read_whole_file(path);
  if (!text) throw config_file_error(path + ":0: cannot open file");
  load_config_text(c, *text, path);
}

namespace {
// --gpu / compute.gpu names and their folders under models/sm/configs/ (models/sm/CMakeLists.txt
// compiles the same list in).
constexpr std::pair<const char*, const char*> shipped_configs[] = {
    {"QV100", "SM7_QV100"},   {"RTX3070", "SM86_RTX3070"}, {"A100", "SM80_A100"},
    {"H100", "SM90_H100"},    {"TITANX", "SM6_TITANX"},    {"GV100", "SM7_GV100"},
    {"TITANV", "SM7_TITANV"}, {"RTX2060", "SM75_RTX2060"}, {"RTX2060_S", "SM75_RTX2060_S"}};
}  // namespace

std::string shipped_config_dir(const std::string& name) {
  for (const auto& [n, dir] : shipped_configs)
    if (name == n) return dir;
  return "";
}

std::string shipped_config_names() {
  std::string out;
  for (const auto& c : shipped_configs) out += (out.empty() ? "" : ", ") + std::string(c.first);
  return out;
}

}  // namespace gpuvp::sm
