// SPDX-License-Identifier: Apache-2.0
// A workload that adds objects of its own to the top level of the --stats JSON (e.g. a .rd
// replay's cp_registers): `gpuvp run` asks every workload that also derives from this.
#pragma once
#include <string>

namespace gpuvp {

struct workload_stats_json {
  virtual ~workload_stats_json() = default;
  // A JSON object whose members go to the top level of the statistics file ("": none).
  virtual std::string stats_json() = 0;
};

}  // namespace gpuvp
