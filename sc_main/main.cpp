// SPDX-License-Identifier: Apache-2.0
#include <cstdlib>
#include <iostream>
#include <systemc>
#include "cli.h"
#include "sweep.h"

// The kernel prints its banner when the first simulation context starts; keep stdout for results.
static const bool quiet_banner = [] { return setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0; }();

int sc_main(int argc, char** argv) {
  gpuvp::register_sweep_commands();  // exploration/: the program's own tools, not gpuvp::main()'s
  return gpuvp::gpuvp_main(argc, argv, std::cin, std::cout, std::cerr);
}

#ifdef GPUVP_SANITIZED
#include "gpuvp_lsan_suppressions.h"  // tools/lsan.supp, built in (docs/testing.md)
#endif
