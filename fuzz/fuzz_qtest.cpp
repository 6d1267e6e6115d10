// SPDX-License-Identifier: Apache-2.0
// qtest lines (docs/qtest.md) on the default platform without traffic generators. Each input is
// a session: a fresh SystemC kernel and platform, every line answered by the host exactly as
// `gpuvp qtest` does. Every answer must be one line starting with OK or FAIL.
// To stay within the fuzzer's per-input time, `clock_step`/`clock_set` beyond 1 ms of simulated
// time are skipped (the time limit is the CLI's business, tested there), and so is irq_intercept
// (it prints to stdout).
#include <memory>
#include <sstream>
#include <systemc>
#include "fuzz_common.h"
#include "gpuvp/config.h"
#include "gpuvp/host.h"
#include "gpuvp/platform.h"
#include "gpuvp/registry.h"
#include "gpuvp/stats.h"
#include "gpuvp/trace.h"

using namespace gpuvp;

namespace {
constexpr uint64_t max_step_ns = 1000000;
constexpr size_t serve_stack_bytes = 1 << 20;  // set explicitly: forget_dead_frames needs the bound

// A qtest line that FAILs has thrown and caught an exception on the session's coroutine stack.
// ASan cannot clear the unwound frames' poison there (QuickThreads switched stacks without telling
// it: "ignoring requested __asan_handle_no_return"), so the next line's frames would meet stale
// redzones, a false stack-buffer-overflow. Everything below this call's frame is dead: clear it.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GPUVP_FUZZ_ASAN 1
#endif
#endif
#ifdef GPUVP_FUZZ_ASAN
extern "C" void __asan_unpoison_memory_region(const volatile void* addr, size_t size);
__attribute__((noinline)) void forget_dead_frames(const char* stack_top) {
  const char* here = static_cast<const char*>(__builtin_frame_address(0));
  const char* bottom = stack_top - serve_stack_bytes + 4096;  // the session's frame sits near the top
  if (here > bottom) __asan_unpoison_memory_region(bottom, size_t(here - bottom) - 64);
}
#else
void forget_dead_frames(const char*) {}
#endif

struct session : sc_core::sc_module {
  host& h;
  std::vector<std::string> lines;
  size_t answered = 0;
  SC_HAS_PROCESS(session);
  session(sc_core::sc_module_name n, host& hh, std::vector<std::string> l) : sc_module(n), h(hh), lines(std::move(l)) {
    SC_THREAD(serve);
    set_stack_size(serve_stack_bytes);
  }
  void serve() {
    const char* stack_top = static_cast<const char*>(__builtin_frame_address(0));
    for (const auto& line : lines) {
      const std::string reply = h.qtest_line(line);
      forget_dead_frames(stack_top);
      if (reply.compare(0, 2, "OK") != 0 && reply.compare(0, 4, "FAIL") != 0)
        fuzz::finding("answer is neither OK nor FAIL", line + " -> " + reply);
      if (reply.find('\n') != std::string::npos) fuzz::finding("answer spans lines", line + " -> " + reply);
      ++answered;
      if (h.quit_requested()) break;
    }
    answered = lines.size();
    sc_core::sc_stop();
  }
};

bool keep(const std::string& line, uint64_t& budget_ns) {
  std::istringstream is(line);
  std::string cmd, arg;
  is >> cmd >> arg;
  if (cmd == "irq_intercept") return false;
  if (cmd != "clock_step" && cmd != "clock_set") return true;
  uint64_t ns = 1;
  try {
    if (!arg.empty()) ns = parse_u64(arg);
  } catch (const std::exception&) {
    return true;  // the host answers FAIL
  }
  if (ns > budget_ns) return false;
  budget_ns -= ns;
  return true;
}
}  // namespace

// No leak checking in this harness: SystemC runs processes on QuickThreads coroutine stacks, and
// after a switch LeakSanitizer no longer scans the main stack, so it reports libFuzzer's own live
// data as leaked. (Memory growth is still caught by -rss_limit_mb.)
extern "C" const char* __lsan_default_options() { return "detect_leaks=0"; }
extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DO_NOTHING);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> lines;
  uint64_t budget_ns = max_step_ns;
  std::istringstream in(fuzz::as_text(data, size));
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#' && keep(line, budget_ns)) lines.push_back(line);

  // A fresh kernel per input (as tests/support/testing.cpp does), deleted afterwards.
  auto* ctx = new sc_core::sc_simcontext();
  sc_core::sc_curr_simcontext = ctx;
  sc_core::sc_default_global_context = ctx;
  config::global().reset();
  logger::global().reset();
  register_all_models();
  config::global().load_yaml_text(default_platform_yaml(), "default.yaml");
  config::global().set("components.traffic", "none", "fuzz");
  {
    auto p = std::make_unique<platform>();
    session s("fuzz_session", p->host_initiator(), std::move(lines));
    sc_core::sc_start();
    if (s.answered != s.lines.size()) fuzz::finding("session stalled", std::to_string(s.answered) + " lines answered");
  }
  sc_core::sc_curr_simcontext = nullptr;
  sc_core::sc_default_global_context = nullptr;
  delete ctx;
  return 0;
}
