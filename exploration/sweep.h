// SPDX-License-Identifier: Apache-2.0
// `gpuvp sweep` (design-space exploration) and `gpuvp plot`: registered as gpuvp tools.
#pragma once

namespace gpuvp {
void register_sweep_commands();
}  // namespace gpuvp
