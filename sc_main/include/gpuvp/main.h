// SPDX-License-Identifier: Apache-2.0
// The gpuvp command line as a library entry point. A program that adds its own component types,
// tools or workload kinds registers them with gpuvp::registry::global() and then hands over:
//
//   int sc_main(int argc, char** argv) {
//     gpuvp::registry::global().add_component_type("my_dev", "my device", gpuvp::make_component<my_dev>);
//     return gpuvp::main(argc, argv);   // run, qtest, config dump, every model's tools
//   }
//
// Link gpuvp::cli (CMake package gpuvp), which brings every model shipped with gpuvp.
#pragma once
#include <iosfwd>

namespace gpuvp {

// Runs `gpuvp <argv[1]> ...` exactly as the gpuvp program does, with every shipped model
// registered, and returns its exit code (0 ok, 1 modelled error, 2 usage or configuration error).
// SystemC allows one elaboration per process: call it once.
int main(int argc, char** argv);
// The same with explicit streams (standard input for qtest, report and diagnostics).
int main(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace gpuvp
