// SPDX-License-Identifier: Apache-2.0
// Observability: a Chrome trace-event JSON writer (open the file in Perfetto or chrome://tracing;
// one track per model, complete spans for transactions and activity) and per-module logging.
#pragma once
#include <array>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <vector>
#include <string>
#include <systemc>

namespace gpuvp {

// One argument of a span or an instant: a name and a whole number, a flag or a string, written
// as JSON by nlohmann-json in the order given ({"engine", 3}, {"virt", to_hex(va)}).
struct trace_arg {
  template <std::integral T>
  trace_arg(const char* k, T v)
      : key(k),
        kind(std::same_as<T, bool> ? flag
             : std::is_signed_v<T> ? signed_number
                                   : number),
        bits(uint64_t(v)) {}
  trace_arg(const char* k, std::string v) : key(k), kind(text), str(std::move(v)) {}
  trace_arg(const char* k, const char* v) : trace_arg(k, std::string(v)) {}
  const char* key;
  enum kind_t : uint8_t { number, signed_number, flag, text } kind;
  uint64_t bits = 0;  // number, signed_number (two's complement), flag
  std::string str;    // text
};
using trace_args = std::vector<trace_arg>;

class tracer {
 public:
  static tracer& global();
  bool open(const std::string& file);  // false if the file cannot be created
  void close();
  bool enabled() const { return out_ != nullptr; }
  // Track (Perfetto thread) for a model; the same name gives the same id.
  uint32_t track(const std::string& name);
  // A span [start, start+duration) on a track, args a JSON object body or "".
  void span(uint32_t track, const char* name, const sc_core::sc_time& start, const sc_core::sc_time& duration,
            const std::string& args = "");
  void instant(uint32_t track, const char* name, const sc_core::sc_time& at, const std::string& args = "");
  void span(uint32_t track, const char* name, const sc_core::sc_time& start, const sc_core::sc_time& duration, const trace_args& args);
  void instant(uint32_t track, const char* name, const sc_core::sc_time& at, const trace_args& args);
  // `args` as a JSON object body (what the string forms of span and instant take).
  static std::string args_body(const trace_args& args);
  // `s` as a JSON string literal (quoted, escaped; invalid UTF-8 replaced), for span args.
  static std::string quote(const std::string& s);
  // A counter track value ("C" event).
  void value(uint32_t track, const char* name, const sc_core::sc_time& at, double v);
  // Flow arrows (trace events "s" and "f", category "flow"; Perfetto draws an arrow from one span
  // to another). flow_out marks a start in the span open on `track` at `at` (a time inside it, at
  // least 1 ns after its start: Perfetto keeps whole nanoseconds, and a start at the span's own
  // first nanosecond may bind to nothing) and returns the flow's id, 0 when tracing is off; the
  // initiator passes the id on
  // (gpu_ext::flow, kernel_launch::flow). flow_in ends it in the span open on `track` at `at`
  // ("bp":"e"): both events are written then, so a start that nothing ends writes nothing. Starts
  // wait in a fixed table of flow_slots entries: one that many newer starts follow is forgotten
  // (memory stays constant). flow_in of 0 or of an unknown or already ended id does nothing.
  static constexpr uint32_t flow_slots = 4096;
  uint64_t flow_out(uint32_t track, const sc_core::sc_time& at);
  void flow_in(uint64_t id, uint32_t track, const sc_core::sc_time& at);

 private:
  void emit(const std::string& event);
  std::FILE* out_ = nullptr;
  bool first_ = true;
  std::vector<std::string> tracks_;
  struct flow_start {
    uint64_t id = 0;
    uint32_t track = 0;
    sc_core::sc_time at;
  };
  std::vector<flow_start> flows_;  // flow_slots entries once a flow starts, by id % flow_slots
  uint64_t next_flow_ = 0;
};

// Log levels: 0 error, 1 warning, 2 info, 3 debug (one line per transaction).
enum class log_level : int { error = 0, warning = 1, info = 2, debug = 3 };

class logger {
 public:
  static logger& global();
  void reset();
  // "debug", "router=debug", "mmu.tlb=info": the longest matching prefix of a module name wins.
  void configure(const std::string& spec);
  // Cheap when the level is off everywhere (the common case on hot paths).
  bool enabled(const char* module, log_level level) const { return level <= max_ && enabled_for(module, level); }
  void write(const std::string& module, log_level level, const std::string& message);
  // Where log lines go (standard error by default).
  void set_sink(std::ostream* sink) { sink_ = sink; }
  // Count of error/warning lines written (the CLI's report uses them).
  uint64_t errors() const { return errors_; }
  uint64_t warnings() const { return warnings_; }
  // An error/warning/info message identical (module, level, text) to one already written
  // repeat_limit times is not written again (debug lines are never limited), only counted (statistic log.suppressed_lines); the first such line says so.
  static constexpr uint32_t repeat_limit = 10;
  uint64_t suppressed() const { return suppressed_; }

 private:
  bool enabled_for(const char* module, log_level level) const;
  log_level default_ = log_level::warning;
  log_level max_ = log_level::warning;  // highest level enabled by any rule
  std::vector<std::pair<std::string, log_level>> rules_;
  uint64_t errors_ = 0, warnings_ = 0, suppressed_ = 0;
  std::ostream* sink_ = nullptr;
  // Repeat counts by message hash in a fixed table (a new message may evict another's count):
  // memory stays constant however many messages a run writes.
  struct repeat {
    uint64_t hash = 0;
    uint32_t count = 0;
  };
  std::array<repeat, 256> repeats_{};
};

}  // namespace gpuvp

// GPUVP_LOG(this, debug, "read 0x" << std::hex << addr) — the message is only built when enabled.
#define GPUVP_LOG(owner, level, stream_expr)                                        \
  do {                                                                              \
    auto& gpuvp_lg_ = ::gpuvp::logger::global();                                    \
    if (gpuvp_lg_.enabled((owner)->name(), ::gpuvp::log_level::level)) {            \
      std::ostringstream gpuvp_os_;                                                 \
      gpuvp_os_ << stream_expr;                                                     \
      gpuvp_lg_.write((owner)->name(), ::gpuvp::log_level::level, gpuvp_os_.str()); \
    }                                                                               \
  } while (0)
