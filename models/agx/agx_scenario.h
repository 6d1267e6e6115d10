// SPDX-License-Identifier: Apache-2.0
// The AGX scenario workload kind (.agx files, docs/formats/agx.md): an AP driver model that maps
// pages in the UAT's tables, issues TLBIs, speaks the uPPL handoff protocol, submits commands to
// the ASC through its rings and doorbell, and checks memory, statistics and stale accesses.
#pragma once
#include <memory>
#include <string>
#include "gpuvp/registry.h"

namespace gpuvp::agx_scenario {

// Parses a scenario; throws config_error naming origin:line.
std::unique_ptr<workload> parse(const std::string& text, const std::string& origin);
// The configuration overlay of a scenario (its `set` lines, plus stale detection on; a kernel list,
// `set agx.asc.launch.kernels`, also turns on the platform's compute component).
std::string overlay(const std::string& text);
void register_kind();

}  // namespace gpuvp::agx_scenario
