// SPDX-License-Identifier: Apache-2.0
// The configuration check before a sweep runs anything (docs/formats/sweep.md "Checks before
// anything runs"): `gpuvp config dump` of the first point and of every other value of each
// parameter, in the driver's own process.
#pragma once
#include "sweep_spec.h"

namespace gpuvp::sweep {

// Throws config_error naming every value whose configuration fails, with the configuration's
// own message; returns when all of them elaborate.
void check_configurations(const spec& s);

}  // namespace gpuvp::sweep
