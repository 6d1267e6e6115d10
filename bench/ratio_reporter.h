// SPDX-License-Identifier: Apache-2.0
// Console reporter for gpuvp's benchmarks: the usual table, then each figure as a ratio to a
// baseline measured in the same run, with its goal beside it. Times are CPU time per iteration
// (the shared machines are loaded); with --benchmark_repetitions every figure is the median of
// the repetitions.
#pragma once
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>
#include <benchmark/benchmark.h>

namespace gpuvp::bench {

class ratio_reporter : public benchmark::ConsoleReporter {
 public:
  // `figures` prints the lines after the table (called once, with this reporter).
  explicit ratio_reporter(std::function<void(ratio_reporter&)> figures) : figures_(std::move(figures)) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const auto& r : runs) {
      const std::string name = r.run_name.str();  // "BM_x/1" with its argument, no aggregate suffix
      const bool median = r.run_type == Run::RT_Aggregate && r.aggregate_name == "median";
      if (!(median || (r.run_type == Run::RT_Iteration && !seen_.count(name)))) continue;
      seen_[name] = {r.GetAdjustedCPUTime(), benchmark::GetTimeUnitString(r.time_unit), {}};
      for (const auto& [k, c] : r.counters) seen_[name].counters[k] = c.value;
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf("\nfigures (ratios to baselines of the same run; medians of repetitions):\n");
    figures_(*this);
  }

  bool has(const std::string& name) const { return seen_.count(name) != 0; }
  // CPU time per iteration in the benchmark's unit (ns unless it sets another).
  double time(const std::string& name) const { return has(name) ? seen_.at(name).time : 0; }
  double counter(const std::string& name, const std::string& c) const {
    if (!has(name)) return 0;
    const auto& cs = seen_.at(name).counters;
    return cs.count(c) ? cs.at(c) : 0;
  }
  // "  <label>  <value>  goal <goal>: met|NOT met", when the figure could be measured (the
  // benchmarks it needs ran: not left out by --benchmark_filter).
  static void figure(const std::string& label, const std::string& value, const std::string& goal, bool met) {
    std::printf("  %-44s %-34s goal %-18s %s\n", label.c_str(), value.c_str(), goal.c_str(), met ? "met" : "NOT met");
  }
  // A ratio a/b of times with an upper bound as goal (max_ratio 0: no goal, printed as "-").
  void time_ratio(const std::string& a, const std::string& b, double max_ratio = 0) const {
    if (!has(a) || !has(b) || time(b) <= 0) return;
    const double r = time(a) / time(b);
    char v[96];
    std::snprintf(v, sizeof v, "%.3g %s = %.2fx %s", time(a), seen_.at(a).unit, r, b.c_str());
    if (max_ratio > 0) {
      char g[32];
      std::snprintf(g, sizeof g, "<= %.2gx", max_ratio);
      figure(a, v, g, r <= max_ratio);
    } else {
      std::printf("  %-44s %s\n", a.c_str(), v);
    }
  }
  // An absolute bound on a benchmark's time per iteration.
  void time_goal(const std::string& label, const std::string& name, double max) const {
    if (!has(name)) return;
    char v[64], g[32];
    std::snprintf(v, sizeof v, "%.2f %s", time(name), seen_.at(name).unit);
    std::snprintf(g, sizeof g, "<= %g %s", max, seen_.at(name).unit);
    figure(label, v, g, time(name) <= max);
  }
  // A ratio a/b of rates (items_per_second) with a lower bound as goal (min_ratio 0: no goal).
  void rate_ratio(const std::string& a, const std::string& b, double min_ratio = 0) const {
    const double ra = counter(a, "items_per_second"), rb = counter(b, "items_per_second");
    if (ra <= 0 || rb <= 0) return;
    char v[96];
    std::snprintf(v, sizeof v, "%.3g/s = %.2fx %s", ra, ra / rb, b.c_str());
    if (min_ratio > 0) {
      char g[32];
      std::snprintf(g, sizeof g, ">= %.2gx", min_ratio);
      figure(a, v, g, ra / rb >= min_ratio);
    } else {
      std::printf("  %-44s %s\n", a.c_str(), v);
    }
  }

 private:
  struct measured {
    double time = 0;
    const char* unit = "ns";
    std::map<std::string, double> counters;
  };
  std::map<std::string, measured> seen_;
  std::function<void(ratio_reporter&)> figures_;
};

// benchmark::Initialize with steady figures on a loaded machine: unless the command line sets
// --benchmark_repetitions, five repetitions run interleaved in random order, so that the ratios
// compare medians taken over the same minutes.
inline void initialize_steady(int argc, char** argv) {
  static std::vector<char*> args;
  static std::string reps = "--benchmark_repetitions=5", interleave = "--benchmark_enable_random_interleaving=true";
  args.assign(argv, argv + argc);
  bool given = false;
  for (int i = 1; i < argc; ++i) given |= std::string(argv[i]).rfind("--benchmark_repetitions", 0) == 0;
  if (!given) args.insert(args.begin() + 1, {reps.data(), interleave.data()});
  int n = int(args.size());
  benchmark::Initialize(&n, args.data());
}

}  // namespace gpuvp::bench
