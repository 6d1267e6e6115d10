// SPDX-License-Identifier: Apache-2.0
#include "cli.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <unistd.h>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>
#include "gpuvp/config.h"
#include "gpuvp/host.h"
#include "gpuvp/output_file.h"
#include "gpuvp/platform.h"
#include "gpuvp/progress.h"
#include "gpuvp/registry.h"
#include "gpuvp/stats.h"
#include "gpuvp/suggest.h"
#include "gpuvp/text.h"
#include "gpuvp/tool_args.h"
#include "gpuvp/trace.h"
#include "gpuvp/workload_json.h"
#include "run_control.h"
#include "gpuvp/sha256.h"

namespace gpuvp {

namespace {

// SystemC's own reports (SC_REPORT_INFO / SC_REPORT_WARNING from the kernel or a model) go through
// gpuvp's logger as module "systemc" (--log systemc=LEVEL): infos at info, warnings at warning,
// the kernel's deprecation notes at debug. Errors and fatals keep SystemC's handling (an
// exception the run reports as a simulation error).
void systemc_report(const sc_core::sc_report& r, const sc_core::sc_actions& actions) {
  if (r.get_severity() >= sc_core::SC_ERROR) return sc_core::sc_report_handler::default_handler(r, actions);
  const std::string type = r.get_msg_type();
  const log_level level = type.rfind("/IEEE_Std_1666/deprecated", 0) == 0 ? log_level::debug
                          : r.get_severity() == sc_core::SC_INFO          ? log_level::info
                                                                          : log_level::warning;
  auto& lg = logger::global();
  if (!lg.enabled("systemc", level)) return;
  std::string text = type + ": " + r.get_msg();
  if (r.get_line_number() > 0) text += std::string(" (") + r.get_file_name() + ":" + std::to_string(r.get_line_number()) + ")";
  lg.write("systemc", level, text);
}

const char* usage_text =
    "usage: gpuvp <command> [options]\n"
    "\n"
    "commands:\n"
    "  run [options]        run a workload on the platform (default: the embedded platform and workload)\n"
    "  qtest [options]      serve QEMU's qtest protocol on stdin (or --script F)\n"
    "  config dump [opts]   print the effective configuration as YAML\n"
    "  --help, --version\n";

struct common_options {
  std::vector<std::string> configs, sets, logs;
  std::string workload, stats, trace, vcd, quantum, script, time_limit, wall_limit, platform, rtl_trace;
  bool quiet = false;
};

// The options of run, qtest and config dump. Each command lists only the options that act in it:
// config dump runs nothing (no output files, limits, log or report); qtest prints no report and
// its session waits on QEMU's commands, which no wall-clock limit can interrupt.
enum class command_kind { run, qtest, config_dump };
void platform_options(tool_args& a, common_options& o, command_kind k) {
  a.text("platform", o.platform, "NAME",
         "embedded platform: default, or one listed by --help (e.g. agx); without it: the one the workload's kind names (AGX scenarios: "
         "agx), else default")
      .texts("config", o.configs, "FILE", "YAML configuration file")
      .texts("set", o.sets, "PATH=VALUE", "override one parameter")
      .text("workload", o.workload, "W", "workload: a file (kind chosen by its extension), an embedded workload's name, or traffic");
  if (k != command_kind::config_dump)
    a.text("stats", o.stats, "FILE", "write statistics as JSON to this file")
        .text("trace", o.trace, "FILE", "write a Chrome trace-event JSON (Perfetto) to this file")
        .text("vcd", o.vcd, "FILE", "write interrupt signals as VCD to this file (.vcd is appended)");
  a.text("rtl-trace", o.rtl_trace, "FILE", "write FST waveforms of the RTL blocks to this file (same as --set rtl.trace=F)")
      .text("quantum", o.quantum, "T", "global quantum (same as --set platform.quantum=T)")
      .text("time-limit", o.time_limit, "T", "simulated time limit (same as --set platform.time_limit=T); reaching it is exit 1");
  if (k == command_kind::run)
    a.text("wall-limit", o.wall_limit, "T", "wall-clock limit (e.g. 30 s; a bare number is seconds); reaching it is exit 1; default off");
  if (k != command_kind::config_dump) a.texts("log", o.logs, "LEVEL", "log level: LEVEL or MODULE=LEVEL (error, warning, info, debug)");
  if (k == command_kind::run) a.flag("quiet,q", o.quiet, "print no report");
}

// The workload a run uses: a file, an embedded workload, or none (the traffic platform).
struct workload_choice {
  const workload_kind* kind = nullptr;
  const embedded_workload* embedded = nullptr;
  std::string path, label, platform;  // platform: the embedded platform the run uses
  std::unique_ptr<workload> load() const {
    if (!kind) return nullptr;
    if (embedded) return kind->parse(embedded->text, "embedded:" + embedded->name);
    return kind->load(path);
  }
};

// The workload of `gpuvp run` without --workload: the PFIFO scenario when that model is built.
const char* default_workload_name() { return registry::global().find_embedded_workload("pfifo-default") ? "pfifo-default" : "traffic"; }

std::string read_text(const std::string& path) {
  check_input_file(path, "workload file");
  auto text = read_whole_file(path);
  if (!text) throw config_error(path + ": cannot open workload");
  return *text;
}

// The error for a --workload that is neither an embedded workload nor a file of a known kind: what
// it is (no such file, a directory, a file of no known kind), the closest embedded name, and every
// embedded workload and file kind.
std::string unknown_workload(const std::string& w) {
  auto& reg = registry::global();
  std::error_code ec;
  const bool exists = std::filesystem::exists(w, ec), dir = exists && std::filesystem::is_directory(w, ec);
  std::vector<std::string> names{"traffic"};
  for (const auto& e : reg.embedded_workloads()) names.push_back(e.name);
  std::string text = w + (dir      ? ": is a directory; --workload takes a file or an embedded workload's name"
                          : exists ? ": no workload kind recognises this file"
                                   : ": no embedded workload of that name and no such file");
  const std::string near = exists ? "" : closest_name(w, names);
  if (!near.empty()) text += " (did you mean '" + near + "'?)";
  text += "\n  embedded workloads (gpuvp --help describes them):";
  for (const auto& n : names) text += " " + n;
  text += "\n  workload files, by kind:";
  for (const auto& k : reg.workload_kinds()) text += "\n    " + k.name + ": " + k.description;
  return text;
}

// Configuration from every source, in increasing precedence.
workload_choice configure(const common_options& o, bool qtest_mode) {
  auto& cfg = config::global();
  auto& reg = registry::global();
  workload_choice c;
  // The workload first: its kind may name the platform it runs on (an AGX scenario: agx). Without
  // --platform that one is used; another --platform is an error. Only the default platform has a
  // default workload (qtest elaborates the platform of `gpuvp run`, without running its workload).
  const bool default_platform = o.platform.empty() || o.platform == "default";
  c.label = o.workload.empty() && default_platform ? default_workload_name() : o.workload;
  std::string text;
  if (!c.label.empty() && c.label != "traffic") {
    if ((c.embedded = reg.find_embedded_workload(c.label))) {
      c.kind = reg.find_workload_kind(c.embedded->kind);
      if (!c.kind || !c.kind->parse) throw config_error(c.label + ": embedded workload of unknown kind " + c.embedded->kind);
      text = c.embedded->text;
    } else {
      c.path = c.label;
      c.kind = reg.find_workload_kind(c.path);
      std::error_code ec;
      if (!c.kind || std::filesystem::is_directory(c.path, ec)) throw config_error(unknown_workload(c.path));
      check_input_file(c.path, "workload file");
      if (c.kind->overlay_for) text = read_text(c.path);
    }
  }
  const std::string needs = c.kind ? c.kind->platform : std::string();
  c.platform = !o.platform.empty() ? o.platform : !needs.empty() ? needs : "default";
  if (!needs.empty() && c.platform != needs)
    throw config_error(c.label + ": " + c.kind->name + " workloads run on --platform " + needs + ", not --platform " + c.platform +
                       " (leave --platform out to get it)");
  // Another embedded platform replaces default.yaml; it has no default workload.
  if (c.platform == "default") {
    cfg.load_yaml_text(default_platform_yaml(), "default.yaml");
  } else if (const embedded_platform* p = reg.find_platform(c.platform)) {
    cfg.load_yaml_text(p->yaml, c.platform + ".yaml");
  } else {
    std::string known = " default";
    for (const auto& q : reg.platforms()) known += " " + q.name;
    throw config_error("--platform " + c.platform + ": unknown platform (known:" + known + ")");
  }
  if (c.kind) {
    if (!c.kind->platform_yaml.empty()) cfg.load_yaml_text(c.kind->platform_yaml, c.kind->name + " workload platform");
    if (c.kind->overlay_for) cfg.load_yaml_text(c.kind->overlay_for(text), c.label + " (platform settings)");
  }
  for (const auto& f : o.configs) cfg.load_yaml_file(f);
  if (!o.quantum.empty()) cfg.set("platform.quantum", o.quantum, "--quantum");
  if (!o.rtl_trace.empty()) cfg.set("rtl.trace", o.rtl_trace, "--rtl-trace");
  if (!o.time_limit.empty()) cfg.set("platform.time_limit", o.time_limit, "--time-limit");
  for (const auto& s : o.sets) cfg.apply_override(s);
  for (const auto& l : o.logs) logger::global().configure(l);
  return c;
}

// The effective configuration exactly as `gpuvp config dump` prints it (hashed into run metadata).
std::string effective_config_text() {
  return std::string("# gpuvp ") + GPUVP_VERSION + " effective configuration\n" + config::global().dump_yaml(false);
}

// The workload's own top-level statistics objects, if it has any.
std::string workload_json(workload& w) {
  auto* j = dynamic_cast<workload_stats_json*>(&w);
  return j ? j->stats_json() : std::string();
}

// Statistics JSON: the `run` metadata object first, then every statistic by path.
void write_stats_json(const std::string& path, nlohmann::ordered_json run, const std::string& extra) {
  const nlohmann::ordered_json stats = nlohmann::ordered_json::parse(stats_registry::global().to_json());
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j["run"] = std::move(run);
  for (auto it = stats.begin(); it != stats.end(); ++it) j[it.key()] = it.value();
  if (!extra.empty()) {  // the workload's own objects (e.g. a .rd replay's cp_registers)
    const nlohmann::ordered_json w = nlohmann::ordered_json::parse(extra);
    for (auto it = w.begin(); it != w.end(); ++it) j[it.key()] = it.value();
  }
  std::ofstream js(path);
  if (!js) throw config_error(path + ": cannot create statistics file");
  js << j.dump(2) << "\n";
  js.close();
  if (!js) throw config_error(path + ": writing the statistics file failed (disk full or device error)");
}

// The VCD file: SystemC writes it without reporting write errors, so it goes to a temporary file
// first and is copied to its place here, where a failed write or close is an error naming it.
unsigned vcd_files = 0;  // temporary VCD files made by this process (a name each)
void copy_vcd(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  std::ofstream out(to, std::ios::binary | std::ios::trunc);
  if (!out) throw config_error(to + ": cannot create the VCD file (--vcd)");
  out << in.rdbuf();
  out.close();
  if (!in || !out) throw config_error(to + ": writing the VCD file (--vcd) failed (disk full or device error)");
}

// The --vcd file's path: .vcd is appended unless given.
std::string vcd_file(const common_options& o) { return o.vcd.empty() || o.vcd.ends_with(".vcd") ? o.vcd : o.vcd + ".vcd"; }

// The settings a run applied, as given on the command line, for the report's first line.
std::string applied_settings(const common_options& o) {
  std::string s;
  auto add = [&](const std::string& opt, const std::string& v) { s += " " + opt + " " + v; };
  for (const auto& f : o.configs) add("--config", f);
  if (!o.quantum.empty()) add("--quantum", o.quantum);
  if (!o.time_limit.empty()) add("--time-limit", o.time_limit);
  if (!o.wall_limit.empty()) add("--wall-limit", o.wall_limit);
  if (!o.rtl_trace.empty()) add("--rtl-trace", o.rtl_trace);
  for (const auto& v : o.sets) add("--set", v);
  return s;
}

// What a stopped run was still doing: each component's busy() and the host's workload.
std::string still_busy(platform& p) {
  std::string list;
  auto add = [&](const std::string& what) { list += (list.empty() ? "" : ", ") + what; };
  if (p.host_initiator().has_work() && !p.host_initiator().finished())
    add(p.host_initiator().qtest_session() ? "host (qtest session not finished)" : "host (workload not finished)");
  for (const auto& b : p.busy()) add(b);
  return list.empty() ? "no component reports activity" : list;
}

// A number without a unit ("5", "2.5"): a time option then takes its default unit.
bool is_bare_number(const std::string& t) { return !t.empty() && t.find_first_not_of("0123456789._eE+ \t") == std::string::npos; }

// The report's interconnect lines: per target link, its booked transactions on the simulated time
// line (busy, queueing) and the transactions it only carried for the GPU's memory system, whose
// timing is that model's (untimed_ext), so that no figure contradicts the kernels'.
void report_interconnect(platform& p, std::ostream& rep) {
  rep << "  interconnect:\n";
  auto& st = stats_registry::global();
  for (const auto& win : p.interconnect().windows()) {
    const std::string prefix = "interconnect." + win.name + ".";
    const auto tx = uint64_t(st.value(prefix + "transactions"));
    if (tx == 0) continue;
    const auto untimed = uint64_t(st.value(prefix + "untimed"));
    rep << "    " << win.name << ": " << tx << " transactions, " << uint64_t(st.value(prefix + "bytes")) << " bytes";
    if (untimed) rep << " (" << untimed << " of them timed by the GPU's memory system, carried here untimed: not in busy or queueing)";
    rep << ", busy " << std::fixed << std::setprecision(1) << 100.0 * st.value(prefix + "busy") << " %" << std::defaultfloat;
    for (const auto& e : st.list(prefix + "queueing"))
      if (e.h && e.h->count())
        rep << ", queueing mean " << std::fixed << std::setprecision(2) << e.h->mean() / 1000.0 << " ns, max " << e.h->max() / 1000.0
            << " ns" << std::defaultfloat;
    rep << "\n";
  }
}

// Where a key that this platform does not have lives: the embedded platforms and workload kinds
// whose `components:` name its first part. Empty where this platform has that component (then the
// key is a typo inside it, and the edit-distance hint says so).
std::string key_home(const std::string& key, platform& p) {
  const size_t dot = key.find('.');
  if (dot == std::string::npos) return "";
  const std::string comp = key.substr(0, dot);
  if (comp == "platform" || comp == "interconnect" || comp == "components" || p.find(comp)) return "";
  auto& reg = registry::global();
  std::string where, type;
  auto scan = [&](const std::string& what, const std::string& yaml) {
    try {
      const YAML::Node root = YAML::Load(yaml);
      const YAML::Node n = root["components"];
      if (!n || !n.IsMap() || !n[comp] || !n[comp].IsScalar() || n[comp].as<std::string>() == "none") return;
      where += (where.empty() ? "" : ", ") + what;
      if (type.empty()) type = n[comp].as<std::string>();
    } catch (const std::exception&) {  // an embedded text: never malformed; no hint then
    }
  };
  scan("platform default", default_platform_yaml());
  for (const auto& q : reg.platforms()) scan("platform " + q.name + " (--platform " + q.name + ")", q.yaml);
  for (const auto& k : reg.workload_kinds())
    if (!k.platform_yaml.empty()) scan(k.name + " workloads", k.platform_yaml);
  if (type.empty() && reg.component_types().count(comp)) type = comp;
  if (type.empty()) return "";
  return "; " + key + " is a parameter of the " + comp + " component (type " + type +
         "), which this platform does not have: " + (where.empty() ? std::string() : "it is on " + where + ", or ") +
         "add it with `components: {" + comp + ": " + type + "}` (gpuvp config dump --all lists every platform's keys)";
}

// check_unused(), with each unknown key's home added (key_home).
void check_unused_keys(platform& p) {
  try {
    config::global().check_unused();
  } catch (const config_error& e) {
    std::istringstream lines(e.what());
    std::string text;
    for (std::string line; std::getline(lines, line);) {
      const std::string mark = "unknown configuration key '";
      const size_t at = line.find(mark);
      if (at != std::string::npos) {
        const size_t from = at + mark.size(), to = line.find('\'', from);
        if (to != std::string::npos) line += key_home(line.substr(from, to - from), p);
      }
      text += (text.empty() ? "" : "\n") + line;
    }
    throw config_error(text);
  }
}

// An option given an empty value is refused, not taken as "not given"; then the output files are
// checked first: a run must not end with its results unwritable. Returns the exit status of a
// refusal, or -1.
int check_run_options(const tool_args& args, const common_options& o, bool qtest_mode, std::ostream& err) {
  for (const auto& [name, value] : {std::pair<const char*, const std::string&>{"time-limit", o.time_limit},
                                    {"quantum", o.quantum},
                                    {"rtl-trace", o.rtl_trace},
                                    {"workload", o.workload},
                                    {"platform", o.platform},
                                    {"vcd", o.vcd},
                                    {"wall-limit", o.wall_limit}})
    if (args.given(name) && value.empty()) return args.usage_error(std::string("--") + name + ": empty value", err);
  if (args.given("stats")) check_output_file(o.stats, "statistics file (--stats)");
  if (args.given("trace")) check_output_file(o.trace, "trace file (--trace)");
  if (args.given("vcd")) check_output_file(vcd_file(o), "VCD file (--vcd)");
  if (qtest_mode && args.given("script")) check_input_file(o.script, "qtest script (--script)");
  return -1;
}

// The limits known before the platform exists: --wall-limit, with a note on the unit of a bare
// number (and of a bare --time-limit, which configure() applies).
run_limits wall_limits(const tool_args& args, const common_options& o, std::ostream& err) {
  run_limits limits;
  if (args.given("wall-limit")) {
    bool bare = false;
    limits.wall_limit = parse_wall_limit(o.wall_limit, &bare);
    if (bare) err << "note: --wall-limit " << o.wall_limit << " is read as " << o.wall_limit << " s (wall-clock seconds)\n";
  }
  if (is_bare_number(o.time_limit))
    err << "note: --time-limit " << o.time_limit << " is read as " << o.time_limit << " ns (simulated nanoseconds)\n";
  return limits;
}

// Starts the qtest session on --script (kept open in `script`: the session reads it during the
// simulation) or on stdin.
void start_qtest(platform& p, const tool_args& args, const std::string& script_path, std::ifstream& script, std::istream& in,
                 std::ostream& out, std::ostream& err) {
  if (args.given("script")) {
    script.open(script_path);
    if (!script) throw config_error(script_path + ": cannot open qtest script");
    p.host_initiator().run_qtest(script, out, script_path, &err);
  } else {
    p.host_initiator().run_qtest(in, out);
  }
}

// The --vcd file: SystemC writes to a temporary file (it appends .vcd), copied to `path` after the
// run.
struct vcd_capture {
  std::string path;
  sc_core::sc_trace_file* file = nullptr;
  std::string temp;
  explicit vcd_capture(std::string p) : path(std::move(p)) {}
  void open(platform& p) {
    temp = (std::filesystem::temp_directory_path() / ("gpuvp-" + std::to_string(::getpid()) + "-" + std::to_string(++vcd_files) + "-vcd"))
               .string();
    file = sc_core::sc_create_vcd_trace_file(temp.c_str());
    p.trace_signals(file);
  }
  void close(std::vector<std::string>& write_errors) {
    if (!file) return;
    sc_core::sc_close_vcd_trace_file(file);
    try {
      copy_vcd(temp + ".vcd", path);
    } catch (const config_error& e) {
      write_errors.push_back(e.what());
    }
    std::error_code ec;
    std::filesystem::remove(temp + ".vcd", ec);
  }
};

// The limits and the progress line once the platform exists. qtest: the host answers FAIL where
// time would pass the limit, and the session goes on.
void platform_limits(run_limits& limits, platform& p, workload* w, const common_options& o, bool qtest_mode, std::ostream& err) {
  limits.time_limit = qtest_mode ? sc_core::sc_max_time() : p.time_limit.get();
  limits.progress = !(o.quiet || qtest_mode);
  limits.terminal = is_terminal(err);
  limits.describe = [&p, w](double& fraction) {
    if (auto* r = dynamic_cast<progress_reporter*>(w)) {
      const progress_reporter::info i = r->progress(p);
      if (!i.text.empty()) {
        fraction = i.fraction;
        return i.text;
      }
    }
    std::string list;
    for (const auto& b : p.busy()) list += (list.empty() ? "" : ", ") + b;
    return list;
  };
}

// Closes the trace and VCD files; returns the output files that could not be written.
std::vector<std::string> close_outputs(const common_options& o, vcd_capture& vcd) {
  std::vector<std::string> write_errors;
  tracer::global().close();
  if (!o.trace.empty() && trace_write_failed())
    write_errors.push_back(o.trace + ": writing the trace file (--trace) failed (disk full or device error)");
  vcd.close(write_errors);
  return write_errors;
}

// The problem in how the run ended, if any: a stall, a limit or a signal.
void run_end_problem(const run_outcome& outcome, platform& p, const common_options& o, std::vector<std::string>& problems) {
  switch (outcome.end) {
    case run_end::finished:
      // Nothing left to simulate, yet the host never got its answer (a target that never
      // responds): a stalled run, never a silent success.
      if (const std::string why = p.host_initiator().unfinished(); !why.empty())
        problems.push_back("simulation stalled at " + human_time(sc_core::sc_time_stamp()) + ": no model has pending activity, but " + why +
                           "; still busy: " + still_busy(p));
      break;
    case run_end::time_limit:
      problems.push_back("time limit of " + format_time(p.time_limit) +
                         " reached before the workload finished; still busy: " + still_busy(p));
      break;
    case run_end::wall_limit:
      problems.push_back("wall-clock limit of --wall-limit " + o.wall_limit + " reached at simulated " +
                         human_time(sc_core::sc_time_stamp()) + "; still busy: " + still_busy(p));
      break;
    case run_end::signal:
      problems.push_back(std::string("interrupted by ") + signal_name(outcome.signal) + " at simulated " +
                         human_time(sc_core::sc_time_stamp()) + "; still busy: " + still_busy(p));
      break;
  }
}

// The report of `gpuvp run` (not with --quiet): what ran, the times, then each model's report.
void print_run_report(std::ostream& rep, const workload_choice& choice, const common_options& o, platform& p, const run_outcome& outcome) {
  const double wall = outcome.wall_seconds;
  const sc_core::sc_time sim = sc_core::sc_time_stamp();
  const double sim_wall = outcome.sim_seconds();
  rep << "gpuvp run: "
      << (choice.embedded             ? "embedded workload " + choice.label + " (" + choice.embedded->description + ")"
          : choice.label == "traffic" ? std::string("traffic generators (embedded)")
          : choice.label.empty()      ? std::string()
                                      : choice.label)
      << (choice.label.empty() ? "platform " + choice.platform + " without a workload" : " on platform " + choice.platform)
      << applied_settings(o) << "\n"
      << "  simulated time: " << human_time(sim) << " (quantum " << format_time(p.quantum) << ")\n"
      << "  wall time: " << std::fixed << std::setprecision(3) << wall << " s from the program's start (set-up " << outcome.setup_seconds
      << " s, simulation " << sim_wall << " s)\n"
      << "  simulation speed: " << std::setprecision(3) << (wall > 0 ? sim.to_seconds() * 1e6 / wall : 0.0) << " simulated us per wall s ("
      << (sim_wall > 0 ? sim.to_seconds() * 1e6 / sim_wall : 0.0) << " during the simulation alone)\n"
      << std::defaultfloat;
  p.report(rep);
  report_interconnect(p, rep);
}

// What a run found wrong: its problems, the workload's failed checks, the files not written.
struct run_errors {
  std::vector<std::string> problems;
  std::string check_messages;
  int failed = 0;  // expectations
  std::vector<std::string> write_errors;
};

// The --stats file; a failure to write it joins the write errors (and makes a successful run's
// exit status a usage error).
void write_run_stats(const std::string& path, run_errors& e, const run_outcome& outcome, platform& p, const workload_choice& choice,
                     workload* w, int& rc) {
  nlohmann::ordered_json errors = nlohmann::ordered_json::array();
  for (const auto& m : e.problems) errors.push_back(m);
  std::istringstream checks(e.check_messages);
  for (std::string line; std::getline(checks, line);)
    if (!line.empty()) errors.push_back(line);
  if (e.failed) errors.push_back(std::to_string(e.failed) + " expectation(s) failed");
  for (const auto& m : e.write_errors) errors.push_back(m);
  try {
    write_stats_json(path,
                     {{"version", GPUVP_VERSION},
                      {"sim_time_ps", sc_core::sc_time_stamp().value()},
                      {"wall_s", outcome.wall_seconds},
                      {"quantum_ps", p.quantum.get().value()},
                      {"workload", choice.label},
                      {"config_sha256", sha256_hex(effective_config_text())},
                      {"exit_code", rc},
                      {"errors", errors}},
                     w ? workload_json(*w) : std::string());
  } catch (const config_error& ex) {
    e.write_errors.push_back(ex.what());
    if (rc == exit_ok) rc = exit_usage;
  }
}

int cmd_run(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err, bool qtest_mode) {
  common_options o;
  tool_args args(qtest_mode ? "qtest" : "run", "[options]",
                 qtest_mode ? "Serves QEMU's qtest protocol on standard input (or --script FILE) (docs/qtest.md)."
                            : "Runs a workload on the platform (default: the embedded platform and workload).");
  platform_options(args, o, qtest_mode ? command_kind::qtest : command_kind::run);
  if (qtest_mode) args.text("script", o.script, "FILE", "qtest script file instead of stdin");
  if (int rc = args.parse(argc, argv, out, err); rc >= 0) return rc;
  if (int rc = check_run_options(args, o, qtest_mode, err); rc >= 0) return rc;
  run_limits limits = wall_limits(args, o, err);
  const workload_choice choice = configure(o, qtest_mode);
  platform p;
  std::unique_ptr<workload> w = qtest_mode ? nullptr : choice.load();  // qtest drives the platform itself
  check_unused_keys(p);
  if (w) w->validate(p);

  std::ifstream script;
  if (qtest_mode)
    start_qtest(p, args, o.script, script, in, out, err);
  else if (w)
    p.host_initiator().run_workload(w.get());
  if (!o.trace.empty() && !tracer::global().open(o.trace)) throw config_error(o.trace + ": cannot create trace file");
  vcd_capture vcd(vcd_file(o));
  if (!o.vcd.empty()) vcd.open(p);

  platform_limits(limits, p, w.get(), o, qtest_mode, err);
  run_outcome outcome;
  run_errors e;
  try {
    outcome = simulate(limits, err);
  } catch (const sc_core::sc_report& ex) {  // a model stopped the run: still write what was gathered
    e.problems.push_back(std::string("simulation error: ") + ex.what());
  }
  e.write_errors = close_outputs(o, vcd);
  run_end_problem(outcome, p, o, e.problems);
  for (auto& m : p.modelled_errors()) e.problems.push_back(m);
  std::ostringstream check_messages;
  e.failed = w ? w->check(p, check_messages) : 0;
  e.check_messages = check_messages.str();

  if (!o.quiet && !qtest_mode) print_run_report(out, choice, o, p, outcome);
  int rc = exit_ok;
  if (!e.problems.empty() || e.failed) rc = exit_modelled_error;
  if (outcome.end == run_end::signal) rc = 128 + outcome.signal;  // the shell's convention: 130, 143
  if (!e.write_errors.empty() && rc == exit_ok) rc = exit_usage;
  if (!o.stats.empty()) write_run_stats(o.stats, e, outcome, p, choice, w.get(), rc);
  for (const auto& m : e.problems) err << "error: " << m << "\n";
  if (e.failed) err << e.check_messages << "error: " << e.failed << " expectation(s) failed\n";
  for (const auto& m : e.write_errors) err << "error: " << m << "\n";
  return rc;
}

int cmd_config(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err) {
  common_options o;
  bool describe = false;
  tool_args args("config dump", "[options]", "Prints the effective configuration as YAML (docs/configuration.md).");
  platform_options(args, o, command_kind::config_dump);
  args.flag("describe", describe, "add each parameter's description as a comment");
  bool all = false;
  args.flag("all", all, "every embedded platform's configuration, one after the other (no --platform, --workload)");
  if (argc < 2 || std::string(argv[1]) != "dump") {
    const std::string a = argc < 2 ? "" : argv[1];
    if (a == "--help" || a == "-h") {
      out << args.help_text();
      return exit_ok;
    }
    return tool_args("config", "dump [options]").usage_error(a.empty() ? "missing the subcommand" : "unknown subcommand '" + a + "'", err);
  }
  if (int rc = args.parse(argc - 1, argv + 1, out, err); rc >= 0) return rc;
  if (!all) {
    const workload_choice choice = configure(o, false);
    platform p;
    choice.load();
    check_unused_keys(p);
    out << (describe ? std::string("# gpuvp ") + GPUVP_VERSION + " effective configuration\n" + config::global().dump_yaml(true)
                     : effective_config_text());
    return exit_ok;
  }
  if (!o.platform.empty() || !o.workload.empty())
    return args.usage_error("--all lists every platform: leave out --platform and --workload", err);
  // Each platform elaborates in a simulation context of its own (SystemC elaborates once per
  // context), destroyed once its dump is written; the program's own context comes back after.
  std::vector<std::string> names{"default"};
  for (const auto& q : registry::global().platforms()) names.push_back(q.name);
  sc_core::sc_simcontext* const original = sc_core::sc_curr_simcontext;
  for (const auto& name : names) {
    auto context = std::make_unique<sc_core::sc_simcontext>();
    sc_core::sc_curr_simcontext = sc_core::sc_default_global_context = context.get();
    config::global().reset();
    common_options one = o;
    one.platform = name;
    try {
      configure(one, true);
      platform p;
      check_unused_keys(p);
      out << "# platform " << name << "\n" << config::global().dump_yaml(describe) << "\n";
    } catch (const config_error& e) {
      out << "# platform " << name << ": does not elaborate alone: " << e.what() << "\n\n";
    }
    sc_core::sc_curr_simcontext = sc_core::sc_default_global_context = original;
  }
  return exit_ok;
}

// A parameter's "is not a valid time/uint (description)" message, with the forms such a value takes.
// Once: a sweep's check already carries the hint in the messages it quotes.
std::string with_units(std::string m) {
  const auto hint = [&m](const char* problem, const char* forms) {
    if (m.find(problem) != std::string::npos && m.find(forms) == std::string::npos) m += std::string("; ") + forms;
  };
  hint("is not a valid time (", "a time is a number and a unit: fs, ps, ns, us, ms, s (10 ns, 1.5us)");
  hint("is not a valid uint (", "a count or size is decimal, 0x hex or 0b binary, sizes with k/KiB, M/MiB, G/GiB or T/TiB (4KiB, 1 MiB)");
  return m;
}

}  // namespace

int gpuvp_main(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err) {
  set_program_start(std::chrono::steady_clock::now());  // wall time and --wall-limit count from here
  register_all_models();
  logger::global().set_sink(&err);
  sc_core::sc_report_handler::set_handler(&systemc_report);
  const std::string command = argc > 1 ? argv[1] : "run";
  try {
    if (command == "--help" || command == "-h" || command == "help") {
      out << usage_text << "\ntools:\n";
      for (const auto& t : registry::global().tools()) out << "  " << std::left << std::setw(20) << t.name << " " << t.summary << "\n";
      out << "\nplatforms (gpuvp run|qtest|config dump --platform NAME):\n"
          << "  " << std::left << std::setw(20) << "default"
          << " the embedded default.yaml (NV50-style GPU, BAR0, sysram, vram)\n";
      for (const auto& p : registry::global().platforms())
        out << "  " << std::left << std::setw(20) << p.name << " " << p.description << "\n";
      out << "\nworkloads (gpuvp run --workload NAME; default " << default_workload_name() << "):\n"
          << "  " << std::left << std::setw(20) << "traffic"
          << " the traffic generators of default.yaml\n";
      for (const auto& e : registry::global().embedded_workloads())
        out << "  " << std::left << std::setw(20) << e.name << " " << e.description << "\n";
      out << "\nworkload kinds (gpuvp run --workload FILE):\n";
      for (const auto& k : registry::global().workload_kinds())
        out << "  " << std::left << std::setw(20) << k.name << " " << k.description << "\n";
      return exit_ok;
    }
    if (command == "--version") {
      out << "gpuvp " << GPUVP_VERSION << " (SystemC " << sc_core::sc_release() << ")\n";
      return exit_ok;
    }
    if (command == "run") return cmd_run(argc - 1, argv + 1, in, out, err, false);
    if (command == "qtest") return cmd_run(argc - 1, argv + 1, in, out, err, true);
    if (command == "config") return cmd_config(argc - 1, argv + 1, in, out, err);
    if (const tool* t = registry::global().find_tool(command)) return t->main(argc - 1, argv + 1);
    if (command.rfind("--", 0) == 0) return cmd_run(argc, argv, in, out, err, false);  // "gpuvp --set ..." = run
    err << "gpuvp: unknown command '" << command << "'\n" << usage_text;
    return exit_usage;
  } catch (const config_error& e) {
    err << "gpuvp: configuration error: " << with_units(e.what()) << "\n";
    return exit_usage;
  } catch (const sc_core::sc_report& e) {
    err << "gpuvp: simulation error: " << e.what() << "\n";
    return exit_modelled_error;
  } catch (const std::bad_alloc&) {
    err << "gpuvp: error: out of memory: a size or count in the configuration or the input is too large for this machine\n";
    return exit_usage;
  } catch (const std::exception& e) {
    err << "gpuvp: error: " << e.what() << "\n";
    return exit_usage;
  }
}

}  // namespace gpuvp
