// SPDX-License-Identifier: Apache-2.0
#include "gpuvp/main.h"

#include <cstdlib>
#include <iostream>
#include "cli.h"

namespace gpuvp {

int main(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err) {
  // The kernel prints its banner when the first simulation context starts; keep stdout for results.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return gpuvp_main(argc, argv, in, out, err);
}

int main(int argc, char** argv) { return main(argc, argv, std::cin, std::cout, std::cerr); }

}  // namespace gpuvp
