// SPDX-License-Identifier: Apache-2.0
#include "uat_format.h"

namespace gpuvp::uat {

namespace {
constexpr uint8_t R = right_r, W = right_w, X = right_x, RW = R | W, RX = R | X;
// [OS][AP][(UXN << 1) | PXN], uat.py PTE.access_gpu / access_fw.
constexpr uint8_t gpu_table[2][4][4] = {
    {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}},    // OS = 0: never the GPU's
    {{0, R, W, RW}, {0, 0, 0, R}, {R, W, RW, 0}, {0, 0, 0, 0}},  // OS = 1
};
constexpr uint8_t el1_table[2][4][4] = {
    {{0, 0, 0, 0}, {0, RW, 0, RW}, {0, RX, 0, 0}, {RX, R, 0, R}},  // OS = 0: firmware pages
    {{0, R, W, RW}, {R, 0, RW, RW}, {0, 0, 0, 0}, {0, 0, 0, 0}},   // OS = 1; AP0 col 2 is m1n1's "-?"
};
constexpr uint8_t gl1_table[2][4][4] = {
    {{0, 0, 0, RW}, {0, 0, 0, RW}, {RX, 0, 0, R}, {RX, RW, 0, R}},  // OS = 0: the uPPL's guarded level
    {{0, R, W, RW}, {R, 0, RW, RW}, {0, 0, 0, 0}, {0, 0, 0, 0}},    // OS = 1: as EL1
};
}  // namespace

const char* view_name(view v) {
  switch (v) {
    case view::gpu:
      return "gpu";
    case view::fw:
      return "fw";
    case view::ppl:
      return "ppl";
  }
  return "?";
}

std::optional<view> parse_view(std::string_view name) {
  if (name == "gpu") return view::gpu;
  if (name == "fw") return view::fw;
  if (name == "ppl") return view::ppl;
  return std::nullopt;
}

const char* fault_name(fault f) {
  switch (f) {
    case fault::invalid:
      return "invalid";
    case fault::access_flag:
      return "access_flag";
    case fault::write_only:
      return "write_only";
    case fault::read_only:
      return "read_only";
    case fault::no_access:
      return "no_access";
    case fault::none:
      return "none";
  }
  return "?";
}

uint8_t rights(view v, uint64_t pte) {
  const unsigned os = pte_fields::os(pte), ap = pte_fields::ap(pte);
  const unsigned col = unsigned(pte_fields::uxn(pte)) << 1 | unsigned(pte_fields::pxn(pte));
  switch (v) {
    case view::gpu:
      return gpu_table[os][ap][col];
    case view::fw:
      return el1_table[os][ap][col];
    case view::ppl:
      return gl1_table[os][ap][col];
  }
  return 0;
}

const char* tlbi_name(tlbi_op op) {
  switch (op) {
    case tlbi_op::vmalle1os:
      return "vmalle1os";
    case tlbi_op::aside1os:
      return "aside1os";
    case tlbi_op::vae1os:
      return "vae1os";
    case tlbi_op::rvae1os:
      return "rvae1os";
  }
  return "?";
}

std::optional<tlbi_op> parse_tlbi_op(std::string_view name) {
  for (auto op : {tlbi_op::vmalle1os, tlbi_op::aside1os, tlbi_op::vae1os, tlbi_op::rvae1os})
    if (name == tlbi_name(op)) return op;
  return std::nullopt;
}

tlbi_scope decode_tlbi(tlbi_op op, uint64_t operand) {
  tlbi_scope s;
  s.asid = uint16_t(tlbi_operand::asid::get(operand));
  switch (op) {
    case tlbi_op::vmalle1os:
      s.all = true;
      break;
    case tlbi_op::aside1os:
      s.by_asid = true;
      break;
    case tlbi_op::vae1os:  // VA[55:12] in bits 43:0: the UAT page is VA[39:14]
      s.first = (tlbi_operand::va_page::get(operand) >> 2) & vpn_mask;
      s.pages = 1;
      break;
    case tlbi_op::rvae1os: {  // TG 47:46, SCALE 45:44, NUM 43:39, TTL 38:37, BaseADDR 36:0
      const unsigned tg = unsigned(tlbi_operand::tg::get(operand)), scale = unsigned(tlbi_operand::scale::get(operand));
      const uint64_t num = tlbi_operand::num::get(operand), base = tlbi_operand::base::get(operand);
      if (tg == 0) break;  // reserved granule: covers nothing
      const unsigned unit = tg == 1 ? 12 : tg == 2 ? 14 : 16;
      const uint64_t units = (num + 1) << (5 * scale + 1);
      const uint64_t start = base << unit, end = start + (units << unit);  // byte range in VA
      s.first = (start >> page_shift) & vpn_mask;
      s.pages = ((end + page_size - 1) >> page_shift) - (start >> page_shift);
      break;
    }
  }
  return s;
}

}  // namespace gpuvp::uat
