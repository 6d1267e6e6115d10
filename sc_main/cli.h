// SPDX-License-Identifier: Apache-2.0
// The gpuvp command line, callable from tests: gpuvp_main(argc, argv, out, err) returns the exit
// code (0 success, 1 modelled error, 2 usage/configuration/input error).
#pragma once
#include <iosfwd>

namespace gpuvp {
enum exit_code { exit_ok = 0, exit_modelled_error = 1, exit_usage = 2 };
int gpuvp_main(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err);
}  // namespace gpuvp
