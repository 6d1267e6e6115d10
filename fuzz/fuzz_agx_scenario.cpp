// SPDX-License-Identifier: Apache-2.0
// AGX scenarios (.agx, docs/formats/agx.md): the parser, and the configuration overlay of the
// `set` lines through the YAML reader. Errors are config_error naming "fuzz.agx:LINE" (or the
// overlay's "fuzz.agx (platform settings):LINE"); the overlay has one line per scenario line, so
// an error never names a line past the scenario's end plus the two fixed settings.
#include "agx_scenario.h"
#include "fuzz_common.h"
#include "gpuvp/config.h"

using namespace gpuvp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = fuzz::as_text(data, size);
  fuzz::expect_only<config_error>("fuzz.agx", [&] { (void)agx_scenario::parse(text, "fuzz.agx"); });
  std::string yaml;
  fuzz::expect_only<config_error>("", [&] { yaml = agx_scenario::overlay(text); });
  size_t lines = 0, overlay_lines = 0;
  for (char c : text) lines += c == '\n';
  for (char c : yaml) overlay_lines += c == '\n';
  if (overlay_lines > lines + 3) fuzz::finding("overlay has more lines than the scenario", std::to_string(overlay_lines));
  config cfg;
  fuzz::expect_only<config_error>("fuzz.agx (platform settings):", [&] { cfg.load_yaml_text(yaml, "fuzz.agx (platform settings)"); });
  return 0;
}
