// SPDX-License-Identifier: Apache-2.0
// bad_slave: an AXI4 slave that answers with the wrong ID on purpose (tests/rtl_bridge).
// Plusarg +bad_slave_mode=N: 0 correct IDs; 1 BID = AWID + 1 (rule bid); 2 RID = ARID + 1 (rule rid).
// Reads return the address of the beat as data; writes are dropped. One burst at a time.
module bad_slave (
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
  output logic        s_axi_rlast
);
  int unsigned mode;
  initial if ($value$plusargs("bad_slave_mode=%d", mode) == 0) mode = 0;
  logic w_active, r_active;
  logic [3:0] wid, rid;
  logic [7:0] rlen, rcnt;
  logic [63:0] raddr;
  assign s_axi_awready = !w_active && !s_axi_bvalid;
  assign s_axi_wready = w_active;
  assign s_axi_bid = mode == 1 ? wid + 1 : wid;
  assign s_axi_bresp = 2'b00;
  assign s_axi_arready = !r_active;
  assign s_axi_rvalid = r_active;
  assign s_axi_rid = mode == 2 ? rid + 1 : rid;
  assign s_axi_rdata = raddr;
  assign s_axi_rresp = 2'b00;
  assign s_axi_rlast = rcnt == rlen;
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      w_active <= 0; r_active <= 0; s_axi_bvalid <= 0; wid <= 0; rid <= 0; rlen <= 0; rcnt <= 0; raddr <= 0;
    end else begin
      if (s_axi_awvalid && s_axi_awready) begin w_active <= 1; wid <= s_axi_awid; end
      if (s_axi_wvalid && s_axi_wready && s_axi_wlast) begin w_active <= 0; s_axi_bvalid <= 1; end
      if (s_axi_bvalid && s_axi_bready) s_axi_bvalid <= 0;
      if (s_axi_arvalid && s_axi_arready) begin
        r_active <= 1; rid <= s_axi_arid; rlen <= s_axi_arlen; rcnt <= 0; raddr <= s_axi_araddr & ~64'h7;
      end
      if (s_axi_rvalid && s_axi_rready) begin
        rcnt <= rcnt + 1; raddr <= raddr + 8;
        if (rcnt == rlen) r_active <= 0;
      end
    end
  end
endmodule
