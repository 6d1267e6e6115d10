// SPDX-License-Identifier: Apache-2.0
// Accel-Sim option files that are wrong as a whole rather than in one value: an option the
// model reads given without a value, cache geometries whose product needs more memory than the
// model allows, an unknown shipped GPU name, options not modelled that would change timing.
#include <gtest/gtest.h>

#include "compute.h"
#include "core/gpu_config.h"
#include "gpuvp/config.h"
#include "kernel_builder.h"

using namespace gpuvp::sm;

namespace {

std::string load_error(const std::string& text) {
  gpu_config c = gpuvp::sm::testing::shipped("QV100");
  try {
    load_config_text(c, text, "o.config");
    c.validate();
  } catch (const config_file_error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(sm_config_errors, read_option_without_a_value_names_file_and_line) {
  // Issue 29.13: "-gpgpu_n_mem" alone was ignored as a bare flag.
  EXPECT_NE(load_error("# comment\n-gpgpu_n_mem\n").find("o.config:2: -gpgpu_n_mem: no value"), std::string::npos);
  EXPECT_NE(load_error("-gpgpu_cache:dl2   # no value\n").find("o.config:1: -gpgpu_cache:dl2: no value"), std::string::npos);
  EXPECT_NE(load_error("-gpgpu_scheduler\n").find("o.config:1: -gpgpu_scheduler: no value"), std::string::npos);
  // A bare option the model does not read stays a listed, ignored flag.
  gpu_config c = gpuvp::sm::testing::shipped("QV100");
  load_config_text(c, "-visualizer_enabled\n", "o.config");
  ASSERT_FALSE(c.ignored.empty());
  EXPECT_EQ(c.ignored.back().name, "-visualizer_enabled");
}

TEST(sm_config_errors, non_sectored_l2_line_of_up_to_128_bytes) {
  // A non-sectored L2 line is one block of at most four 32-byte DRAM bursts' worth of state
  // (docs/models/gpu_memory.md, "Non-sectored L2"); the GTX 1080 file's 128 is taken.
  const std::string e = load_error("-gpgpu_cache:dl2 N:64:256:16,L:B:m:W:L,A:1024:1024,4:0,32\n");
  EXPECT_NE(e.find("-gpgpu_cache:dl2: a non-sectored L2 line of 32 to 128 bytes is modelled"), std::string::npos) << e;
  EXPECT_EQ(load_error("-gpgpu_cache:dl2 N:64:128:16,L:B:m:W:L,A:1024:1024,4:0,32\n"), "no error");
}

TEST(sm_config_errors, cache_geometry_product_is_checked_before_allocating) {
  // Issue 29.5: each number in range, the product not: 64 sub-partitions x 2^20 sets x 1024 ways
  // = 2^36 L2 lines x 72 bytes = 4608 GiB.
  const std::string e = load_error("-gpgpu_n_mem 32\n-gpgpu_cache:dl2 S:1048576:128:1024,L:B:m:L:L,A:192:4,32:0,32\n");
  EXPECT_NE(e.find("-gpgpu_cache:dl2: 1048576 sets x 1024 ways x 64 sub-partitions"), std::string::npos) << e;
  EXPECT_NE(e.find("68719476736 L2 lines need 4608.0 GiB of model state, more than the 4.0 GiB allowed"), std::string::npos) << e;
  // L1D: 1024 SMs x 65536 lines x 56 bytes = 3.5 GiB, over the limit with an L2 of 64 x 4096
  // x 32 lines x 72 bytes = 0.5625 GiB.
  const std::string l1 = load_error(
      "-gpgpu_adaptive_cache_config 0\n-gpgpu_n_clusters 1024\n-gpgpu_cache:dl1 S:1024:128:64,L:T:m:L:L,A:512:8,16:0,32\n"
      "-gpgpu_cache:dl2 S:4096:128:32,L:B:m:L:L,A:192:4,32:0,32\n");
  EXPECT_NE(l1.find("-gpgpu_cache:dl1: 65536 L1D lines x 1024 SMs (-gpgpu_n_clusters x -gpgpu_n_cores_per_cluster) need 3.5 GiB "
                    "of model state (0.6 GiB more for the L2)"),
            std::string::npos)
      << l1;
  // The shipped GPUs are far below it.
  for (const char* g : {"QV100", "RTX3070", "A100", "H100"}) EXPECT_NO_THROW(gpuvp::sm::testing::shipped(g)) << g;
}

TEST(sm_config_errors, unknown_gpu_name_names_the_key_and_the_shipped_ones) {
  // Issue 29.19.
  try {
    make_gpu_config("zz", {}, "compute.gpu");
    FAIL();
  } catch (const gpuvp::config_error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown shipped GPU configuration 'zz' given to compute.gpu (shipped: QV100, RTX3070, A100, "
                                         "H100, TITANX, GV100, TITANV, RTX2060, RTX2060_S"),
              std::string::npos)
        << e.what();
  }
}

TEST(sm_config_errors, unmodelled_timing_options_are_refused_unless_allowed) {
  // Over a shipped GPU an option the model does not read is listed, and refused when it changes
  // timing (perfect memory is not modelled).
  gpu_config c;
  load_config_text(c, "-gpgpu_perfect_mem 1\n-gpgpu_ptx_sim_mode 0\n-gpgpu_perfect_mem 1   # again\n", "o.config");
  EXPECT_EQ(c.unmodelled_list(), "not modelled: -gpgpu_perfect_mem 1, -gpgpu_ptx_sim_mode 0");
  auto t = c.unmodelled_timing(false);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0], "-gpgpu_perfect_mem 1 (o.config:3): perfect memory is not modelled, as if 0");
  // Over GPGPU-Sim's defaults, a default the model does not follow counts too: the L2 is
  // texture-only there. (Its real instruction cache, -gpgpu_perfect_inst_const_cache 0, is
  // modelled.)
  gpu_config d;
  load_config_text(d, gpgpusim_defaults_text(), "defaults");
  EXPECT_FALSE(d.perfect_icache);
  auto td = d.unmodelled_timing(true);
  ASSERT_EQ(td.size(), 1u);
  EXPECT_EQ(td[0].rfind("-gpgpu_cache:dl2_texture_only 1 (GPGPU-Sim's default)", 0), 0u) << td[0];
}
