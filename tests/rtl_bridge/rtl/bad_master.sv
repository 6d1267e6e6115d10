// SPDX-License-Identifier: Apache-2.0
// bad_master: an AXI4 master that breaks one protocol rule on purpose (tests/rtl_bridge).
// Plusarg +bad_mode=N:
//   0 correct: write 2 beats at 0x1000, then read them back
//   1 valid_held      AWVALID falls after one cycle without AWREADY
//   2 stable_payload  AWADDR moves while AWVALID waits for AWREADY
//   3 wlast           WLAST high on the first of two beats
//   4 4k_boundary     a 2-beat INCR burst of 8 bytes from 0xff8 (ends at 0x1007)
module bad_master (
  input  logic        clk,
  input  logic        rst_n,
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
  output logic        busy
);
  int unsigned mode;
  initial if ($value$plusargs("bad_mode=%d", mode) == 0) mode = 0;
  typedef enum logic [2:0] {START, AW, DROP, W, B, AR, R, DONE} state_t;
  state_t state;
  logic beat;
  logic [7:0] waited;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      state <= START; beat <= 0; waited <= 0;
    end else case (state)
      START: state <= AW;
      AW: if (m_axi_awready) begin state <= W; beat <= 0; end
          else begin waited <= waited + 1; if (mode == 1) state <= DROP; end
      DROP: state <= AW;
      W: if (m_axi_wready) begin beat <= 1; if (beat || (mode == 3)) state <= B; end
      B: if (m_axi_bvalid) state <= AR;
      AR: if (m_axi_arready) begin state <= R; beat <= 0; end
      R: if (m_axi_rvalid) begin beat <= 1; if (m_axi_rlast) state <= DONE; end
      default: ;
    endcase
  end
  assign m_axi_awvalid = state == AW;
  assign m_axi_awid = 4'd1;
  assign m_axi_awaddr = mode == 4 ? 64'hff8 : mode == 2 ? 64'h1000 + 64'(waited) * 8 : 64'h1000;
  assign m_axi_awlen = 8'd1;
  assign m_axi_awsize = 3'd3;
  assign m_axi_awburst = 2'b01;
  assign m_axi_wvalid = state == W;
  assign m_axi_wdata = beat ? 64'h1122334455667788 : 64'h0123456789abcdef;
  assign m_axi_wstrb = 8'hff;
  assign m_axi_wlast = beat || mode == 3;
  assign m_axi_bready = state == B;
  assign m_axi_arvalid = state == AR;
  assign m_axi_arid = 4'd2;
  assign m_axi_araddr = 64'h1000;
  assign m_axi_arlen = 8'd1;
  assign m_axi_arsize = 3'd3;
  assign m_axi_arburst = 2'b01;
  assign m_axi_rready = state == R;
  assign busy = state != DONE;
endmodule
