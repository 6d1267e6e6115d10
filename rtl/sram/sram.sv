// SPDX-License-Identifier: Apache-2.0
// sram: an AXI4 slave memory (64-bit data) with wait states (gpuvp's own RTL).
//
// 2^ADDR_BITS bytes, mirrored over the whole address range. One write burst and one read burst
// are served at a time (the write and read channels are independent); responses carry the
// request's ID. Bursts: FIXED, INCR and WRAP, any AxSIZE up to 8 bytes; byte strobes honoured.
// Wait states: the first read beat comes WAIT cycles after the AR handshake, and the write
// response WAIT cycles after the last W beat. WAIT comes from the plusarg +sram_wait_states=N
// (default 2).
module sram #(
  parameter int ADDR_BITS = 16
) (
  input  logic        clk,
  input  logic        rst_n,
  input  logic        s_axi_awvalid,
  output logic        s_axi_awready,
  input  logic [3:0]  s_axi_awid,
  input  logic [63:0] s_axi_awaddr,
  input  logic [7:0]  s_axi_awlen,
  input  logic [2:0]  s_axi_awsize,
  input  logic [1:0]  s_axi_awburst,
  input  logic        s_axi_wvalid,
  output logic        s_axi_wready,
  input  logic [63:0] s_axi_wdata,
  input  logic [7:0]  s_axi_wstrb,
  input  logic        s_axi_wlast,
  output logic        s_axi_bvalid,
  input  logic        s_axi_bready,
  output logic [3:0]  s_axi_bid,
  output logic [1:0]  s_axi_bresp,
  input  logic        s_axi_arvalid,
  output logic        s_axi_arready,
  input  logic [3:0]  s_axi_arid,
  input  logic [63:0] s_axi_araddr,
  input  logic [7:0]  s_axi_arlen,
  input  logic [2:0]  s_axi_arsize,
  input  logic [1:0]  s_axi_arburst,
  output logic        s_axi_rvalid,
  input  logic        s_axi_rready,
  output logic [3:0]  s_axi_rid,
  output logic [63:0] s_axi_rdata,
  output logic [1:0]  s_axi_rresp,
  output logic        s_axi_rlast,
  output logic        busy
);
  logic [63:0] mem[0:(1 << (ADDR_BITS - 3)) - 1];
  int unsigned wait_states;
  initial if ($value$plusargs("sram_wait_states=%d", wait_states) == 0) wait_states = 2;

  // Address of the beat after `a` (AXI4 A3.4.1): FIXED stays, INCR steps from the aligned
  // address, WRAP steps and wraps at the (len+1)*size boundary.
  function automatic logic [63:0] next_addr(input logic [63:0] a, input logic [2:0] size,
                                            input logic [7:0] len, input logic [1:0] burst);
    logic [63:0] bytes = 64'd1 << size;
    logic [63:0] aligned = a & ~(bytes - 1);
    logic [63:0] span = bytes * (64'(len) + 1);
    logic [63:0] lower = a & ~(span - 1);
    if (burst == 2'b00) return a;
    if (burst == 2'b10 && aligned + bytes >= lower + span) return lower;
    return aligned + bytes;
  endfunction

  logic        w_active, b_pending, r_active;
  logic [63:0] waddr, raddr;
  logic [3:0]  wid, rid;
  logic [7:0]  wlen, rlen, rcnt;
  logic [2:0]  wsize, rsize;
  logic [1:0]  wburst, rburst;
  int unsigned bwait, rwait;

  wire [ADDR_BITS-4:0] widx = waddr[ADDR_BITS-1:3];
  wire [ADDR_BITS-4:0] ridx = raddr[ADDR_BITS-1:3];

  assign s_axi_awready = !w_active && !b_pending;
  assign s_axi_wready  = w_active;
  assign s_axi_bvalid  = b_pending && bwait == 0;
  assign s_axi_bid     = wid;
  assign s_axi_bresp   = 2'b00;
  assign s_axi_arready = !r_active;
  assign s_axi_rvalid  = r_active && rwait == 0;
  assign s_axi_rid     = rid;
  assign s_axi_rdata   = mem[ridx];
  assign s_axi_rresp   = 2'b00;
  assign s_axi_rlast   = rcnt == rlen;
  assign busy = w_active || b_pending || r_active;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      w_active <= 0; b_pending <= 0; r_active <= 0; bwait <= 0; rwait <= 0; rcnt <= 0;
      waddr <= 0; raddr <= 0; wid <= 0; rid <= 0; wlen <= 0; rlen <= 0;
      wsize <= 0; rsize <= 0; wburst <= 0; rburst <= 0;
    end else begin
      if (s_axi_awvalid && s_axi_awready) begin
        w_active <= 1; wid <= s_axi_awid; waddr <= s_axi_awaddr; wlen <= s_axi_awlen;
        wsize <= s_axi_awsize; wburst <= s_axi_awburst;
      end
      if (s_axi_wvalid && s_axi_wready) begin
        for (int l = 0; l < 8; l++) if (s_axi_wstrb[l]) mem[widx][l*8 +: 8] <= s_axi_wdata[l*8 +: 8];
        waddr <= next_addr(waddr, wsize, wlen, wburst);
        if (s_axi_wlast) begin w_active <= 0; b_pending <= 1; bwait <= wait_states; end
      end
      if (b_pending && bwait != 0) bwait <= bwait - 1;
      if (s_axi_bvalid && s_axi_bready) b_pending <= 0;
      if (s_axi_arvalid && s_axi_arready) begin
        r_active <= 1; rid <= s_axi_arid; raddr <= s_axi_araddr; rlen <= s_axi_arlen;
        rsize <= s_axi_arsize; rburst <= s_axi_arburst; rcnt <= 0; rwait <= wait_states;
      end
      if (r_active && rwait != 0) rwait <= rwait - 1;
      if (s_axi_rvalid && s_axi_rready) begin
        raddr <= next_addr(raddr, rsize, rlen, rburst);
        rcnt <= rcnt + 1;
        if (rcnt == rlen) r_active <= 0;
      end
    end
  end
endmodule
