// SPDX-License-Identifier: Apache-2.0
// The .pb workload format's run-time features (docs/formats/pushbuffer.md): expectations after a
// timeout, error word/position, USERD/RAMFC state, big-endian push blocks, wrapping IB rings and
// hand-made IB entries, SYSRAM pushbuffers, a channel that keeps faulting, and the parse errors.
// Expected values are worked out by hand in the comments (default layout: channel 0's pushbuffer
// at VRAM 0x2000000, `inc 0 REF_CNT V` = header 0x00040050 then V).
#include <algorithm>
#include <sstream>
#include "gpuvp/config.h"
#include "gpuvp/host.h"
#include "gpuvp/platform.h"
#include "gpuvp/stats.h"
#include "gpuvp/trace.h"
#include "pb_reject.h"
#include "pfifo.h"
#include "testing.h"
#include "workload.h"

using namespace gpuvp;

namespace {

class pb_run : public gpuvp::testing::sim_test {
 protected:
  void configure(const std::string& extra = "") {
    auto& cfg = config::global();
    cfg.load_yaml_text(default_platform_yaml(), "embedded");
    cfg.load_yaml_text(registry::global().find_workload_kind("x.pb")->platform_yaml, "overlay");
    if (!extra.empty()) cfg.load_yaml_text(extra, "test");
  }
  // Runs workload text for `limit` of simulated time; returns check()'s failure count.
  int run(platform& p, const std::string& text, std::string& msgs, sc_core::sc_time limit = sc_core::sc_time(20, sc_core::SC_MS)) {
    auto w = pfifo::parse_pb_workload(text, "t.pb");
    p.host_initiator().run_workload(w.get());
    sc_core::sc_start(limit);
    std::ostringstream os;
    const int failed = w->check(p, os);
    msgs = os.str();
    return failed;
  }
};

}  // namespace

// A jump to itself at 0x2000008 spins: every step costs time, so the workload timeout (20 us)
// fires and names channel 0; its expectations are still checked (ref 7 holds, ref 8 does not).
TEST_F(pb_run, SpinningChannelTimesOutNamingItAndExpectationsStillChecked) {
  configure();
  platform p;
  std::string msgs;
  const int failed = run(p,
                         "gen G84\ntimeout 20 us\nchannel 0 dma\npush 0\n  inc 0 REF_CNT 7\n  jump 0x2000008\nend\n"
                         "expect ref 0 7\nexpect ref 0 8\n",
                         msgs, sc_core::sc_time(100, sc_core::SC_US));
  EXPECT_EQ(failed, 2) << msgs;
  EXPECT_NE(msgs.find("t.pb: still busy after the workload timeout of 20 us: channel 0 (CHAN_STATUS 0x1, DMA_GET 0x2000008)"),
            std::string::npos)
      << msgs;
  EXPECT_NE(msgs.find("t.pb:9: expect ref 0 = 0x8, got 0x7"), std::string::npos) << msgs;
  EXPECT_EQ(msgs.find("t.pb:8:"), std::string::npos) << msgs;
}

// DMA limit 0x2000008: the second command's two words (0x2000008, 0x200000c) fault before
// dma_get advances; each acknowledge resumes past its word, so DMA_GET ends at DMA_PUT =
// 0x2000010 (USERD 0x44, RAMFC DMA_GET 0x10 after the unload) and REF stays 1 (RAMFC 0x74).
// The latched word is rsvd_shadow, the last header read: 0x00040050.
TEST_F(pb_run, MemFaultAtTheLimitIsAcknowledgedAndTheChannelFinishes) {
  configure();
  platform p;
  std::string msgs;
  EXPECT_EQ(run(p,
                "gen G84\nchannel 0 dma limit 0x2000008\npush 0\n  inc 0 REF_CNT 1\n  inc 0 REF_CNT 2\nend\n"
                "expect error 0 DMA_PUSHER MEM_FAULT word 0x40050 at 0x2000008\n"
                "expect error 0 DMA_PUSHER MEM_FAULT at 0x200000c\nexpect ref 0 1\n"
                "expect userd 0 0x44 0x2000010\nexpect ramfc 0 0x10 0x2000010\nexpect ramfc 0 0x74 1\n",
                msgs),
            0)
      << msgs;
}

// The offending word and position: INVALID_CMD 0xdeadbeef at 0x2000004 (after a nop). A wrong
// position fails, names the error that was raised, and leaves that error unexpected.
TEST_F(pb_run, ExpectedErrorWordAndPosition) {
  configure();
  const std::string body = "gen G84\nchannel 0 dma\npush 0\n  nop\n  word 0xdeadbeef\n  inc 0 REF_CNT 3\nend\nexpect ref 0 3\n";
  {
    platform p;
    std::string msgs;
    EXPECT_EQ(run(p, body + "expect error 0 DMA_PUSHER INVALID_CMD word 0xdeadbeef at 0x2000004\n", msgs), 0) << msgs;
  }
  gpuvp::testing::fresh_simulation();
  configure();
  platform p;
  std::string msgs;
  EXPECT_EQ(run(p, body + "expect error 0 DMA_PUSHER INVALID_CMD at 0x2000008\n", msgs), 2) << msgs;
  EXPECT_NE(msgs.find("t.pb:9: expected DMA_PUSHER(INVALID_CMD) on channel 0 at 0x2000008 was not raised; INVALID_CMD word "
                      "0xdeadbeef at 0x2000004 was"),
            std::string::npos)
      << msgs;
}

// NV11 big-endian channel: the push block is written byte-swapped, which the pusher swaps back
// (REF 5). The record keeps DMA_FETCH as written: 0x86078 | bit 31 (nv10 layout, +0x14).
TEST_F(pb_run, BigEndianPushBlockNv11) {
  configure("pfifo:\n  generation: NV11\n");
  platform p;
  std::string msgs;
  EXPECT_EQ(
      run(p, "gen NV11\nchannel 0 dma big_endian\npush 0\n  inc 0 REF_CNT 5\nend\nexpect ref 0 5\nexpect ramfc 0 0x14 0x80086078\n", msgs),
      0)
      << msgs;
}

// G84 with the global big-endian switch: pushbuffer words and IB entries in PFIFO endianness.
TEST_F(pb_run, BigEndianPfifoG84IbChannel) {
  configure("pfifo:\n  big_endian: true\n");
  platform p;
  std::string msgs;
  EXPECT_EQ(run(p, "gen G84\nchannel 0 ib\npush 0\n  inc 0 REF_CNT 6\nend\nexpect ref 0 6\n", msgs), 0) << msgs;
}

// Order 2 (4 slots), ibstart 2: entries in slots 2, 3 and 0 (wrapped); the third is hand-made and
// runs the first block again (address 0x2000000, length 2 << 10 = 0x800), so REF ends at 1 and
// IB_PUT = IB_GET = (2 + 3) & 3 = 1 (USERD 0x88, RAMFC IB_GET 0x04).
TEST_F(pb_run, IbRingWrapsWithAHandMadeEntry) {
  configure();
  platform p;
  std::string msgs;
  EXPECT_EQ(run(p,
                "gen G84\nchannel 0 ib order 2 ibstart 2\npush 0\n  inc 0 REF_CNT 1\nend\npush 0\n  inc 0 REF_CNT 2\nend\n"
                "ibentry 0 0x2000000 0x800\nexpect ref 0 1\nexpect userd 0 0x88 1\nexpect ramfc 0 0x04 1\n",
                msgs),
            0)
      << msgs;
}

// A hand-made zero-length entry is IB_EMPTY; its word is the entry's second word (0).
TEST_F(pb_run, HandMadeEmptyIbEntry) {
  configure();
  platform p;
  std::string msgs;
  EXPECT_EQ(run(p, "gen G84\nchannel 0 ib\nibentry 0 0x2000000 0\nexpect error 0 DMA_PUSHER IB_EMPTY word 0 at 0x2030000\n", msgs), 0)
      << msgs;
}

// A pushbuffer in SYSRAM at 0x100000: the words are there (header 0x00040050) and run (REF 4).
TEST_F(pb_run, PushbufferInSysram) {
  configure();
  platform p;
  std::string msgs;
  EXPECT_EQ(
      run(p, "gen G84\nchannel 0 dma sysram pb 0x100000\npush 0\n  inc 0 REF_CNT 4\nend\nexpect ref 0 4\nexpect mem 0x100000 0x40050\n",
          msgs),
      0)
      << msgs;
}

// Limit at the pushbuffer start and 3000 nops: every word faults once (3000 MEM_FAULTs, each
// acknowledged). The workload records the first 1024, the report stays short.
TEST_F(pb_run, KeepsFaultingWithABoundedReport) {
  configure();
  platform p;
  std::string text = "gen G84\nchannel 0 dma limit 0x2000000\npush 0\n";
  for (int i = 0; i < 3000; ++i) text += "  nop\n";
  text += "end\n";
  std::string msgs;
  EXPECT_EQ(run(p, text, msgs, sc_core::sc_time(50, sc_core::SC_MS)), 1024 + 1);
  EXPECT_NE(msgs.find("t.pb: ... and 1004 more unexpected errors"), std::string::npos) << msgs;
  EXPECT_NE(msgs.find("t.pb: 1976 more errors after the first 1024 (not recorded)"), std::string::npos) << msgs;
  EXPECT_EQ(std::count(msgs.begin(), msgs.end(), '\n'), 22) << msgs;
  auto* pf = p.find_as<gpuvp::pfifo::pfifo>("pfifo");
  EXPECT_EQ(pf->core().errors_raised, 3000u);
}

TEST_F(pb_run, NewStatementsRejectBadInput) {
  const auto bad = expect_pb_rejected;
  bad("gen G84\nchannel 8 dma\n", "w.pb:2: channel 8 is not below pfifo.channels (8)");
  bad("gen G84\nchannel 0 ib order 2 ibstart 4\n", "w.pb:2: ibstart 4 is not below 2^2");
  bad("gen G84\nchannel 0 dma ibstart 1\n", "w.pb:2: ibstart needs an IB channel on G80:GF100");
  bad("gen GF100\nchannel 0 ib ibstart 1\n", "w.pb:2: ibstart needs an IB channel on G80:GF100");
  bad("gen G84\nchannel 0 dma\nibentry 0 1 2\n", "w.pb:3: channel 0 is not a declared IB channel");
  bad("gen G84\nchannel 0 ib\nibentry 0 0x100000000 2\n", "w.pb:3: IB entry words must fit in 32 bits");
  bad("gen GF100\nchannel 0 ib\nexpect ramfc 0 0 0\n", "w.pb:3: expect ramfc needs NV4:GF100");
  bad("gen G84\nchannel 0 ib\nexpect ramfc 0 0x9c 0\n", "w.pb:3: offset 0x9c is not below the ramfc size 0x9c");
  bad("gen G84\nchannel 0 ib\nexpect userd 0 0x42 0\n", "w.pb:3: offset 0x42 is not 4-byte aligned");
  bad("gen G84\nexpect userd 1 0x44 0\n", "w.pb:2: channel 1 is not declared");
  bad("gen G84\nchannel 0 dma\nexpect error 0 DMA_PUSHER MEM_FAULT bogus 1\n", "w.pb:3: usage: expect error CHANNEL TYPE");
}

// Issue 10: the shared time and number parsers throw std::invalid_argument/std::out_of_range;
// the .pb parser still names file:line (it used to pass only runtime_error through its catch).
TEST_F(pb_run, TimeAndNumberErrorsNameFileAndLine) {
  const auto bad = expect_pb_rejected;
  bad("gen G84\ntimeout 3 ib order 2\n", "w.pb:2: timeout: '3 ib order 2': unknown time unit 'ib order 2'");
  bad("gen G84\n\ntimeout us\n", "w.pb:3: timeout: 'us' is not a time");
  bad("gen G84\ntimeout 7200 s\n", "w.pb:2: timeout: '7200 s' is longer than gpuvp's largest time");
  bad("gen G84\ntimeout -1 ns\n", "w.pb:2: timeout: '-1 ns' is not a time");
  bad("gen G84\ntimeout\n", "w.pb:2: 'timeout' needs a time");
}

// A model that keeps failing the same way (here 25 identical warnings, as a channel faulting on
// every word would give) writes the message 10 times (gpuvp/trace.h's repeat_limit), says once
// that it stops, and counts the other 15 in the statistic log.suppressed_lines. Another message
// is still written; debug lines are never limited.
TEST_F(pb_run, RepeatedIdenticalLogLinesAreCountedNotWritten) {
  configure();
  platform p;
  auto& lg = logger::global();
  lg.reset();
  lg.configure("debug");
  std::ostringstream sink;
  lg.set_sink(&sink);
  for (int i = 0; i < 25; ++i) lg.write("pfifo", log_level::warning, "channel 0 faults");
  lg.write("pfifo", log_level::warning, "channel 1 faults");
  for (int i = 0; i < 12; ++i) lg.write("pfifo", log_level::debug, "same debug line");
  const std::string out = sink.str();
  lg.reset();
  size_t same = 0;
  for (size_t at = out.find("warning: pfifo: channel 0 faults"); at != std::string::npos;
       at = out.find("warning: pfifo: channel 0 faults", at + 1))
    ++same;
  EXPECT_EQ(same, 10u) << out;
  EXPECT_NE(out.find("further identical messages are not written, the statistic log.suppressed_lines counts them"), std::string::npos);
  EXPECT_NE(out.find("channel 1 faults"), std::string::npos);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 10 + 1 + 1 + 12) << out;
  lg.set_sink(&sink);
  for (int i = 0; i < 25; ++i) lg.write("pfifo", log_level::warning, "again");
  EXPECT_EQ(stats_registry::global().value("log.suppressed_lines"), 15.0);
  lg.reset();
}
