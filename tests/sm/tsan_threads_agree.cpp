// SPDX-License-Identifier: Apache-2.0
// The SM model's host threads under ThreadSanitizer (tools/tsan.sh; target sm_threads_tsan,
// built only with -DGPUVP_TSAN_CHECK=ON). Bandwidth kernels on 1, 2 and 3 threads: TSan reports
// any data race between the SMs' chunks and the memory's run-ahead (mem_port::run_ahead), and the
// printed statistics must be identical. One kernel is launched twice (the L2 and the DRAM rows
// persist between kernels); one runs on TITAN X, whose SMs report every address decode for its
// random sub-partitions (mem_port::decoded). Exit status 0: identical and no report (TSan exits 66
// on one).
#include <cstdio>
#include <sstream>
#include <string>
#include <thread>

#include "core/gpu.h"
#include "core/memsys.h"
#include "kernel_builder.h"

using namespace gpuvp::sm;
using namespace gpuvp::gpu_memory;

namespace {
struct outcome {
  std::string stats;
  unsigned threads_used = 0;
  uint64_t ahead = 0;
};

outcome run(const char* gpu, unsigned ctas, unsigned sms, unsigned launches, unsigned threads) {
  const gpu_config c = testing::shipped(gpu);
  const kernel_trace k = parse_kernel_trace_text(testing::bandwidth_kernel_text(ctas, 70), "bandwidth");
  auto m = make_memory(c, "gpgpu-sim");
  gpu_sim g(c, m.get(), sms);
  g.threads = threads;
  outcome o;
  std::ostringstream os;
  for (unsigned i = 0; i < launches; ++i) {
    print_kernel(os, g.run(k));
    o.ahead += g.memory_ahead_cycles();
  }
  o.stats = os.str();
  o.threads_used = g.threads_used();
  return o;
}
}  // namespace

int main() {
  if (std::thread::hardware_concurrency() < 2) {
    std::printf("sm_threads_tsan: one hardware thread: nothing runs concurrently, skipped\n");
    return 0;
  }
  int status = 0;
  struct shape {
    const char* gpu;
    unsigned ctas, sms, launches;
  };
  for (const shape s : {shape{"QV100", 64, 16, 2}, shape{"QV100", 120, 30, 1}, shape{"TITANX", 56, 28, 2}}) {
    const outcome one = run(s.gpu, s.ctas, s.sms, s.launches, 1);
    for (unsigned threads : {2u, 3u}) {
      const outcome many = run(s.gpu, s.ctas, s.sms, s.launches, threads);
      const bool same = many.stats == one.stats;
      std::printf(
          "sm_threads_tsan: %s, %u CTAs on %u SMs, %u launch(es), %u threads (%u used): memory ahead in %llu cycles, statistics %s\n",
          s.gpu, s.ctas, s.sms, s.launches, threads, many.threads_used, (unsigned long long)many.ahead, same ? "identical" : "DIFFER");
      if (!same) std::printf("one thread:\n%s%u threads:\n%s", one.stats.c_str(), threads, many.stats.c_str());
      if (!same || many.ahead == 0) status = 1;
    }
  }
  return status;
}
