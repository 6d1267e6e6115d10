// SPDX-License-Identifier: Apache-2.0
// SASS opcode -> execution unit maps for Kepler, Pascal, Volta, Turing, Ampere and Hopper (after
// Accel-Sim's gpu-simulator/ISA_Def/*_opcode.h, facts only). The base opcode (text before the first '.')
// selects the class; memory opcodes also give the address space and direction.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "fu.h"

namespace gpuvp::sm {

enum class sass_arch { kepler, pascal, volta, turing, ampere, hopper };
constexpr unsigned sass_arch_count = 6;

struct opcode_info {
  op_class cls = op_class::nop;
  mem_space space = mem_space::none;
  bool store = false;
};

// Architecture from the trace header's `-binary version` as Accel-Sim's trace_kernel_info_t picks
// the map (35 Kepler, 60/61 Pascal, 70 Volta, 75 Turing, 80/86 Ampere), and beyond Accel-Sim's
// list 72 (Volta map), 87/89 (Ampere map) and 90 (Hopper); nullopt for any other value.
std::optional<sass_arch> arch_from_binary_version(unsigned version);
const char* arch_name(sass_arch a);
// The versions arch_from_binary_version knows, for messages: "35, 60, 61, 70, ...".
const char* supported_binary_versions();
// Class of `opcode` (full text, e.g. "HMMA.884.F32.F32.STEP0"); nullopt if not in the map.
std::optional<opcode_info> classify_opcode(sass_arch arch, std::string_view opcode);

}  // namespace gpuvp::sm
