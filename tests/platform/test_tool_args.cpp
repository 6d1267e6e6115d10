// SPDX-License-Identifier: Apache-2.0
// gpuvp/tool_args.h, the one command-line parser of every gpuvp command and tool: --help on
// stdout (exit 0), a usage error as one line on stderr (exit 2), repeatable options, positional
// arguments, numbers in the project's forms. Expected texts follow the header's contract.
#include <sstream>
#include <gtest/gtest.h>
#include "gpuvp/tool_args.h"

using gpuvp::tool_args;

namespace {
struct outcome {
  int rc;
  std::string out, err;
};

// A tool shaped like pb-asm/afuc-asm/sweep: every kind of option once.
struct demo {
  std::string gen = "G84", out, in, extra, g;
  std::vector<std::string> sets;
  bool verbose = false, ib = false;
  uint64_t base = 7;
  size_t jobs = 3;
  long long latency = 0;
  double limit = 3600;
  std::string worker;
  tool_args args{"demo", "[--gen G] IN [EXTRA] -o OUT", "A demonstration."};
  demo() {
    args.text("gen", gen, "G", "generation")
        .text("output,o", out, "OUT", "output file")
        .text(",g", g, "5|6", "short-only option")
        .texts("set", sets, "K=V", "override")
        .flag(",v", verbose, "verbose")
        .flag("ib", ib, "IB mode")
        .number("base", base, "ADDR", "base address")
        .number("jobs,j", jobs, "N", "jobs", size_t(1), size_t(4096))
        .number("latency", latency, "N", "latency", -1ll, 1ll << 30)
        .real("limit", limit, "S", "limit", 0, 1e7)
        .positional("IN", in, "input")
        .positional("EXTRA", extra, "optional extra", false);
    args.hidden().text("worker", worker, "DIR", "internal");
  }
  outcome parse(std::vector<std::string> a) {
    a.insert(a.begin(), "demo");
    std::vector<char*> argv;
    for (auto& s : a) argv.push_back(s.data());
    std::ostringstream o, e;
    const int rc = args.parse(int(argv.size()), argv.data(), o, e);
    return {rc, o.str(), e.str()};
  }
};

size_t lines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}
}  // namespace

TEST(cli_args, help_prints_the_usage_on_stdout_and_exits_0) {
  for (const char* h : {"--help", "-h"}) {
    demo d;
    auto r = d.parse({h});
    EXPECT_EQ(r.rc, 0);
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(r.out.rfind("usage: gpuvp demo [--gen G] IN [EXTRA] -o OUT\nA demonstration.\n", 0), 0u) << r.out;
    EXPECT_NE(r.out.find("  IN "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("--gen G"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("-o [ --output ] OUT"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("override (repeatable)"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("worker"), std::string::npos) << "a hidden option is listed: " << r.out;
  }
}

TEST(cli_args, values_flags_and_positionals_land_in_their_variables) {
  demo d;
  auto r = d.parse({"--gen", "GF100", "-o", "out.bin", "-v", "--ib", "in.txt", "more", "-g", "6"});
  ASSERT_EQ(r.rc, -1) << r.err;
  EXPECT_EQ(r.out + r.err, "");
  EXPECT_EQ(d.gen, "GF100");
  EXPECT_EQ(d.out, "out.bin");
  EXPECT_EQ(d.g, "6");
  EXPECT_TRUE(d.verbose);
  EXPECT_TRUE(d.ib);
  EXPECT_EQ(d.in, "in.txt");
  EXPECT_EQ(d.extra, "more");
  EXPECT_TRUE(d.args.given("gen"));
  EXPECT_TRUE(d.args.given("o"));  // by the short letter
  EXPECT_TRUE(d.args.given("g"));
  EXPECT_FALSE(d.args.given("base"));
  EXPECT_EQ(d.base, 7u);  // an option not given keeps the tool's default
  EXPECT_EQ(d.jobs, 3u);
}

// A one-letter LONG name (`gpuvp plot --x`) is found by given(), not mistaken for a short -x.
TEST(cli_args, given_finds_a_one_letter_long_option) {
  std::string x, y;
  tool_args a{"plot", "DIR"};
  a.text("x", x, "COLUMN", "x axis").text("y,Y", y, "METRIC", "y axis");
  std::string prog = "plot", opt = "--x", val = "width";
  char* argv[] = {prog.data(), opt.data(), val.data()};
  std::ostringstream o, e;
  ASSERT_EQ(a.parse(3, argv, o, e), -1) << e.str();
  EXPECT_TRUE(a.given("x"));
  EXPECT_EQ(x, "width");
  EXPECT_FALSE(a.given("y"));
  EXPECT_FALSE(a.given("Y"));
}

TEST(cli_args, values_may_follow_an_equals_sign_or_a_short_letter_directly) {
  demo d;
  ASSERT_EQ(d.parse({"--gen=NV50", "-g5", "--output=x", "in"}).rc, -1);
  EXPECT_EQ(d.gen, "NV50");
  EXPECT_EQ(d.g, "5");
  EXPECT_EQ(d.out, "x");
}

TEST(cli_args, a_repeatable_option_accumulates_in_order) {
  demo d;
  ASSERT_EQ(d.parse({"--set", "a=1", "in", "--set", "b=2", "--set", "a=3"}).rc, -1);
  EXPECT_EQ(d.sets, (std::vector<std::string>{"a=1", "b=2", "a=3"}));
}

TEST(cli_args, usage_errors_are_one_line_naming_the_problem_exit_2) {
  const std::string usage = " (usage: gpuvp demo [--gen G] IN [EXTRA] -o OUT)\n";
  struct bad {
    std::vector<std::string> args;
    std::string line;
  };
  const bad cases[] = {
      {{"--no-such-option", "in"}, "unrecognised option '--no-such-option'"},
      {{"--ge", "G84", "in"}, "unrecognised option '--ge'"},  // no abbreviations
      {{"in", "--gen"}, "the required argument for option '--gen' is missing"},
      {{"in", "-g"}, "the required argument for option '-g' is missing"},
      {{"--gen", "G84", "--gen", "G84", "in"}, "option '--gen' cannot be specified more than once"},
      {{"-g", "5", "-g", "6", "in"}, "option '-g' cannot be specified more than once"},
      {{"-v", "-v", "in"}, "option '-v' cannot be specified more than once"},
      {{"-o", "a", "--output", "b", "in"}, "option '--output' cannot be specified more than once"},
      {{}, "missing IN"},
      {{"a", "b", "c"}, "unexpected argument 'c'"},
      {{"--base", "0x1z", "in"}, "--base 0x1z: '0x1z' is not a number"},
      {{"--base", "0x1_0000_0000_0000_0000", "in"},
       "--base 0x1_0000_0000_0000_0000: '0x1_0000_0000_0000_0000' is out of range [0, 18446744073709551615]"},
      {{"-j", "0", "in"}, "--jobs 0: '0' is out of range [1, 4096]"},
      {{"--jobs", "-1", "in"}, "--jobs -1: '-1' is out of range [1, 4096]"},
      {{"--latency", "-2", "in"}, "--latency -2: '-2' is out of range [-1, 1073741824]"},
      {{"--limit", "soon", "in"}, "--limit soon: 'soon' is not a number"},
      {{"--limit", "-1", "in"}, "--limit -1: '-1' is out of range [0, 1e+07]"},
  };
  for (const auto& c : cases) {
    demo d;
    auto r = d.parse(c.args);
    EXPECT_EQ(r.rc, 2) << c.line;
    EXPECT_EQ(r.out, "") << c.line;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_EQ(r.err, "gpuvp demo: " + c.line + usage);
  }
  demo d;  // a problem the tool finds after parsing
  std::ostringstream e;
  EXPECT_EQ(d.args.usage_error("--gen X: unknown generation", e), 2);
  EXPECT_EQ(e.str(), "gpuvp demo: --gen X: unknown generation" + usage);
}

TEST(cli_args, numbers_take_the_project_number_forms) {
  demo d;
  ASSERT_EQ(d.parse({"--base", "0x2_0000_0000", "-j", "0b100", "--latency", "-1", "--limit", "2.5", "in"}).rc, -1);
  EXPECT_EQ(d.base, 0x200000000ull);
  EXPECT_EQ(d.jobs, 4u);
  EXPECT_EQ(d.latency, -1);
  EXPECT_EQ(d.limit, 2.5);
  demo e;
  ASSERT_EQ(e.parse({"--base", "4k", "--jobs", "1_024", "--latency", "1073741824", "in"}).rc, -1);
  EXPECT_EQ(e.base, 4096u);
  EXPECT_EQ(e.jobs, 1024u);
  EXPECT_EQ(e.latency, 1ll << 30);
  EXPECT_EQ(tool_args::to_integer<int8_t>("-128", -128, 127), -128);
  EXPECT_THROW(tool_args::to_integer<int8_t>("-129", -128, 127), std::invalid_argument);
  EXPECT_THROW(tool_args::to_integer<int8_t>("128", -128, 127), std::invalid_argument);
}

TEST(cli_args, a_double_dash_ends_the_options) {
  demo d;
  ASSERT_EQ(d.parse({"-v", "--", "-in-", "--gen"}).rc, -1);
  EXPECT_EQ(d.in, "-in-");
  EXPECT_EQ(d.extra, "--gen");
  EXPECT_EQ(d.gen, "G84");
}

TEST(cli_args, a_hidden_option_is_accepted) {
  demo d;
  ASSERT_EQ(d.parse({"--worker", "dir", "in"}).rc, -1);
  EXPECT_EQ(d.worker, "dir");
}
