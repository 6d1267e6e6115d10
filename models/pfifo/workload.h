// SPDX-License-Identifier: Apache-2.0
// The pushbuffer workload format (docs/formats/pushbuffer.md): channels, memory, DMA objects,
// RAMHT objects, pushbuffers in pb-asm syntax, IB entries and expectations. `gpuvp run --workload F.pb`.
#pragma once
#include <memory>
#include <string>
#include "gpuvp/registry.h"

namespace gpuvp::pfifo {

void register_workload_kind();
// Parses a workload file (throws std::runtime_error "file:line: ..." on bad input).
std::unique_ptr<gpuvp::workload> load_pb_workload(const std::string& path);
std::unique_ptr<gpuvp::workload> parse_pb_workload(const std::string& text, const std::string& origin);

}  // namespace gpuvp::pfifo
