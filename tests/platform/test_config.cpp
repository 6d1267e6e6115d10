// Configuration: number/time parsing, YAML with file:line errors, precedence, dump round trip.
#include <fstream>
#include <gtest/gtest.h>
#include "gpuvp/config.h"
#include "testing.h"

using namespace gpuvp;
using sc_core::sc_time;
using sc_core::SC_NS;

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
