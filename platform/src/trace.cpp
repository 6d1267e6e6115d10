// SPDX-License-Identifier: Apache-2.0
#include "gpuvp/timing.h"
#include "gpuvp/trace.h"
#include "gpuvp/output_file.h"

#include <cinttypes>
#include <algorithm>
#include <iostream>
#include <string_view>
#include <nlohmann/json.hpp>

namespace gpuvp {

tracer& tracer::global() {
  static tracer instance;
  return instance;
}

namespace {
// A JSON string (nlohmann-json's escaping; invalid UTF-8 replaced, never thrown).
std::string json_string(const std::string& s) { return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }
// Trace-event timestamps are microseconds; keep picosecond precision.
std::string micros(const sc_core::sc_time& t) {
  const uint64_t ps = t.value() / (1_ps).value();
  char buf[48];
  std::snprintf(buf, sizeof buf, "%" PRIu64 ".%06" PRIu64, ps / 1000000, ps % 1000000);
  return buf;
}
}  // namespace

bool tracer::open(const std::string& file) {
  close();
  out_ = std::fopen(file.c_str(), "w");
  if (!out_) return false;
  std::fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", out_);
  first_ = true;
  // Tracks made during elaboration (before the file was opened) get their names now.
  for (size_t i = 0; i < tracks_.size(); ++i)
    emit("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":" + std::to_string(i + 1) +
         ",\"args\":{\"name\":" + json_string(tracks_[i]) + "}}");
  return true;
}

namespace {
bool trace_failed = false;  // the last close() found a write error (trace_write_failed)
}  // namespace

bool trace_write_failed() { return trace_failed; }

void tracer::close() {
  flows_.clear();
  next_flow_ = 0;
  if (!out_) return;
  std::fputs("\n]}\n", out_);
  // A full disk shows in the stream's error flag (buffered writes) or in fclose's final flush.
  const bool ok = std::fflush(out_) == 0 && !std::ferror(out_);
  const bool closed = std::fclose(out_) == 0;
  out_ = nullptr;
  trace_failed = !(ok && closed);
}

uint32_t tracer::track(const std::string& name) {
  for (size_t i = 0; i < tracks_.size(); ++i)
    if (tracks_[i] == name) return uint32_t(i + 1);
  tracks_.push_back(name);
  const uint32_t id = uint32_t(tracks_.size());
  if (out_)
    emit("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":" + std::to_string(id) + ",\"args\":{\"name\":" + json_string(name) +
         "}}");
  return id;
}

void tracer::span(uint32_t track, const char* name, const sc_core::sc_time& start, const sc_core::sc_time& duration,
                  const std::string& args) {
  if (!out_) return;
  emit("{\"name\":" + json_string(name) + ",\"ph\":\"X\",\"pid\":1,\"tid\":" + std::to_string(track) + ",\"ts\":" + micros(start) +
       ",\"dur\":" + micros(duration) + ",\"args\":{" + args + "}}");
}

void tracer::instant(uint32_t track, const char* name, const sc_core::sc_time& at, const std::string& args) {
  if (!out_) return;
  emit("{\"name\":" + json_string(name) + ",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":" + std::to_string(track) + ",\"ts\":" + micros(at) +
       ",\"args\":{" + args + "}}");
}

void tracer::value(uint32_t track, const char* name, const sc_core::sc_time& at, double v) {
  if (!out_) return;
  emit("{\"name\":" + json_string(name) + ",\"ph\":\"C\",\"pid\":1,\"tid\":" + std::to_string(track) + ",\"ts\":" + micros(at) +
       ",\"args\":{\"value\":" + std::to_string(v) + "}}");
}

std::string tracer::quote(const std::string& s) { return json_string(s); }

std::string tracer::args_body(const trace_args& args) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& a : args) {
    switch (a.kind) {
      case trace_arg::number:
        j[a.key] = a.bits;
        break;
      case trace_arg::signed_number:
        j[a.key] = int64_t(a.bits);
        break;
      case trace_arg::flag:
        j[a.key] = a.bits != 0;
        break;
      case trace_arg::text:
        j[a.key] = a.str;
        break;
    }
  }
  const std::string object = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return object.substr(1, object.size() - 2);  // the body between the braces
}

void tracer::span(uint32_t track, const char* name, const sc_core::sc_time& start, const sc_core::sc_time& duration,
                  const trace_args& args) {
  if (out_) span(track, name, start, duration, args_body(args));
}

void tracer::instant(uint32_t track, const char* name, const sc_core::sc_time& at, const trace_args& args) {
  if (out_) instant(track, name, at, args_body(args));
}

uint64_t tracer::flow_out(uint32_t track, const sc_core::sc_time& at) {
  if (!out_) return 0;
  if (flows_.empty()) flows_.resize(flow_slots);
  const uint64_t id = ++next_flow_;
  flows_[id % flow_slots] = {id, track, at};
  return id;
}

void tracer::flow_in(uint64_t id, uint32_t track, const sc_core::sc_time& at) {
  if (!out_ || id == 0 || flows_.empty()) return;
  flow_start& s = flows_[id % flow_slots];
  if (s.id != id) return;
  const std::string ids = std::to_string(id);
  emit("{\"name\":\"flow\",\"cat\":\"flow\",\"ph\":\"s\",\"id\":" + ids + ",\"pid\":1,\"tid\":" + std::to_string(s.track) +
       ",\"ts\":" + micros(s.at) + "}");
  emit("{\"name\":\"flow\",\"cat\":\"flow\",\"ph\":\"f\",\"bp\":\"e\",\"id\":" + ids + ",\"pid\":1,\"tid\":" + std::to_string(track) +
       ",\"ts\":" + micros(at) + "}");
  s.id = 0;
}

void tracer::emit(const std::string& event) {
  if (!first_) std::fputs(",\n", out_);
  first_ = false;
  std::fputs(event.c_str(), out_);
}

logger& logger::global() {
  static logger instance;
  return instance;
}

void logger::reset() {
  default_ = max_ = log_level::warning;
  rules_.clear();
  errors_ = warnings_ = suppressed_ = 0;
  sink_ = nullptr;
  repeats_.fill({});
}

namespace {
log_level parse_level(const std::string& s) {
  if (s == "error") return log_level::error;
  if (s == "warning" || s == "warn") return log_level::warning;
  if (s == "info") return log_level::info;
  if (s == "debug") return log_level::debug;
  throw std::invalid_argument("unknown log level '" + s + "' (error, warning, info, debug)");
}
const char* level_name(log_level l) {
  switch (l) {
    case log_level::error:
      return "error";
    case log_level::warning:
      return "warning";
    case log_level::info:
      return "info";
    default:
      return "debug";
  }
}
}  // namespace

void logger::configure(const std::string& spec) {
  auto eq = spec.find('=');
  if (eq == std::string::npos) {
    default_ = parse_level(spec);
  } else {
    rules_.emplace_back(spec.substr(0, eq), parse_level(spec.substr(eq + 1)));
  }
  max_ = default_;
  for (const auto& [prefix, l] : rules_) max_ = std::max(max_, l);
}

bool logger::enabled_for(const char* module_name, log_level level) const {
  const std::string_view module(module_name);
  log_level limit = default_;
  size_t best = 0;
  for (const auto& [prefix, l] : rules_)
    if (prefix.size() >= best && module.substr(0, prefix.size()) == prefix &&
        (module.size() == prefix.size() || module[prefix.size()] == '.')) {
      best = prefix.size();
      limit = l;
    }
  return level <= limit;
}

void logger::write(const std::string& module, log_level level, const std::string& message) {
  if (level == log_level::error) ++errors_;
  if (level == log_level::warning) ++warnings_;
  if (level == log_level::debug) {  // asked-for detail (one line per transaction): never limited
    (sink_ ? *sink_ : std::cerr) << "[" << sc_core::sc_time_stamp().to_string() << "] debug: " << module << ": " << message << "\n";
    return;
  }
  const std::hash<std::string_view> h;
  const uint64_t key = h(module) * 31 + h(message) * 7 + uint64_t(level) + 1;
  repeat& r = repeats_[key % repeats_.size()];
  if (r.hash != key) r = {key, 0};
  if (r.count >= repeat_limit) {
    if (suppressed_++ == 0)
      (sink_ ? *sink_ : std::cerr) << "[" << sc_core::sc_time_stamp().to_string() << "] " << level_name(level) << ": " << module
                                   << ": (written " << repeat_limit << " times; further identical messages are not written, "
                                   << "the statistic log.suppressed_lines counts them)\n";
    return;
  }
  ++r.count;
  (sink_ ? *sink_ : std::cerr) << "[" << sc_core::sc_time_stamp().to_string() << "] " << level_name(level) << ": " << module << ": "
                               << message << "\n";
}

}  // namespace gpuvp
