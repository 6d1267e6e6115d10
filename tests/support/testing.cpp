// SPDX-License-Identifier: Apache-2.0
#include "testing.h"
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include "gpuvp/config.h"
#include "gpuvp/registry.h"
#include "gpuvp/stats.h"
#include "gpuvp/trace.h"

namespace gpuvp::testing {

#ifdef GPUVP_SANITIZED
extern "C" void __asan_handle_no_return();
#endif

void fresh_simulation() {
#ifdef GPUVP_SANITIZED
  // A simulation switches stacks (QuickThreads) without telling ASan, which can leave stale
  // poison on this stack; a test that runs several simulations in one process starts clean.
  __asan_handle_no_return();
#endif
  // SystemC 2.3 keeps its kernel in sc_curr_simcontext; a new one starts a new elaboration.
  // The old one is leaked on purpose: its modules may still be referenced by test objects.
  sc_core::sc_curr_simcontext = new sc_core::sc_simcontext();
  sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
  config::global().reset();
  logger::global().reset();
  register_all_models();
}

static std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}
std::string source_path(const std::string& relative) { return env_or("GPUVP_SOURCE_DIR", GPUVP_SOURCE_DIR_DEFAULT) + "/" + relative; }
std::string binary_path(const std::string& relative) { return env_or("GPUVP_BINARY_DIR", GPUVP_BINARY_DIR_DEFAULT) + "/" + relative; }
static std::string real_dir() {
  return env_or("GPUVP_REAL_DIR", (env_or("GPUVP_SOURCE_DIR", GPUVP_SOURCE_DIR_DEFAULT) + "/../shared/real").c_str());
}
std::string real_data_path(const std::string& relative) {
  const std::string path = real_dir() + "/" + relative;
  return std::filesystem::exists(path) ? path : std::string();
}
std::string real_data_missing(const std::string& relative) {
  return "real input " + relative + " not found in " + real_dir() +
         " (public captures and traces kept beside the checkout; set GPUVP_REAL_DIR to their folder)";
}

command_result run_command(const std::string& cmd) {
  command_result r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

}  // namespace gpuvp::testing

// Keep the kernel's banner out of test output (it prints when the first context starts).
static const bool quiet_banner = [] { return setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0; }();

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

#ifdef GPUVP_SANITIZED
#include "gpuvp_lsan_suppressions.h"  // tools/lsan.supp, built in
#endif
