// SPDX-License-Identifier: Apache-2.0
// Results of a sweep on disk: each point's folder (stats.json, log, result.json written
// atomically when the point ends), metrics read from the statistics, and the tables.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include <nlohmann/json.hpp>
#include "sweep_spec.h"

namespace gpuvp::sweep {

struct point_result {
  int exit_code = 0;  // gpuvp run's exit code; 128 + N when killed by signal N
  std::string error;  // why it failed (empty on success)
  double wall_s = 0;  // wall time of the process (timing.csv only)
  std::string host;   // where it ran (timing.csv only)
};

// Typed reads of the JSON files of a sweep folder (sweep.json, result.json, slurm/*.json): a
// missing or wrongly typed field is a config_error "FILE: FIELD: what was expected", never a bare
// nlohmann exception.
namespace json_read {
const nlohmann::json& field(const nlohmann::json& object, const std::string& key, const std::string& file);
std::string text(const nlohmann::json& v, const std::string& what, const std::string& file);
double number(const nlohmann::json& v, const std::string& what, const std::string& file, double lo, double hi);
uint64_t integer(const nlohmann::json& v, const std::string& what, const std::string& file, uint64_t hi);
// An array of at most `most` elements.
const nlohmann::json& array(const nlohmann::json& v, const std::string& what, const std::string& file, size_t most);
std::vector<std::string> texts(const nlohmann::json& v, const std::string& what, const std::string& file, size_t most);
// The file's JSON object; config_error naming the file when it is not one.
nlohmann::json object_file(const std::string& path, const std::string& what);
}  // namespace json_read

// DIR/points/<id>: the id is the point number, zero-padded so that folders sort in point order.
std::string point_dir(const std::string& out, size_t i, size_t n);

// result.json of a finished point; nullopt when the point has not finished (or never ran); a
// damaged one is a config_error naming it.
std::optional<point_result> read_result(const std::string& pdir);
void write_result(const std::string& pdir, const point_result& r);
// Writes via a temporary file and rename, so a reader sees the old or the new file, never half.
void write_file_atomic(const std::string& path, const std::string& text);
std::string read_file(const std::string& path);

// A statistics file flattened to path -> value ("run.sim_time_ps", "x.queueing.mean"); arrays
// (histogram buckets) are left out. Empty when the file is missing or unreadable.
std::map<std::string, nlohmann::json> load_stats(const std::string& path);
// A metric's CSV cell: the value at path, or the sum of the numbers whose paths match a
// pattern with * (any characters within one segment) and ?; nullopt when nothing matches.
std::optional<std::string> metric_cell(const std::map<std::string, nlohmann::json>& stats, const std::string& path);

// One segment's glob: * any run of characters, ? one character (time linear in each length's product).
bool glob_match(std::string_view pattern, std::string_view text);

// Fills r.error for a point that ended with exit code / signal from its stats and log.
std::string explain_failure(const std::string& pdir, int exit_code, int signal);

// Writes DIR/results.csv (deterministic) and DIR/timing.csv from the points' folders; returns
// the number of finished points.
size_t write_tables(const std::string& out, const spec& s);

std::string csv_field(const std::string& v);

}  // namespace gpuvp::sweep
