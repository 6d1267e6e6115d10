// SPDX-License-Identifier: Apache-2.0
// The sequence of GNU libc's srand(seed) / rand() (random_r's default TYPE_3 generator: an
// additive lagged Fibonacci generator of 31 words), as a small object: no process-wide state, so
// a model that needs GPGPU-Sim's rand() numbers (-gpgpu_memory_partition_indexing 4) gets the same
// ones on any host thread and whatever else the process calls rand() for.
//
// The state: r[0] = seed (1 for seed 0), r[i] = 16807 r[i-1] mod (2^31 - 1) for i = 1..30 (as
// 32-bit signed arithmetic computes it, Schrage's method), then r[i] = r[i-31] + r[i-3] modulo
// 2^32; the first 310 of those are discarded and each output is the next one shifted right by one
// bit (31 bits, 0..RAND_MAX = 2^31 - 1).
#pragma once
#include <array>
#include <cstdint>

namespace gpuvp::gpu_memory {

class glibc_rand {
 public:
  static constexpr uint32_t max = 0x7fffffff;  // RAND_MAX
  explicit glibc_rand(uint32_t seed = 1) { reseed(seed); }
  void reseed(uint32_t seed) {
    if (seed == 0) seed = 1;
    int32_t word = int32_t(seed);  // (the seed's bits as a signed 32-bit word)
    r_[0] = uint32_t(word);
    for (unsigned i = 1; i < deg; ++i) {
      // 16807 * word mod (2^31 - 1) without overflowing 31 bits (Schrage).
      const int64_t hi = word / 127773, lo = word % 127773;
      int64_t w = 16807 * lo - 2836 * hi;
      if (w < 0) w += 2147483647;
      word = int32_t(w);
      r_[i] = uint32_t(word);
    }
    front_ = sep;
    rear_ = 0;
    for (unsigned i = 0; i < 10 * deg; ++i) (void)next();
  }
  // The next rand() value.
  uint32_t next() {
    const uint32_t v = r_[front_] += r_[rear_];
    front_ = front_ + 1 == deg ? 0 : front_ + 1;
    rear_ = rear_ + 1 == deg ? 0 : rear_ + 1;
    return v >> 1;
  }

 private:
  static constexpr unsigned deg = 31, sep = 3;  // TYPE_3: degree 31, separation 3
  std::array<uint32_t, deg> r_{};
  unsigned front_ = sep, rear_ = 0;
};

}  // namespace gpuvp::gpu_memory
