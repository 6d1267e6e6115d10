// SPDX-License-Identifier: Apache-2.0
#include "engines.h"

namespace gpuvp::pfifo {

bool m2mf_engine::access(bool write, unsigned ch, uint32_t obj, uint32_t bind, uint64_t off, void* data, unsigned len, uint64_t& t) {
  if (gf100_) return bus_.vm(write, ch, off, data, len, as_, t);
  return bus_.dma(write, ch, obj, off, data, len, as_, t, bind);
}

uint64_t m2mf_engine::execute(unsigned ch, unsigned subc, uint32_t mthd, uint32_t param, uint64_t start) {
  state& s = channel_state(ch);
  switch (mthd) {
    case 0x104:
      s.notify = param;
      s.notify_armed = true;
      break;
    case 0x180:
      s.dma_notify = param;
      ++s.bind_notify;
      break;
    case 0x184:
      s.dma_in = param;
      ++s.bind_in;
      break;
    case 0x188:
      s.dma_out = param;
      ++s.bind_out;
      break;
    case 0x238:
      s.offset_in = (s.offset_in & 0xffffffffull) | uint64_t(param & 0xff) << 32;
      break;
    case 0x23c:
      s.offset_out = (s.offset_out & 0xffffffffull) | uint64_t(param & 0xff) << 32;
      break;
    case 0x30c:
      s.offset_in = (s.offset_in & ~0xffffffffull) | param;
      break;
    case 0x310:
      s.offset_out = (s.offset_out & ~0xffffffffull) | param;
      break;
    case 0x314:
      s.pitch_in = param;
      break;
    case 0x318:
      s.pitch_out = param;
      break;
    case 0x31c:
      s.line_length = param;
      break;
    case 0x320:
      s.line_count = param;
      break;
    case 0x324:
      s.format = param;
      break;
    case 0x328: {
      uint64_t t = start;
      // Trace: arrows from this method's span (1 ns after each access's start) to the accesses.
      if (flow) bus_.flow_source = [this](uint64_t at) { return flow(at + 1000); };
      std::vector<uint8_t> line(s.line_length);
      bool ok = true;
      for (uint32_t i = 0; i < s.line_count && ok; ++i) {
        ok = s.line_length == 0 ||
             (access(false, ch, s.dma_in, s.bind_in, s.offset_in + uint64_t(i) * s.pitch_in, line.data(), s.line_length, t) &&
              access(true, ch, s.dma_out, s.bind_out, s.offset_out + uint64_t(i) * s.pitch_out, line.data(), s.line_length, t));
        if (ok) bytes_copied += s.line_length;
      }
      if (!ok) ++faults;
      ++copies;
      t += (uint64_t(s.line_length) * s.line_count * 1000) / (bytes_per_ns ? bytes_per_ns : 1);
      if (s.notify_armed) {
        // Notifier: 64-bit timestamp (ns), then the return value 0 and the status (0 done, 1 fault).
        struct {
          uint64_t ts;
          uint32_t ret, status;
        } n{t / 1000, 0, ok ? 0u : 1u};
        if (access(true, ch, s.dma_notify, s.bind_notify, 0, &n, 16, t)) ++notifies;
        s.notify_armed = false;
      }
      bus_.flow_source = nullptr;
      return t - start + method_cost_ps;
    }
    default:
      break;  // OBJECT (0) and other methods: accepted, no modelled effect
  }
  return method_cost_ps;
}

}  // namespace gpuvp::pfifo
