// SPDX-License-Identifier: Apache-2.0
// Built without the RTL parts (GPUVP_RTL off): no RTL copy engine.
#include "copy_rtl.h"

namespace gpuvp::copy_engine {

std::unique_ptr<copy_rtl> make_copy_rtl(const char*, const sc_core::sc_time&, uint64_t, bool) { return nullptr; }

}  // namespace gpuvp::copy_engine
