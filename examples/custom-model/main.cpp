// SPDX-License-Identifier: Apache-2.0
// my-gpuvp: the gpuvp command line (run, qtest, config dump, every model's tools) with the
// sum_engine component type added.
#include "gpuvp/main.h"
#include "sum_engine.h"

int sc_main(int argc, char** argv) {
  register_sum_engine();
  return gpuvp::main(argc, argv);
}
