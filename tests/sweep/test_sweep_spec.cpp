// SPDX-License-Identifier: Apache-2.0
// Sweep specifications: how parameters expand into points (worked out by hand from the rules in
// docs/formats/sweep.md), the errors that name file:line and the key, and SHA-256 itself.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include "gpuvp/config.h"
#include "gpuvp/sha256.h"
#include "sweep_results.h"
#include "sweep_spec.h"
#include "testing.h"

using namespace gpuvp;
using namespace gpuvp::sweep;

namespace {
bool names(const std::string& w) { return w == "traffic"; }

std::string write_spec(const std::string& name, const std::string& text) {
  const std::string f = ::testing::TempDir() + name;
  std::ofstream(f) << text;
  return f;
}

std::string load_error(const std::string& text) {
  try {
    load_spec(write_spec("bad.yaml", text), names);
  } catch (const config_error& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST(sha256, known_digests) {
  // FIPS 180-4 examples: "abc" and the 56-byte two-block message; "" is the well-known empty digest.
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(sweep_spec, grid_varies_the_first_parameter_slowest) {
  gpuvp::testing::fresh_simulation();  // (also links the test support's sc_main)
  const spec s = load_spec(
      write_spec("grid.yaml", "workload: traffic\nparameters:\n  a: [1, 2]\n  b: [x, y, z]\nmetrics: {t: run.sim_time_ps}\n"), names);
  ASSERT_EQ(s.points.size(), 6u);
  const std::vector<std::vector<std::string>> want = {{"1", "x"}, {"1", "y"}, {"1", "z"}, {"2", "x"}, {"2", "y"}, {"2", "z"}};
  EXPECT_EQ(s.points, want);
  EXPECT_EQ(s.workload, "traffic");
  const auto args = point_args(s, 4, "/o/stats.json");
  const std::vector<std::string> want_args = {"run", "--workload", "traffic", "--set", "a=2", "--set", "b=y", "--stats", "/o/stats.json"};
  EXPECT_EQ(args, want_args);
}

TEST(sweep_spec, range_log2_and_zip) {
  // range 2..10 step 4 -> 2, 6, 10; log2 16..100 -> 16, 32, 64 (128 > 100); float range 0.5..1 step 0.25.
  const spec s = load_spec(write_spec("zip.yaml",
                                      "parameters:\n  a: {range: {from: 2, to: 10, step: 4}}\n"
                                      "  b: {log2: {from: 16, to: 100}}\n  c: {range: {from: 0.5, to: 1, step: 0.25}}\n"
                                      "combine: zip\n"),
                           names);
  const std::vector<std::vector<std::string>> want = {{"2", "16", "0.5"}, {"6", "32", "0.75"}, {"10", "64", "1"}};
  EXPECT_EQ(s.points, want);
  ASSERT_EQ(s.metrics.size(), 1u);  // the default metric
  EXPECT_EQ(s.metrics[0].path, "run.sim_time_ps");
}

TEST(sweep_spec, random_is_a_seeded_latin_hypercube) {
  const std::string text =
      "parameters:\n  a: {range: {from: 0, to: 7, step: 1}}\n  b: {range: {from: 10, to: 17, step: 1}}\n"
      "combine: {random: {points: 8, seed: 42}}\n";
  const spec s = load_spec(write_spec("rnd.yaml", text), names);
  ASSERT_EQ(s.points.size(), 8u);
  // 8 points over 8 values: each stratum holds exactly one value, so every value appears once.
  std::set<std::string> a, b;
  for (const auto& p : s.points) a.insert(p[0]), b.insert(p[1]);
  EXPECT_EQ(a.size(), 8u);
  EXPECT_EQ(b.size(), 8u);
  EXPECT_EQ(load_spec(write_spec("rnd2.yaml", text), names).points, s.points);  // same seed, same points
  const spec other = load_spec(write_spec("rnd3.yaml", text.substr(0, text.size() - 4) + "43}}\n"), names);
  EXPECT_NE(other.points, s.points);
  EXPECT_NE(other.sha256, s.sha256);
}

TEST(sweep_spec, errors_name_the_line_and_key) {
  EXPECT_NE(load_error("workload: traffic\nparamters:\n  a: [1]\n").find("bad.yaml:2: sweep specification: unknown key 'paramters'"),
            std::string::npos);
  EXPECT_NE(load_error("parameters:\n  a: {range: {from: 1, to: 5, step: 0}}\n").find("bad.yaml:2: parameter a: step must be non-zero"),
            std::string::npos);
  EXPECT_NE(load_error("parameters:\n  a: [1, 2]\n  b: [1]\ncombine: zip\n").find("parameter b has 1 values, a has 2"), std::string::npos);
  EXPECT_NE(load_error("workload: no-such.trace\n").find("workload 'no-such.trace': neither a workload name nor a file"),
            std::string::npos);
  EXPECT_NE(load_error("combine: shuffle\n").find("combine: expected grid, zip"), std::string::npos);
  EXPECT_NE(load_error("parameters:\n  a: [1]\nmetrics:\n  a: run.sim_time_ps\n").find("metric a: duplicate column name"),
            std::string::npos);
  EXPECT_NE(load_error("parameters:\n  a: {log2: {from: 8, to: 2}}\n").find("log2 needs integers 1 <= from <= to"), std::string::npos);
}

TEST(sweep_spec, hash_ignores_comments_but_not_values) {
  const spec a = load_spec(write_spec("h1.yaml", "parameters:\n  a: [1, 2]\n"), names);
  const spec b = load_spec(write_spec("h2.yaml", "# a comment\nparameters:\n  a: [1, 2]   # same\n"), names);
  const spec c = load_spec(write_spec("h3.yaml", "parameters:\n  a: [1, 3]\n"), names);
  EXPECT_EQ(a.sha256, b.sha256);
  EXPECT_NE(a.sha256, c.sha256);
}

// Issue 14: a value is a path only when every comma-separated item names a file next to the spec;
// names, numbers and files elsewhere pass unchanged. A list of files becomes a list of absolute
// paths in the points' --set, the points themselves keep the text as written (the CSV shows it),
// and the files' contents are part of the hash.
TEST(sweep_spec, values_naming_files_next_to_the_spec_become_absolute) {
  const std::string d = ::testing::TempDir() + "spec-paths";
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d + "/sub");
  std::ofstream(d + "/a.config") << "-gpgpu_scheduler gto\n";
  std::ofstream(d + "/sub/b.config") << "-gpgpu_scheduler lrr\n";
  const std::string f = d + "/spec.yaml";
  std::ofstream(f) << "workload: traffic\nset:\n  compute.config_files: a.config,sub/b.config\n  traffic.g0.count: 7\n"
                      "parameters:\n  compute.config_files: [a.config, lrr, sub/b.config, \"a.config,missing.config\", 16]\n";
  const spec s = load_spec(f, names);
  ASSERT_EQ(s.points.size(), 5u);
  EXPECT_EQ(s.points[0][0], "a.config");
  EXPECT_EQ(s.points[2][0], "sub/b.config");
  auto arg = [&](size_t i) {
    const auto a = point_args(s, i, "st.json");
    std::string last;
    for (size_t k = 0; k + 1 < a.size(); ++k)
      if (a[k] == "--set" && a[k + 1].rfind("compute.config_files=", 0) == 0) last = a[k + 1];
    return last;
  };
  const auto a0 = point_args(s, 0, "st.json");
  EXPECT_NE(std::find(a0.begin(), a0.end(), "compute.config_files=" + d + "/a.config," + d + "/sub/b.config"), a0.end());
  EXPECT_NE(std::find(a0.begin(), a0.end(), "traffic.g0.count=7"), a0.end());
  EXPECT_EQ(arg(0), "compute.config_files=" + d + "/a.config");
  EXPECT_EQ(arg(1), "compute.config_files=lrr");
  EXPECT_EQ(arg(2), "compute.config_files=" + d + "/sub/b.config");
  EXPECT_EQ(arg(3), "compute.config_files=a.config,missing.config");  // one item is no file: as written
  EXPECT_EQ(arg(4), "compute.config_files=16");
  // Changing a referenced file changes the hash (a resumed sweep would mix results).
  const std::string h = s.sha256;
  std::ofstream(d + "/sub/b.config") << "-gpgpu_scheduler gto\n";
  EXPECT_NE(load_spec(f, names).sha256, h);
  EXPECT_EQ(resolve_path_value(d, "a.config"), d + "/a.config");
  EXPECT_EQ(resolve_path_value(d, ""), std::nullopt);
  EXPECT_EQ(resolve_path_value(d, "a.config,"), std::nullopt);
  EXPECT_EQ(resolve_path_value(d, "sub"), std::nullopt);  // a directory is not a file value
}

// Issue 29 item 1: the spec goes through the configuration's YAML reader (aliases bounded, one
// document, no duplicate keys): a recursive alias once crashed, an alias bomb ran out of memory.
TEST(sweep_spec, yaml_aliases_and_duplicate_keys_are_refused_naming_the_line) {
  EXPECT_EQ(load_error("set: &a\n  x: *a\n"),
            ::testing::TempDir() + "bad.yaml:2: alias refers to a node that contains it (recursive alias)");
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'h'; ++c)
    bomb += std::string(1, c) + ": &" + c + " [*" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" +
            char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) +
            "]\n";
  // 10 + 10 * 11 + ... grows tenfold per line: line 5 passes 100000 nodes.
  EXPECT_NE(load_error(bomb).find(":5: more than 100000 nodes once aliases are expanded"), std::string::npos) << load_error(bomb);
  EXPECT_NE(
      load_error("workload: traffic\nparameters:\n  a: [1]\n  a: [2]\n").find("bad.yaml:4: duplicate key 'a' (first given on line 3)"),
      std::string::npos)
      << load_error("workload: traffic\nparameters:\n  a: [1]\n  a: [2]\n");
  EXPECT_NE(load_error("set:\n  a.b: 1\n  a:\n    b: 2\n").find("bad.yaml:4: set: a.b is given twice"), std::string::npos)
      << load_error("set:\n  a.b: 1\n  a:\n    b: 2\n");
}

// Issue 29 item 7: ranges in exact arithmetic. Worked out by hand: each value is from + k * step
// while it does not pass `to`.
TEST(sweep_spec, ranges_are_exact_past_2_to_the_53_at_int64_limits_and_in_decimals) {
  auto values = [](const std::string& range) {
    return load_spec(write_spec("r.yaml", "parameters:\n  a: {range: " + range + "}\n"), names).parameters[0].values;
  };
  using v = std::vector<std::string>;
  // Near INT64_MAX: 800, 803, 806 (809 would pass 807); nothing wraps to a negative value.
  EXPECT_EQ(values("{from: 9223372036854775800, to: 9223372036854775807, step: 3}"),
            (v{"9223372036854775800", "9223372036854775803", "9223372036854775806"}));
  EXPECT_EQ(values("{from: -9223372036854775808, to: -9223372036854775806, step: 1}"),
            (v{"-9223372036854775808", "-9223372036854775807", "-9223372036854775806"}));
  // Past 2^53 = 9007199254740992 doubles step by 2: odd values must still come out, none past `to`.
  EXPECT_EQ(values("{from: 9007199254740993, to: 9007199254740997, step: 2}"),
            (v{"9007199254740993", "9007199254740995", "9007199254740997"}));
  // 0.1 + 2 * 0.1 is 0.30000000000000004 in binary; in decimal it is 0.3, and `to` is reached.
  EXPECT_EQ(values("{from: 0.1, to: 0.3, step: 0.1}"), (v{"0.1", "0.2", "0.3"}));
  EXPECT_EQ(values("{from: 3, to: 1, step: -1}"), (v{"3", "2", "1"}));
  EXPECT_EQ(values("{from: 1e3, to: 3e3, step: 1e3}"), (v{"1000", "2000", "3000"}));
  // Times: one unit for all three, kept on each value.
  EXPECT_EQ(values("{from: 1 us, to: 2 us, step: 0.5 us}"), (v{"1 us", "1.5 us", "2 us"}));
  EXPECT_NE(load_error("parameters:\n  a: {range: {from: 1 us, to: 2 ns, step: 1 ns}}\n").find("need the same unit"), std::string::npos);
  EXPECT_NE(load_error("parameters:\n  a: {range: {from: 1, to: 1000000, step: 1}}\n").find("more than 100000 values"), std::string::npos);
  EXPECT_NE(load_error("parameters:\n  a: {range: {from: 1, to: 5, step: -1}}\n").find("step must be non-zero and lead from"),
            std::string::npos);
  EXPECT_NE(
      load_error("parameters:\n  a: {range: {from: 1x2, to: 5, step: 1}}\n").find("bad.yaml:2: parameter a: from: '1x2' is not a number"),
      std::string::npos)
      << load_error("parameters:\n  a: {range: {from: 1x2, to: 5, step: 1}}\n");
}

// Issue 29 item 3: many stars once backtracked exponentially (the sweep never ended).
TEST(sweep_spec, metric_glob_matches_without_backtracking) {
  EXPECT_TRUE(glob_match("a*b", "ab"));
  EXPECT_TRUE(glob_match("a*b", "axxb"));
  EXPECT_TRUE(glob_match("a?c", "abc"));
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_TRUE(glob_match("*x*y*", "axbyc"));
  EXPECT_TRUE(glob_match("ab*cd*", "abxcdcdy"));
  EXPECT_FALSE(glob_match("?", ""));
  EXPECT_FALSE(glob_match("a*", "b"));
  EXPECT_FALSE(glob_match("*x*y*", "ayxc"));
  EXPECT_FALSE(glob_match("a*bc", "abcb"));
  // 40 stars against 300 'a's that never end in 'b': exponential recursion never returns.
  std::string stars;
  for (int i = 0; i < 40; ++i) stars += "*a";
  EXPECT_FALSE(glob_match(stars + "b", std::string(300, 'a')));
  EXPECT_TRUE(glob_match(stars, std::string(300, 'a')));
  std::map<std::string, nlohmann::json> stats = {{"m.tlb0.hits", 3}, {"m.tlb1.hits", 4}, {"m.tlb1.misses", 9}, {"m.x.hits", -2}};
  EXPECT_EQ(metric_cell(stats, "m.tlb*.hits"), "7");
  EXPECT_EQ(metric_cell(stats, "m.*.hits"), "5");  // signed statistics sum as signed
  EXPECT_EQ(metric_cell(stats, "m.*" + stars + "*.hits"), std::nullopt);
  EXPECT_NE(
      load_error("metrics:\n  m: " + std::string(1001, 'a') + "\n").find("bad.yaml:2: metric m: a statistics path of 1 to 1000 characters"),
      std::string::npos);
}

namespace {
// load_stats of a statistics file holding `text`, as "path=value" lines in path order.
std::string stats_lines(const std::string& text) {
  std::string lines;
  for (const auto& [k, v] : load_stats(write_spec("stats.json", text))) lines += k + "=" + v.dump() + "\n";
  return lines;
}
}  // namespace

TEST(sweep_results, statistics_flatten_to_dotted_paths_without_arrays) {
  // Objects nest into dotted paths (docs/formats/sweep.md "Metric paths"); arrays (histogram
  // buckets) are left out, with whatever they hold; numbers keep their JSON type.
  EXPECT_EQ(stats_lines(R"({"run": {"sim_time_ps": 5, "errors": ["x"], "wall_s": 0.5},
                            "x.queueing": {"count": 2, "mean": 1.5, "unit": "ps", "buckets": [{"a": 1}, 2]},
                            "x.busy": -3, "ok": true, "none": null})"),
            "none=null\nok=true\nrun.sim_time_ps=5\nrun.wall_s=0.5\nx.busy=-3\nx.queueing.count=2\nx.queueing.mean=1.5\nx.queueing.unit="
            "\"ps\"\n");
  // A member's path is its object's path, a dot and its key; at an empty path, the key alone.
  EXPECT_EQ(stats_lines(R"({"": {"a": 1}, "b": {"": 2}})"), "a=1\nb.=2\n");
  // Unreadable, truncated or trailing text: no statistics at all (the metrics' cells stay empty).
  EXPECT_EQ(stats_lines(R"({"a": 1, "b": )"), "");
  EXPECT_EQ(stats_lines(R"({"a": 1} x)"), "");
  EXPECT_EQ(stats_lines(""), "");
}

TEST(sweep_results, statistics_paths_given_twice_read_as_the_parsed_document) {
  // JSON keeps the last of a repeated key (nlohmann::json, as Python's json): the earlier value,
  // scalar or object, is gone whole.
  EXPECT_EQ(stats_lines(R"({"a": 1, "a": 2})"), "a=2\n");
  EXPECT_EQ(stats_lines(R"({"a": {"x": 1, "y": 2}, "a": {"z": 3}})"), "a.z=3\n");
  EXPECT_EQ(stats_lines(R"({"a": {"x": 1}, "a": 4})"), "a=4\n");
  EXPECT_EQ(stats_lines(R"({"a": 4, "a": [1]})"), "");
  // "a.b" beside "a": {"b": ...}: one path from two keys; the keys are visited in sorted order
  // ("a" before "a.b"), the later one's value stays.
  EXPECT_EQ(stats_lines(R"({"a.b": 1, "a": {"b": 2, "c": 3}})"), "a.b=1\na.c=3\n");
  EXPECT_EQ(stats_lines(R"({"a": {"b": 2}, "a.b": 1})"), "a.b=1\n");
}

TEST(sweep_results, statistics_nested_past_32_objects_are_left_out) {
  // Objects at depth 32 and below are not entered (a damaged file must not recurse without end);
  // the values of depth 31's object are kept. Depth counts the objects around: the top is 0.
  auto nest = [](int objects) {
    std::string open, close;
    for (int i = 0; i < objects; ++i) open += "{\"k\": ", close += "}";
    return open + "{\"v\": 1, \"d\": {\"w\": 2}}" + close;
  };
  std::string path31;
  for (int i = 0; i < 31; ++i) path31 += "k.";
  EXPECT_EQ(stats_lines(nest(30)), path31.substr(0, path31.size() - 2) + "d.w=2\n" + path31.substr(0, path31.size() - 2) + "v=1\n");
  EXPECT_EQ(stats_lines(nest(31)), path31 + "v=1\n");
  EXPECT_EQ(stats_lines(nest(32)), "");
}
