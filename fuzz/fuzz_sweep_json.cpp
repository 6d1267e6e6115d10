// SPDX-License-Identifier: Apache-2.0
// The JSON files of a sweep folder as `--collect`/`--resume` read them: the input is written as
// DIR/sweep.json (the manifest) and as a point's result.json. Errors are config_error starting
// with the folder's path; a manifest that loads has one command and one value per parameter for
// each point.
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include "fuzz_common.h"
#include "gpuvp/config.h"
#include "sweep_results.h"
#include "sweep_slurm.h"

using namespace gpuvp;
namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string dir = (fs::temp_directory_path() / ("gpuvp-fuzz-sweep-json-" + std::to_string(getpid()))).string();
  static const std::string point = sweep::point_dir(dir, 0, 1);
  static const bool made = fs::create_directories(point) || true;
  (void)made;
  const std::string text = fuzz::as_text(data, size);
  std::ofstream(dir + "/sweep.json", std::ios::binary | std::ios::trunc) << text;
  std::ofstream(point + "/result.json", std::ios::binary | std::ios::trunc) << text;
  fuzz::expect_only<config_error>(dir, [&] {
    sweep::commands c;
    double wall = 0;
    std::string backend;
    const sweep::spec s = sweep::load_manifest(dir, c, wall, backend);
    if (c.size() != s.points.size()) fuzz::finding("commands and points differ", std::to_string(c.size()));
    for (const auto& pt : s.points)
      if (pt.size() != s.parameters.size()) fuzz::finding("point without a value per parameter", std::to_string(pt.size()));
  });
  fuzz::expect_only<config_error>(point, [&] { (void)sweep::read_result(point); });
  return 0;
}
