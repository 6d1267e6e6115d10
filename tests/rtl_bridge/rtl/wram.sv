// SPDX-License-Identifier: Apache-2.0
// wram: an AXI4 slave RAM of any data width, for the width-adaptation tests (tests/rtl_bridge):
// DATA_WIDTH 32, 64, 128 or 256 bits, ADDR_WIDTH address bits, ID_WIDTH-bit IDs echoed back.
// 8 KiB at addresses 0-0x1fff; a burst whose start address has any bit above 12 set answers SLVERR
// and writes nothing (so a test sees every address bit arrive). One burst at a time per
// direction; INCR advances by 2^AxSIZE from the size-aligned address, FIXED stays; byte strobes.
module wram #(
  parameter int DATA_WIDTH = 128,
  parameter int ADDR_WIDTH = 32,
  parameter int ID_WIDTH = 2
) (
  input  wire                    aclk,
  input  wire                    aresetn,
  input  wire                    s_axi_awvalid,
  output wire                    s_axi_awready,
  input  wire [ID_WIDTH-1:0]     s_axi_awid,
  input  wire [ADDR_WIDTH-1:0]   s_axi_awaddr,
  input  wire [7:0]              s_axi_awlen,
  input  wire [2:0]              s_axi_awsize,
  input  wire [1:0]              s_axi_awburst,
  input  wire                    s_axi_wvalid,
  output wire                    s_axi_wready,
  input  wire [DATA_WIDTH-1:0]   s_axi_wdata,
  input  wire [DATA_WIDTH/8-1:0] s_axi_wstrb,
  input  wire                    s_axi_wlast,
  output reg                     s_axi_bvalid,
  input  wire                    s_axi_bready,
  output reg  [ID_WIDTH-1:0]     s_axi_bid,
  output wire [1:0]              s_axi_bresp,
  input  wire                    s_axi_arvalid,
  output wire                    s_axi_arready,
  input  wire [ID_WIDTH-1:0]     s_axi_arid,
  input  wire [ADDR_WIDTH-1:0]   s_axi_araddr,
  input  wire [7:0]              s_axi_arlen,
  input  wire [2:0]              s_axi_arsize,
  input  wire [1:0]              s_axi_arburst,
  output reg                     s_axi_rvalid,
  input  wire                    s_axi_rready,
  output reg  [ID_WIDTH-1:0]     s_axi_rid,
  output wire [DATA_WIDTH-1:0]   s_axi_rdata,
  output wire [1:0]              s_axi_rresp,
  output wire                    s_axi_rlast
);
  localparam int BYTES = DATA_WIDTH / 8;
  localparam int LSB = $clog2(BYTES);
  localparam int WORDS = 8192 / BYTES;
  reg [DATA_WIDTH-1:0] ram [0:WORDS-1];
  reg w_act, r_act;
  reg [12:0] w_addr, r_addr;
  reg w_err, r_err;
  reg [2:0] w_size, r_size;
  reg [1:0] w_burst, r_burst;
  reg [7:0] r_left;
  function automatic [12:0] next_addr(input [12:0] a, input [2:0] size, input [1:0] burst);
    next_addr = burst == 2'b00 ? a : ((a >> size) + 13'd1) << size;
  endfunction
  assign s_axi_awready = !w_act && !s_axi_bvalid;
  assign s_axi_wready = w_act;
  assign s_axi_bresp = w_err ? 2'b10 : 2'b00;
  assign s_axi_arready = !r_act;
  assign s_axi_rresp = r_err ? 2'b10 : 2'b00;
  assign s_axi_rlast = r_left == 0;
  assign s_axi_rdata = r_err ? '0 : ram[r_addr[12:LSB]];
  always @(posedge aclk) begin
    if (!aresetn) begin
      w_act <= 0; r_act <= 0; s_axi_bvalid <= 0; s_axi_rvalid <= 0; s_axi_bid <= 0; s_axi_rid <= 0;
      w_err <= 0; r_err <= 0; w_addr <= 0; r_addr <= 0; w_size <= 0; r_size <= 0; w_burst <= 0; r_burst <= 0; r_left <= 0;
    end else begin
      if (s_axi_awvalid && s_axi_awready) begin
        w_act <= 1; w_addr <= s_axi_awaddr[12:0]; w_err <= s_axi_awaddr >> 13 != 0; w_size <= s_axi_awsize; w_burst <= s_axi_awburst;
        s_axi_bid <= s_axi_awid;
      end
      if (s_axi_wvalid && s_axi_wready) begin
        for (int i = 0; i < BYTES; i++)
          if (s_axi_wstrb[i] && !w_err) ram[w_addr[12:LSB]][8*i +: 8] <= s_axi_wdata[8*i +: 8];
        w_addr <= next_addr(w_addr, w_size, w_burst);
        if (s_axi_wlast) begin w_act <= 0; s_axi_bvalid <= 1; end
      end
      if (s_axi_bvalid && s_axi_bready) s_axi_bvalid <= 0;
      if (s_axi_arvalid && s_axi_arready) begin
        r_act <= 1; s_axi_rvalid <= 1; r_addr <= s_axi_araddr[12:0]; r_err <= s_axi_araddr >> 13 != 0; r_left <= s_axi_arlen;
        r_size <= s_axi_arsize; r_burst <= s_axi_arburst; s_axi_rid <= s_axi_arid;
      end else if (s_axi_rvalid && s_axi_rready) begin
        if (r_left == 0) begin r_act <= 0; s_axi_rvalid <= 0; end
        else begin r_left <= r_left - 1; r_addr <= next_addr(r_addr, r_size, r_burst); end
      end
    end
  end
endmodule
