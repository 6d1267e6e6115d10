// SPDX-License-Identifier: Apache-2.0
// Sweep specifications (docs/formats/sweep.md), read from a file as `gpuvp sweep` does. Errors are
// config_error starting with the file's path. A spec that loads has at most max_points points,
// each with one value per parameter, and its points' command lines build.
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include "fuzz_common.h"
#include "gpuvp/config.h"
#include "sweep_spec.h"

using namespace gpuvp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string file =
      (std::filesystem::temp_directory_path() / ("gpuvp-fuzz-sweep-" + std::to_string(getpid()) + ".yaml")).string();
  std::ofstream(file, std::ios::binary | std::ios::trunc) << fuzz::as_text(data, size);
  fuzz::expect_only<config_error>(file + ":", [&] {
    const sweep::spec s = sweep::load_spec(file, [](const std::string& w) { return w == "traffic"; });
    if (s.points.size() > sweep::max_points) fuzz::finding("too many points", std::to_string(s.points.size()));
    for (const auto& pt : s.points)
      if (pt.size() != s.parameters.size()) fuzz::finding("point without a value per parameter", std::to_string(pt.size()));
    if (!s.points.empty()) (void)sweep::point_args(s, s.points.size() - 1, "stats.json");
  });
  return 0;
}
