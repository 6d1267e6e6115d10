// SPDX-License-Identifier: Apache-2.0
// gpuvp::field<lsb, width>: a named bit field of a register value. Plain C++ (no SystemC), so the
// format cores (register layouts, decoders) use it too; regbank.h includes it.
#pragma once
#include <cstdint>

namespace gpuvp {

// A named bit field of a register, as VCML's fields: bits [Lsb, Lsb + Width). Declare the fields
// next to their register (`using chan_ctrl_enable = field<0, 1>;`) and read or insert with them
// instead of inline shifts and masks.
template <unsigned Lsb, unsigned Width>
struct field {
  static_assert(Width >= 1 && Lsb + Width <= 64, "a field lies within 64 bits");
  static constexpr unsigned lsb = Lsb, width = Width;
  static constexpr uint64_t mask = (Width == 64 ? ~uint64_t(0) : (uint64_t(1) << Width) - 1) << Lsb;
  static constexpr uint64_t get(uint64_t reg_value) { return (reg_value & mask) >> Lsb; }
  static constexpr uint64_t put(uint64_t field_value) { return (field_value << Lsb) & mask; }
  static constexpr uint64_t set(uint64_t reg_value, uint64_t field_value) { return (reg_value & ~mask) | put(field_value); }
};

}  // namespace gpuvp
