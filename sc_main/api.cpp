// SPDX-License-Identifier: Apache-2.0
#include "gpuvp/main.h"

#include <cstdlib>
#include <iostream>
#include "cli.h"

// The kernel prints its banner when the first simulation context starts, which a model's static
// sc_time may do before main() runs: silence it before any other static initialiser (priority
// 101 runs first) in every program built on gpuvp::main(), as gpuvp's own main.cpp does.
__attribute__((constructor(101))) static void gpuvp_quiet_banner() { setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0); }

namespace gpuvp {

int main(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err) {
  // The kernel prints its banner when the first simulation context starts; keep stdout for results.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return gpuvp_main(argc, argv, in, out, err);
}

int main(int argc, char** argv) { return main(argc, argv, std::cin, std::cout, std::cerr); }

}  // namespace gpuvp
