// SPDX-License-Identifier: Apache-2.0
// The `agx` embedded platform built in a test, with test initiators on the UAT's view sockets and
// helpers that write page tables into DRAM the way the AP's stores would land there.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>
#include "agx.h"
#include "gpuvp/config.h"
#include "gpuvp/memory.h"
#include "gpuvp/platform.h"
#include "gpuvp/registry.h"
#include "testing.h"

namespace agx_test {

using namespace gpuvp;
using uat::access_type;
using uat::fault;
using uat::view;

constexpr uint64_t dram_base = 0x800000000ull;
constexpr uint64_t ttbat = 0x9fff74000ull;  // agx.uat.ttbat default

// Tables used by the tests (all in DRAM). Indices worked out from the reference's walk:
// VA 0x15_00d5_0000: L1 index VA[38:36] = 1, L2 index VA[35:25] = 0x280, L3 index VA[24:14] = 0x354
// (the seed's "#0x354"); VA 0xffffffa0_0c42_8000: VA[39] = 1 (TTB1), L1 2, L2 6, L3 0x10a ("#0x10a").
constexpr uint64_t user_l1 = 0x800100000ull, user_l2 = 0x800104000ull, user_l3 = 0x800108000ull;
constexpr uint64_t kern_l1 = 0x800200000ull, kern_l2 = 0x800204000ull, kern_l3 = 0x800208000ull;
constexpr uint64_t user_va = 0x1500d50000ull, kern_va = 0xffffffa00c428000ull;
constexpr uint64_t seed_pte_user = 0x00E0000961DF4C0Bull;     // GPU=RW, EL1=RW, GL1=RW, perm=10011
constexpr uint64_t seed_pte_kernel = 0x00C00009109BC44Bull;   // GPU=--, EL1=RW, GL1=RW, perm=10110
constexpr uint64_t seed_pte_kernel2 = 0x00C000090FD8044Bull;  // the next page of the seed's dance

struct agx_fixture : gpuvp::testing::sim_test {
  std::unique_ptr<platform> p;
  agx::agx_soc* agx = nullptr;
  sparse_memory* dram = nullptr;
  std::unique_ptr<gpuvp::testing::test_initiator> gpu, fw;

  void build(const std::vector<std::pair<std::string, std::string>>& sets = {}) {
    register_all_models();
    config::global().load_yaml_text(registry::global().find_platform("agx")->yaml, "agx.yaml");
    for (const auto& [k, v] : sets) config::global().set(k, v, "test");
    p = std::make_unique<platform>();
    agx = p->find_as<agx::agx_soc>("agx");
    dram = dynamic_cast<sparse_memory*>(p->find("dram"));
    gpu = std::make_unique<gpuvp::testing::test_initiator>("gpu_ini");
    fw = std::make_unique<gpuvp::testing::test_initiator>("fw_ini");
    gpu->out.bind(agx->uat.gpu);
    fw->out.bind(agx->uat.fw);
    config::global().check_unused();
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
  void store64(uint64_t addr, uint64_t v) { dram->load(addr - dram_base, &v, 8); }
  uint64_t load64(uint64_t addr) const {
    uint64_t v;
    dram->peek(addr - dram_base, &v, 8);
    return v;
  }
  void set_ttb(unsigned slot, unsigned half, uint64_t v) { store64(ttbat + slot * 16 + half * 8, v); }
  // Slot 1 (ASID 1) maps user_va with `pte`; slot 0 (ASID 0) maps kern_va and the next page.
  void map_user(uint64_t pte, unsigned slot = 1, uint64_t asid = 1) {
    set_ttb(slot, 0, asid << 48 | user_l1 | 1);
    store64(user_l1 + 1 * 8, user_l2 | 3);
    store64(user_l2 + 0x280 * 8, user_l3 | 3);
    store64(user_l3 + 0x354 * 8, pte);
  }
  void map_kernel(uint64_t pte, uint64_t pte2 = seed_pte_kernel2) {
    set_ttb(0, 1, kern_l1 | 1);
    store64(kern_l1 + 2 * 8, kern_l2 | 3);
    store64(kern_l2 + 6 * 8, kern_l3 | 3);
    store64(kern_l3 + 0x10a * 8, pte);
    store64(kern_l3 + 0x10b * 8, pte2);
  }
  uat::uat_mmu::translation tr(view v, unsigned slot, uint64_t va, access_type a = access_type::read) {
    sc_core::sc_time d;
    return agx->uat.translate(v, slot, va, a, d);
  }
  uat::uat_mmu::translation walk(view v, unsigned slot, uint64_t va, access_type a = access_type::read) {
    return agx->uat.translate_debug(v, slot, va, a);
  }
};

}  // namespace agx_test
