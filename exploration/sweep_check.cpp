// SPDX-License-Identifier: Apache-2.0
#include "sweep_check.h"

#include <algorithm>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <systemc>
#include "cli.h"
#include "gpuvp/config.h"
#include "gpuvp/trace.h"

namespace gpuvp::sweep {

namespace {

struct check {
  std::string what;                 // "the first point", "interconnect.width=0"
  std::vector<std::string> values;  // one per parameter
};

// The first point and, for every parameter, the first point with that parameter at each of its
// other values (as the points use them).
std::vector<check> checks_of(const spec& s) {
  std::vector<check> checks = {{"the first point", s.points[0]}};
  for (size_t k = 0; k < s.parameters.size(); ++k) {
    std::set<std::string> seen = {s.points[0][k]};
    for (const auto& pt : s.points)
      if (seen.insert(pt[k]).second) {
        checks.push_back({s.parameters[k].key + "=" + pt[k], s.points[0]});
        checks.back().values[k] = pt[k];
      }
  }
  return checks;
}

// `gpuvp config dump ARGS` run here rather than as a process (a process costs a program start,
// as much as a short point): the same code, in a simulation context of its own (SystemC
// elaborates once per context), as `config dump --all` does for each platform. Returns its exit
// code; `messages` gets what it printed (standard output and error, as a process's log would).
int dump_here(const std::vector<std::string>& args, std::string& messages) {
  std::vector<std::string> words = {"gpuvp", "config", "dump"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  std::istringstream in;
  std::ostringstream log;
  sc_core::sc_simcontext* const original = sc_core::sc_curr_simcontext;
  auto context = std::make_unique<sc_core::sc_simcontext>();
  sc_core::sc_curr_simcontext = sc_core::sc_default_global_context = context.get();
  config::global().reset();
  const int rc = gpuvp_main(int(words.size()), argv.data(), in, log, log);
  // The driver's own state as gpuvp_main left it before the check.
  config::global().reset();
  logger::global().reset();
  logger::global().set_sink(&std::cerr);
  sc_core::sc_curr_simcontext = sc_core::sc_default_global_context = original;
  messages = log.str();
  return rc;
}

// "\n    line" for each line of msg.
std::string indented(const std::string& msg) {
  std::string out;
  for (size_t at = 0; at < msg.size();) {
    const size_t nl = std::min(msg.find('\n', at), msg.size());
    out += "\n    " + msg.substr(at, nl - at);
    at = nl + 1;
  }
  return out;
}

}  // namespace

void check_configurations(const spec& s) {
  if (s.points.empty()) return;
  // Each distinct message once: a bad first value fails every check that keeps it.
  std::vector<std::string> messages;
  std::string report;
  for (const check& c : checks_of(s)) {
    std::string msg;
    const int rc = dump_here(config_args(s, c.values), msg);
    if (rc == 0) continue;
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    if (msg.empty()) msg = "gpuvp config dump exited with " + std::to_string(rc);
    if (std::find(messages.begin(), messages.end(), msg) != messages.end()) continue;
    messages.push_back(msg);
    report += "\n  " + c.what + ":" + indented(msg);
  }
  const size_t bad = messages.size();
  if (bad)
    throw config_error(s.file + ": " + std::to_string(bad) + " configuration" + (bad > 1 ? "s" : "") +
                       " of the sweep cannot run (nothing was run; checked the first point and every other value of each "
                       "parameter):" +
                       report);
}

}  // namespace gpuvp::sweep
