// SPDX-License-Identifier: Apache-2.0
// The sweep specification (docs/formats/sweep.md): a YAML file naming a workload, configuration,
// parameters with their values, how to combine them into points, and the metrics to tabulate.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpuvp::sweep {

struct parameter {
  std::string key;                  // a configuration path (interconnect.sysram.width)
  std::vector<std::string> values;  // as written in the spec (the CSV shows these)
  // Values that name files relative to the spec's folder -> the absolute paths the point's --set
  // gives (so a spec runs from any directory).
  std::vector<std::pair<std::string, std::string>> paths;
};

struct metric {
  std::string name, path;  // CSV column, statistics path (segments may hold * and ?)
};

struct spec {
  std::string file;                                       // as given on the command line
  std::string workload;                                   // name or absolute path; empty: gpuvp run's default
  std::vector<std::string> configs;                       // absolute paths
  std::vector<std::pair<std::string, std::string>> sets;  // common --set values, in order (file values absolute)
  std::vector<parameter> parameters;
  std::string combine = "grid";  // grid | zip | random
  uint64_t random_points = 0, random_seed = 0;
  std::vector<metric> metrics;
  // points[i][k]: the value of parameters[k] at point i.
  std::vector<std::vector<std::string>> points;
  std::string sha256;  // of everything that defines the points' results
};

// Limits (checked): values per parameter and points per sweep.
constexpr size_t max_values = 100000;
constexpr size_t max_points = 1000000;
// Characters of a metric's statistics path (its glob is matched against every statistic).
constexpr size_t max_metric_path = 1000;

// Reads and checks a spec; throws config_error naming file:line and the key on bad input.
// `is_workload_name(w)` says whether w is a workload name rather than a file.
spec load_spec(const std::string& file, bool (*is_workload_name)(const std::string&));

// A `set` or parameter value that names files: every comma-separated item, taken relative to
// `dir` (the spec's folder), is an existing regular file. Returns the value with each item made
// absolute, or nothing when the value is not such a path (a number, a name, a file relative to
// the current directory only), in which case it is passed on as written.
std::optional<std::string> resolve_path_value(const std::string& dir, const std::string& value);

// The `gpuvp run` arguments (after the program name) of point i writing statistics to stats.
std::vector<std::string> point_args(const spec& s, size_t i, const std::string& stats);
// The same for any parameter values (one per parameter), without "run" and --stats: the
// configuration arguments that `gpuvp config dump` checks.
std::vector<std::string> config_args(const spec& s, const std::vector<std::string>& values);

// m * 10^exp as a plain decimal without trailing zeros (1234 -2 -> "12.34"; 5 3 -> "5000").
std::string format_decimal(__int128 m, int exp);

// Shortest text that reads back as the same double (1, 0.5, 1e-09).
std::string format_number(double v);

}  // namespace gpuvp::sweep
