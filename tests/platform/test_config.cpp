// SPDX-License-Identifier: Apache-2.0
// Configuration: number/time parsing, YAML with file:line errors, precedence, dump round trip.
#include <fstream>
#include <functional>
#include <memory>
#include <vector>
#include <gtest/gtest.h>
#include "gpuvp/config.h"
#include "testing.h"

using namespace gpuvp;
using sc_core::SC_NS;
using sc_core::sc_time;

TEST(config, numbers_accept_hex_decimal_separators_and_size_suffixes) {
  EXPECT_EQ(parse_u64("42"), 42u);
  EXPECT_EQ(parse_u64("0x1_0000_0000"), 0x100000000u);
  EXPECT_EQ(parse_u64("4 GiB"), 4ull << 30);
  EXPECT_EQ(parse_u64("16M"), 16ull << 20);
  EXPECT_EQ(parse_u64("0b101"), 5u);
  EXPECT_EQ(parse_i64("-0x10"), -16);
  EXPECT_THROW(parse_u64("12 apples"), std::invalid_argument);
  EXPECT_THROW(parse_u64("-1"), std::invalid_argument);
  EXPECT_THROW(parse_u64("16 TiB TiB"), std::invalid_argument);
  EXPECT_THROW(parse_u64("0xffffffffffffffff K"), std::out_of_range);
}

TEST(config, times_take_units_and_default_to_nanoseconds) {
  EXPECT_EQ(parse_time("10 ns"), sc_time(10, SC_NS));
  EXPECT_EQ(parse_time("1.5us"), sc_time(1500, SC_NS));
  EXPECT_EQ(parse_time("7"), sc_time(7, SC_NS));
  EXPECT_THROW(parse_time("5 parsecs"), std::invalid_argument);
  EXPECT_EQ(format_time(sc_time(1, sc_core::SC_US)), "1 us");
  EXPECT_EQ(format_time(sc_time(1500, sc_core::SC_PS)), "1500 ps");
}

namespace {
std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}
}  // namespace

TEST(config, yaml_values_reach_params_and_set_overrides_them) {
  gpuvp::testing::fresh_simulation();
  auto& c = config::global();
  c.load_yaml_file(write_file("a.yaml", "top:\n  width: 0x40\n  lat: 3 ns\n  name: vram\n  fast: yes\n"));
  c.apply_override("top.width=128");
  param<uint64_t> width("top.width", 8, "w");
  param<sc_time> lat("top.lat", sc_time(1, SC_NS), "l");
  param<std::string> name("top.name", "x", "n");
  param<bool> fast("top.fast", false, "f");
  param<double> ratio("top.ratio", 0.5, "r");
  EXPECT_EQ(width.get(), 128u);
  EXPECT_EQ(lat.get(), sc_time(3, SC_NS));
  EXPECT_EQ(name.get(), "vram");
  EXPECT_TRUE(fast.get());
  EXPECT_EQ(ratio.get(), 0.5);  // default
  EXPECT_NO_THROW(c.check_unused());
}

TEST(config, unknown_key_names_file_and_line) {
  gpuvp::testing::fresh_simulation();
  auto& c = config::global();
  const std::string f = write_file("b.yaml", "top:\n  width: 4\n  widht: 5\n");
  c.load_yaml_file(f);
  param<uint64_t> width("top.width", 8, "w");
  try {
    c.check_unused();
    FAIL() << "unknown key accepted";
  } catch (const config_error& e) {
    EXPECT_EQ(std::string(e.what()), f + ":3: unknown configuration key 'top.widht' (did you mean 'top.width'?)");
  }
}

TEST(config, wrong_type_and_out_of_range_name_the_key_and_origin) {
  gpuvp::testing::fresh_simulation();
  auto& c = config::global();
  const std::string f = write_file("c.yaml", "top:\n  count: lots\n  ways: 99\n");
  c.load_yaml_file(f);
  try {
    param<uint64_t> count("top.count", 1, "how many");
    FAIL();
  } catch (const config_error& e) {
    EXPECT_EQ(std::string(e.what()), f + ":2: top.count: 'lots' is not a valid uint (how many)");
  }
  try {
    param<uint64_t> ways("top.ways", 4, "ways", 1, 16);
    FAIL();
  } catch (const config_error& e) {
    EXPECT_EQ(std::string(e.what()), f + ":3: top.ways = 99 is out of range [1, 16]");
  }
}

TEST(config, malformed_yaml_reports_its_line) {
  gpuvp::testing::fresh_simulation();
  const std::string f = write_file("d.yaml", "top:\n  a: 1\n b: [\n");
  try {
    config::global().load_yaml_file(f);
    FAIL();
  } catch (const config_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(f + ":", 0), 0u) << e.what();
  }
  EXPECT_THROW(config::global().load_yaml_file("/nonexistent/x.yaml"), config_error);
  EXPECT_THROW(config::global().apply_override("novalue"), config_error);
}

TEST(config, dump_loads_back_to_the_same_values) {
  gpuvp::testing::fresh_simulation();
  auto& c = config::global();
  c.set("m.size", "2 GiB", "test");
  {
    param<uint64_t> size("m.size", 1, "size");
    param<sc_time> lat("m.latency", sc_time(20, SC_NS), "latency");
    param<std::string> mode("m.mode", "a: b", "mode with a colon");
  }
  const std::string dump = c.dump_yaml(true);
  // Integers in decimal, whatever their size: 2 GiB = 2^31 = 2147483648.
  EXPECT_NE(dump.find("size: 2147483648  # size"), std::string::npos) << dump;
  gpuvp::testing::fresh_simulation();
  config::global().load_yaml_text(dump, "dump");
  param<uint64_t> size("m.size", 1, "size");
  param<sc_time> lat("m.latency", sc_time(1, SC_NS), "latency");
  param<std::string> mode("m.mode", "", "mode");
  EXPECT_EQ(size.get(), 2ull << 30);
  EXPECT_EQ(lat.get(), sc_time(20, SC_NS));
  EXPECT_EQ(mode.get(), "a: b");
}

// String values that YAML reads as something else when written plain (null, ~, a bool, a newline
// folded into a space, a leading space or colon, a comment sign) load back from the dump as the
// same strings; plain words, numbers and times stay unquoted.
TEST(config, dump_quotes_strings_yaml_would_read_otherwise) {
  const std::vector<std::string> values = {"null",
                                           "~",
                                           "Null",
                                           "NULL",
                                           "true",
                                           "false",
                                           "two\nlines",
                                           " leading space",
                                           "trailing space ",
                                           ":colon",
                                           "# not a comment",
                                           "- not a list",
                                           "key: value",
                                           "\"quoted\" and \\back",
                                           "tab\there",
                                           "",
                                           "{a: 1}",
                                           "[1]",
                                           "*alias",
                                           "&anchor"};
  gpuvp::testing::fresh_simulation();
  {
    std::vector<std::unique_ptr<param<std::string>>> params;
    for (size_t i = 0; i < values.size(); ++i)
      params.push_back(std::make_unique<param<std::string>>("m.s" + std::to_string(i), values[i], "a string"));
    param<std::string> word("m.word", "lru", "a word");
    param<sc_time> lat("m.latency", sc_time(20, SC_NS), "latency");
  }
  const std::string dump = config::global().dump_yaml(true);
  EXPECT_NE(dump.find("  word: lru  # a word\n"), std::string::npos) << dump;
  EXPECT_NE(dump.find("  latency: 20 ns  # latency [0 ns, 3600 s]\n"), std::string::npos) << dump;
  gpuvp::testing::fresh_simulation();
  config::global().load_yaml_text(dump, "dump");
  for (size_t i = 0; i < values.size(); ++i) {
    param<std::string> p("m.s" + std::to_string(i), "(unset)", "a string");
    EXPECT_EQ(p.get(), values[i]) << dump;
  }
}

// --- Robustness (issue 10): every bad value names where it came from; nothing is clamped.

namespace {
// The message of the config_error `f` throws ("" if none).
template <typename F>
std::string config_error_of(F&& f) {
  try {
    f();
  } catch (const config_error& e) {
    return e.what();
  }
  return "";
}
std::string what_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(config, bad_numbers_name_the_text_never_a_library_function) {
  // "0x1z": the z is neither a hex digit nor a size suffix.
  EXPECT_EQ(what_of([] { parse_u64("0x1z"); }),
            "'0x1z' is not a number (bad digit or suffix 'z'; sizes take k/KiB, M/MiB, G/GiB or T/TiB: 4KiB, 1 MiB)");
  // 2^64 does not fit; std::stoull would have said only "stoull".
  EXPECT_EQ(what_of([] { parse_u64("18446744073709551616"); }), "'18446744073709551616' does not fit in 64 bits");
  EXPECT_EQ(parse_u64("18446744073709551615"), ~uint64_t(0));
  EXPECT_THROW(parse_u64("+5"), std::invalid_argument);
  EXPECT_EQ(what_of([] { parse_double("1.5x"); }), "'1.5x' is not a number");
  EXPECT_THROW(parse_double("1e999"), std::out_of_range);
}

TEST(config, times_above_the_largest_or_below_the_resolution_are_errors_not_clamped) {
  EXPECT_EQ(max_time(), sc_time(3600, sc_core::SC_SEC));
  EXPECT_EQ(parse_time("3600 s"), max_time());
  EXPECT_EQ(parse_time("1e3 ns"), sc_time(1, sc_core::SC_US));
  // 10^30 s is far beyond sc_time's 2^64 ps (about 213 days); it used to be clamped silently.
  EXPECT_EQ(what_of([] { parse_time("1e30 s"); }), "'1e30 s' is longer than gpuvp's largest time, 3600 s");
  EXPECT_THROW(parse_time("3601 s"), std::out_of_range);
  // The kernel's resolution is 1 ps: 0.1 fs would round to 0.
  EXPECT_EQ(what_of([] { parse_time("0.1 fs"); }), "'0.1 fs' is below the time resolution, 1 ps");
  EXPECT_EQ(parse_time("0 ns"), sc_core::SC_ZERO_TIME);
  EXPECT_THROW(parse_time("-5 ns"), std::invalid_argument);
  EXPECT_THROW(parse_time("inf s"), std::invalid_argument);
  EXPECT_THROW(parse_time("nan"), std::invalid_argument);
}

TEST(config, every_time_param_has_a_range_and_the_error_names_the_key) {
  gpuvp::testing::fresh_simulation();
  auto& c = config::global();
  c.set("top.period", "2 h", "my.yaml:4");
  c.set("top.tick", "7200 s", "my.yaml:5");
  EXPECT_EQ(config_error_of([] { param<sc_time> p("top.period", sc_time(1, SC_NS), "clock period"); }),
            "my.yaml:4: top.period: '2 h' is not a valid time (clock period)");
  // No range given: a time param is still bounded by [0, max_time()].
  EXPECT_EQ(config_error_of([] { param<sc_time> p("top.tick", sc_time(1, SC_NS), "tick"); }),
            "my.yaml:5: top.tick: '7200 s' is longer than gpuvp's largest time, 3600 s (tick)");
  param<sc_time> ok("top.ok", sc_time(1, SC_NS), "fine");
  EXPECT_EQ(c.declarations().back().min, "0 ns");
  EXPECT_EQ(c.declarations().back().max, "3600 s");
}

TEST(config, a_directory_or_a_missing_file_is_not_a_configuration) {
  gpuvp::testing::fresh_simulation();
  const std::string dir = ::testing::TempDir();
  EXPECT_EQ(config_error_of([&] { config::global().load_yaml_file(dir); }), dir + ": is a directory, expected a configuration file");
  EXPECT_EQ(config_error_of([] { config::global().load_yaml_file("/nonexistent/x.yaml"); }),
            "/nonexistent/x.yaml: no such configuration file");
}

TEST(config, a_recursive_alias_is_rejected_with_its_line) {
  gpuvp::testing::fresh_simulation();
  const std::string f = write_file("self.yaml", "top:\n  a: &me\n    b: *me\n");
  EXPECT_EQ(config_error_of([&] { config::global().load_yaml_file(f); }),
            f + ":3: alias refers to a node that contains it (recursive alias)");
  const std::string g = write_file("selfseq.yaml", "top: &s [1, *s]\n");
  EXPECT_EQ(config_error_of([&] { config::global().load_yaml_file(g); }),
            g + ":1: alias refers to a node that contains it (recursive alias)");
}

TEST(config, exponential_aliases_are_bounded_by_the_node_count) {
  gpuvp::testing::fresh_simulation();
  // "Billion laughs": each level is 10 aliases of the one before, 10^9 leaves at level 9. Level k
  // expands to 11...1 (k + 2 ones) nodes; with the keys, the total passes 100000 at the 8th
  // alias of level 4 (12348 + 1 + 8 x 11111), on line 5.
  std::string text = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 9; ++i) {
    const std::string prev = "*l" + std::to_string(i - 1);
    text += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [" + prev;
    for (int k = 1; k < 10; ++k) text += ", " + prev;
    text += "]\n";
  }
  const std::string f = write_file("laughs.yaml", text);
  EXPECT_EQ(config_error_of([&] { config::global().load_yaml_file(f); }), f + ":5: more than 100000 nodes once aliases are expanded");
  // A few aliases are fine and expand to their values.
  gpuvp::testing::fresh_simulation();
  config::global().load_yaml_text("base: &b {w: 4}\ncopy: *b\n", "ok.yaml");
  param<uint64_t> w("copy.w", 1, "w");
  EXPECT_EQ(w.get(), 4u);
}

TEST(config, nesting_is_bounded) {
  gpuvp::testing::fresh_simulation();
  std::string deep;
  for (int i = 0; i < 70; ++i) deep += "{a: ";
  deep += "1";
  for (int i = 0; i < 70; ++i) deep += "}";
  EXPECT_EQ(config_error_of([&] { config::global().load_yaml_text(deep + "\n", "deep.yaml"); }),
            "deep.yaml:1: nested deeper than 64 levels");
}

TEST(config, content_after_the_first_document_or_a_directive_is_an_error) {
  gpuvp::testing::fresh_simulation();
  auto& c = config::global();
  EXPECT_EQ(config_error_of([&] { c.load_yaml_text("a: 1\n---\nb: 2\n", "two.yaml"); }),
            "two.yaml:2: a second YAML document ('---' or content after '...'); a configuration file holds one mapping");
  EXPECT_EQ(config_error_of([&] { c.load_yaml_text("a: 1\n...\nb: 2\n", "end.yaml"); }),
            "end.yaml:3: a second YAML document ('---' or content after '...'); a configuration file holds one mapping");
  EXPECT_EQ(config_error_of([&] { c.load_yaml_text("%YAML 1.2\n---\na: 1\n", "dir.yaml"); }),
            "dir.yaml:1: YAML directive '%YAML 1.2' is not supported (a configuration file is one plain mapping)");
  // One document, with its optional start and end markers, is fine.
  EXPECT_NO_THROW(c.load_yaml_text("---\na: 1\n...\n", "one.yaml"));
}

// Issue 33: a key given twice was merged silently (the last one won). Refused with both lines,
// also where an alias names the key and where a dotted key meets the nested one.
TEST(config, duplicate_keys_are_refused_naming_both_lines) {
  gpuvp::testing::fresh_simulation();
  auto& c = config::global();
  EXPECT_EQ(config_error_of([&] { c.load_yaml_text("vram:\n  size: 1\n  base: 0\n  size: 2\n", "dup.yaml"); }),
            "dup.yaml:4: duplicate key 'size' (first given on line 2)");
  EXPECT_EQ(config_error_of([&] { c.load_yaml_text("a: &k size\nb: {size: 1, *k : 2}\n", "alias.yaml"); }),
            "alias.yaml:2: duplicate key 'size' (first given on line 2)");
  EXPECT_EQ(config_error_of([&] { c.load_yaml_text("vram.size: 1\nvram:\n  size: 2\n", "dots.yaml"); }),
            "dots.yaml:3: vram.size is given twice in this file (also at dots.yaml:1)");
  // The same key in two mappings, or in two files, is fine (a later file overrides).
  EXPECT_NO_THROW(c.load_yaml_text("a: {size: 1}\nb: {size: 1}\n", "ok.yaml"));
  EXPECT_NO_THROW(c.load_yaml_text("a: {size: 2}\n", "later.yaml"));
}

// List parameters (compute.config_files): a YAML sequence in a file, flow or block, arrives as
// its items in order; --set takes "[a, b]" or "a,b"; the later source replaces the whole list; a
// dump writes a flow sequence that loads back to the same items.
using strings = std::vector<std::string>;

TEST(config, list_params_read_yaml_sequences_in_order) {
  gpuvp::testing::fresh_simulation();
  auto& c = config::global();
  c.load_yaml_text("l:\n  flow: [b.config, a.config, \"x,y\"]\n  block:\n    - one\n    - two words\n", "a.yaml");
  param<strings> flow("l.flow", {}, "f");
  param<strings> block("l.block", {}, "b");
  param<strings> unset("l.unset", {"d"}, "u");
  EXPECT_EQ(flow.get(), (strings{"b.config", "a.config", "x,y"}));  // a comma inside an item stays
  EXPECT_EQ(block.get(), (strings{"one", "two words"}));
  EXPECT_EQ(unset.get(), (strings{"d"}));
  EXPECT_NO_THROW(c.check_unused());  // the items are claimed
}

TEST(config, list_params_from_set_and_the_later_source_replaces_the_list) {
  gpuvp::testing::fresh_simulation();
  auto& c = config::global();
  c.load_yaml_text("l:\n  a: [x, y, z]\n  b: [x, y, z]\n  c: scalar\n  d: [x, y, z]\n", "first.yaml");
  c.apply_override("l.a=p,q");                                     // a value replaces a sequence
  c.load_yaml_text("l:\n  b: [m]\n  c: [n, o]\n", "second.yaml");  // a shorter one, and over a value
  c.apply_override("l.d=[ 'u v' , w ]");
  param<strings> a("l.a", {}, "a"), b("l.b", {}, "b"), cc("l.c", {}, "c"), d("l.d", {}, "d");
  EXPECT_EQ(a.get(), (strings{"p", "q"}));
  EXPECT_EQ(b.get(), (strings{"m"}));
  EXPECT_EQ(cc.get(), (strings{"n", "o"}));
  EXPECT_EQ(d.get(), (strings{"u v", "w"}));
  EXPECT_NO_THROW(c.check_unused());
}

TEST(config, list_params_dump_as_flow_sequences_that_load_back) {
  gpuvp::testing::fresh_simulation();
  config::global().load_yaml_text("l:\n  files: [a.config, \"has: colon\", \"null\"]\n", "a.yaml");
  { param<strings> files("l.files", {}, "files"), none("l.none", {}, "none"); }
  const std::string dump = config::global().dump_yaml(false);
  EXPECT_NE(dump.find("none: []"), std::string::npos) << dump;
  gpuvp::testing::fresh_simulation();
  config::global().load_yaml_text(dump, "dump");
  param<strings> files("l.files", {"z"}, "files"), none("l.none", {"z"}, "none");
  EXPECT_EQ(files.get(), (strings{"a.config", "has: colon", "null"}));
  EXPECT_EQ(none.get(), strings{});
}

TEST(config, a_list_item_that_is_no_plain_value_names_the_key) {
  gpuvp::testing::fresh_simulation();
  config::global().apply_override("l.files=[a, [b]]");
  try {
    param<strings> files("l.files", {}, "files");
    FAIL() << "accepted";
  } catch (const config_error& e) {
    EXPECT_NE(std::string(e.what()).find("--set l.files=[a, [b]]: l.files: '[a, [b]]' is not a valid list"), std::string::npos) << e.what();
  }
}
