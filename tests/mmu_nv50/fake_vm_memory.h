// SPDX-License-Identifier: Apache-2.0
// A word-addressed fake memory per target for the pure translation core's tests.
#pragma once
#include <cstdint>
#include <cstring>
#include <map>
#include <utility>
#include "nv50_vm.h"

namespace gpuvp::mmu_nv50::testing {

struct fake_memory {
  std::map<std::pair<int, uint64_t>, uint32_t> words;
  std::pair<uint64_t, uint64_t> error_range{1, 0};  // [first, last]: reads fail (none by default)
  unsigned reads = 0;

  void w32(target t, uint64_t a, uint32_t v) { words[{int(t), a}] = v; }
  void w64(target t, uint64_t a, uint64_t v) {
    w32(t, a, uint32_t(v));
    w32(t, a + 4, uint32_t(v >> 32));
  }
  void dmaobj(target t, uint64_t a, uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3, uint32_t w4, uint32_t w5) {
    const uint32_t w[6] = {w0, w1, w2, w3, w4, w5};
    for (int i = 0; i < 6; ++i) w32(t, a + 4 * i, w[i]);
  }
  read_fn fn() {
    return [this](target t, uint64_t a, void* data, unsigned len) {
      ++reads;
      if (a <= error_range.second && a + len > error_range.first) return false;
      auto* out = static_cast<uint8_t*>(data);
      for (unsigned i = 0; i < len; i += 4) {
        auto it = words.find({int(t), a + i});
        const uint32_t v = it == words.end() ? 0 : it->second;
        std::memcpy(out + i, &v, 4);
      }
      return true;
    };
  }
};

}  // namespace gpuvp::mmu_nv50::testing
