// SPDX-License-Identifier: Apache-2.0
// copy_engine: an AXI4 master DMA copy engine with AXI4-Lite registers (gpuvp's own RTL).
//
// Registers (AXI4-Lite, 32-bit, byte strobes honoured), the same map as the TLM model
// (models/copy_engine/copy_engine.h):
//   0x00 SRC_LO   0x04 SRC_HI    source byte address
//   0x08 DST_LO   0x0C DST_HI    destination byte address
//   0x10 LEN                     bytes to copy
//   0x14 CTRL     bit0 GO (write 1 starts a copy when idle, reads 0), bit1 IRQ_EN
//   0x18 STATUS   bit0 BUSY (ro), bit1 DONE (w1c), bit2 ERROR (w1c: a memory response was an error)
//   0x1C ID       0x434F5059 ("COPY")
// irq = (DONE | ERROR) & IRQ_EN while idle (an error is signalled once the copy stopped), a level.
//
// The copy proceeds in chunks: a chunk is as long as possible such that neither its read nor its
// write burst has more than MAX_BEATS beats of 8 bytes or crosses a 4 KiB boundary. Each chunk is
// one INCR read burst (ARADDR = the source address, unaligned allowed), then one INCR write burst
// (AWADDR = the destination address, partial first/last beats strobed), then the write response.
// One transaction is outstanding at a time.
//
// Plusarg +copy_inject_bug: the first byte of the second write burst since reset is inverted (a
// deliberate bug for the lock-step scoreboard's test).
module copy_engine #(
  parameter int MAX_BEATS = 16
) (
  input  logic        clk,
  input  logic        rst_n,
  // AXI4-Lite slave: registers
  input  logic        s_axil_awvalid,
  output logic        s_axil_awready,
  input  logic [31:0] s_axil_awaddr,
  input  logic        s_axil_wvalid,
  output logic        s_axil_wready,
  input  logic [31:0] s_axil_wdata,
  input  logic [3:0]  s_axil_wstrb,
  output logic        s_axil_bvalid,
  input  logic        s_axil_bready,
  output logic [1:0]  s_axil_bresp,
  input  logic        s_axil_arvalid,
  output logic        s_axil_arready,
  input  logic [31:0] s_axil_araddr,
  output logic        s_axil_rvalid,
  input  logic        s_axil_rready,
  output logic [31:0] s_axil_rdata,
  output logic [1:0]  s_axil_rresp,
  // AXI4 master: memory (64-bit data)
  output logic        m_axi_awvalid,
  input  logic        m_axi_awready,
  output logic [3:0]  m_axi_awid,
  output logic [63:0] m_axi_awaddr,
  output logic [7:0]  m_axi_awlen,
  output logic [2:0]  m_axi_awsize,
  output logic [1:0]  m_axi_awburst,
  output logic        m_axi_wvalid,
  input  logic        m_axi_wready,
  output logic [63:0] m_axi_wdata,
  output logic [7:0]  m_axi_wstrb,
  output logic        m_axi_wlast,
  input  logic        m_axi_bvalid,
  output logic        m_axi_bready,
  input  logic [3:0]  m_axi_bid,
  input  logic [1:0]  m_axi_bresp,
  output logic        m_axi_arvalid,
  input  logic        m_axi_arready,
  output logic [3:0]  m_axi_arid,
  output logic [63:0] m_axi_araddr,
  output logic [7:0]  m_axi_arlen,
  output logic [2:0]  m_axi_arsize,
  output logic [1:0]  m_axi_arburst,
  input  logic        m_axi_rvalid,
  output logic        m_axi_rready,
  input  logic [3:0]  m_axi_rid,
  input  logic [63:0] m_axi_rdata,
  input  logic [1:0]  m_axi_rresp,
  input  logic        m_axi_rlast,
  // side band
  output logic        irq,
  output logic        busy
);
  localparam int MAXB = MAX_BEATS * 8;
  typedef enum logic [2:0] {IDLE, CALC, AR, R, AW, W, B} state_t;

  logic [63:0] src, dst, cur_src, cur_dst;
  logic [31:0] len, rem, chunk;
  logic        irq_en, done, err;
  state_t      state;
  logic [7:0]  rbeats, wbeats, beat;
  logic [31:0] bursts;  // write bursts since reset
  logic [7:0]  buffer[0:255];
  logic        inject_bug;

  initial inject_bug = $test$plusargs("copy_inject_bug") != 0;

  // ---- AXI4-Lite registers: AW and W are taken together; one response at a time.
  wire wr_go = s_axil_awvalid && s_axil_wvalid && !s_axil_bvalid;
  assign s_axil_awready = wr_go;
  assign s_axil_wready  = wr_go;
  assign s_axil_bresp   = 2'b00;
  assign s_axil_arready = !s_axil_rvalid;
  assign s_axil_rresp   = 2'b00;

  function automatic logic [31:0] merge(input logic [31:0] old, input logic [31:0] d, input logic [3:0] strb);
    for (int i = 0; i < 4; i++) if (strb[i]) old[i*8 +: 8] = d[i*8 +: 8];
    return old;
  endfunction

  function automatic logic [31:0] reg_value(input logic [7:0] a);
    case (a)
      8'h00: return src[31:0];
      8'h04: return src[63:32];
      8'h08: return dst[31:0];
      8'h0C: return dst[63:32];
      8'h10: return len;
      8'h14: return {30'b0, irq_en, 1'b0};
      8'h18: return {29'b0, err, done, state != IDLE};
      8'h1C: return 32'h434F5059;
      default: return 32'h0;
    endcase
  endfunction

  // Chunk length: the longest run that keeps both bursts within MAX_BEATS beats and one 4 KiB page.
  function automatic logic [31:0] min32(input logic [31:0] a, input logic [31:0] b);
    return a < b ? a : b;
  endfunction
  wire [31:0] lim_src = min32(MAXB - {29'b0, cur_src[2:0]}, 32'd4096 - {20'b0, cur_src[11:0]});
  wire [31:0] lim_dst = min32(MAXB - {29'b0, cur_dst[2:0]}, 32'd4096 - {20'b0, cur_dst[11:0]});
  wire [31:0] next_chunk = min32(rem, min32(lim_src, lim_dst));

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      src <= 0; dst <= 0; len <= 0; irq_en <= 0; done <= 0; err <= 0;
      state <= IDLE; s_axil_bvalid <= 0; s_axil_rvalid <= 0; s_axil_rdata <= 0;
      bursts <= 0; beat <= 0; rem <= 0; chunk <= 0; rbeats <= 0; wbeats <= 0;
      cur_src <= 0; cur_dst <= 0;
    end else begin
      if (s_axil_bvalid && s_axil_bready) s_axil_bvalid <= 0;
      if (s_axil_rvalid && s_axil_rready) s_axil_rvalid <= 0;
      if (s_axil_arvalid && s_axil_arready) begin
        s_axil_rdata <= reg_value(s_axil_araddr[7:0]);
        s_axil_rvalid <= 1;
      end
      if (wr_go) begin
        s_axil_bvalid <= 1;
        case (s_axil_awaddr[7:0])
          8'h00: src[31:0]  <= merge(src[31:0], s_axil_wdata, s_axil_wstrb);
          8'h04: src[63:32] <= merge(src[63:32], s_axil_wdata, s_axil_wstrb);
          8'h08: dst[31:0]  <= merge(dst[31:0], s_axil_wdata, s_axil_wstrb);
          8'h0C: dst[63:32] <= merge(dst[63:32], s_axil_wdata, s_axil_wstrb);
          8'h10: len <= merge(len, s_axil_wdata, s_axil_wstrb);
          8'h14: if (s_axil_wstrb[0]) begin
                   irq_en <= s_axil_wdata[1];
                   if (s_axil_wdata[0] && state == IDLE) begin
                     cur_src <= src; cur_dst <= dst; rem <= len; state <= CALC;
                   end
                 end
          8'h18: if (s_axil_wstrb[0]) begin
                   if (s_axil_wdata[1]) done <= 0;
                   if (s_axil_wdata[2]) err <= 0;
                 end
          default: ;
        endcase
      end
      // ---- the copy
      case (state)
        CALC: if (rem == 0) begin
                done <= 1; state <= IDLE;
              end else begin
                chunk  <= next_chunk;
                rbeats <= 8'((32'(cur_src[2:0]) + next_chunk + 7) >> 3);
                wbeats <= 8'((32'(cur_dst[2:0]) + next_chunk + 7) >> 3);
                state  <= AR;
              end
        AR: if (m_axi_arready) begin beat <= 0; state <= R; end
        R: if (m_axi_rvalid) begin
             for (int l = 0; l < 8; l++) buffer[8'({beat, 3'b0}) + 8'(l)] <= m_axi_rdata[l*8 +: 8];
             if (m_axi_rresp != 0) err <= 1;
             beat <= beat + 1;
             if (beat == rbeats - 1) state <= AW;
           end
        AW: if (m_axi_awready) begin beat <= 0; state <= W; end
        W: if (m_axi_wready) begin
             beat <= beat + 1;
             if (beat == wbeats - 1) state <= B;
           end
        B: if (m_axi_bvalid) begin
             if (m_axi_bresp != 0) err <= 1;
             bursts <= bursts + 1;
             cur_src <= cur_src + 64'(chunk);
             cur_dst <= cur_dst + 64'(chunk);
             rem <= rem - chunk;
             state <= (err || m_axi_bresp != 0) ? IDLE : CALC;
           end
        default: ;
      endcase
    end
  end

  // ---- AXI4 master outputs
  assign m_axi_arvalid = state == AR;
  assign m_axi_arid    = 4'd0;
  assign m_axi_araddr  = cur_src;
  assign m_axi_arlen   = rbeats - 1;
  assign m_axi_arsize  = 3'd3;
  assign m_axi_arburst = 2'b01;
  assign m_axi_rready  = state == R;
  assign m_axi_awvalid = state == AW;
  assign m_axi_awid    = 4'd0;
  assign m_axi_awaddr  = cur_dst;
  assign m_axi_awlen   = wbeats - 1;
  assign m_axi_awsize  = 3'd3;
  assign m_axi_awburst = 2'b01;
  assign m_axi_wvalid  = state == W;
  assign m_axi_wlast   = beat == wbeats - 1;
  assign m_axi_bready  = state == B;

  // Write data: byte k of the write burst (from the aligned-down destination) is chunk byte
  // k - dst[2:0], which sits in the buffer at src[2:0] + that index.
  always_comb begin
    m_axi_wdata = 64'b0;
    m_axi_wstrb = 8'b0;
    for (int l = 0; l < 8; l++) begin
      automatic int k = int'(beat) * 8 + l;
      automatic int i = k - int'(cur_dst[2:0]);
      if (i >= 0 && i < int'(chunk)) begin
        m_axi_wstrb[l] = 1'b1;
        m_axi_wdata[l*8 +: 8] = buffer[8'(i + int'(cur_src[2:0]))];
        if (inject_bug && bursts == 1 && i == 0) m_axi_wdata[l*8 +: 8] = ~buffer[8'(i + int'(cur_src[2:0]))];
      end
    end
  end

  assign busy = state != IDLE;
  assign irq  = (done || err) && irq_en && state == IDLE;  // only once the copy has stopped
endmodule
