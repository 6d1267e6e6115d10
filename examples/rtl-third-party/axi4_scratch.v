// SPDX-License-Identifier: Apache-2.0
// axi4_scratch: a 4 KiB AXI4 memory (mirrored over its window) in the style of third-party IP:
// upper-case S_AXI_ ports, active-high reset, a 16-bit address, parameterised data and ID widths,
// no optional signals. INCR and FIXED bursts, byte strobes, one burst per direction at a time.
module axi4_scratch #(
  parameter C_AXI_DATA_WIDTH = 64,
  parameter C_AXI_ID_WIDTH = 4
) (
  input  wire                          S_AXI_ACLK,
  input  wire                          S_AXI_ARESET,
  input  wire                          S_AXI_AWVALID,
  output wire                          S_AXI_AWREADY,
  input  wire [C_AXI_ID_WIDTH-1:0]     S_AXI_AWID,
  input  wire [15:0]                   S_AXI_AWADDR,
  input  wire [7:0]                    S_AXI_AWLEN,
  input  wire [2:0]                    S_AXI_AWSIZE,
  input  wire [1:0]                    S_AXI_AWBURST,
  input  wire                          S_AXI_WVALID,
  output wire                          S_AXI_WREADY,
  input  wire [C_AXI_DATA_WIDTH-1:0]   S_AXI_WDATA,
  input  wire [C_AXI_DATA_WIDTH/8-1:0] S_AXI_WSTRB,
  input  wire                          S_AXI_WLAST,
  output reg                           S_AXI_BVALID,
  input  wire                          S_AXI_BREADY,
  output reg  [C_AXI_ID_WIDTH-1:0]     S_AXI_BID,
  output wire [1:0]                    S_AXI_BRESP,
  input  wire                          S_AXI_ARVALID,
  output wire                          S_AXI_ARREADY,
  input  wire [C_AXI_ID_WIDTH-1:0]     S_AXI_ARID,
  input  wire [15:0]                   S_AXI_ARADDR,
  input  wire [7:0]                    S_AXI_ARLEN,
  input  wire [2:0]                    S_AXI_ARSIZE,
  input  wire [1:0]                    S_AXI_ARBURST,
  output reg                           S_AXI_RVALID,
  input  wire                          S_AXI_RREADY,
  output reg  [C_AXI_ID_WIDTH-1:0]     S_AXI_RID,
  output wire [C_AXI_DATA_WIDTH-1:0]   S_AXI_RDATA,
  output wire [1:0]                    S_AXI_RRESP,
  output wire                          S_AXI_RLAST
);
  localparam BYTES = C_AXI_DATA_WIDTH / 8;
  localparam LSB = $clog2(BYTES);
  localparam WORDS = 4096 / BYTES;
  reg [C_AXI_DATA_WIDTH-1:0] mem [0:WORDS-1];
  reg w_busy, r_busy;
  reg [15:0] w_addr, r_addr;
  reg [1:0] w_burst, r_burst;
  reg [7:0] r_left;
  integer i;
  assign S_AXI_AWREADY = !w_busy && !S_AXI_BVALID;
  assign S_AXI_WREADY = w_busy;
  assign S_AXI_BRESP = 2'b00;
  assign S_AXI_ARREADY = !r_busy;
  assign S_AXI_RRESP = 2'b00;
  assign S_AXI_RLAST = (r_left == 0);
  assign S_AXI_RDATA = mem[r_addr[11:LSB]];
  always @(posedge S_AXI_ACLK) begin
    if (S_AXI_ARESET) begin
      w_busy <= 0; r_busy <= 0; S_AXI_BVALID <= 0; S_AXI_RVALID <= 0; S_AXI_BID <= 0; S_AXI_RID <= 0;
      w_addr <= 0; r_addr <= 0; w_burst <= 0; r_burst <= 0; r_left <= 0;
    end else begin
      if (S_AXI_AWVALID && S_AXI_AWREADY) begin
        w_busy <= 1; w_addr <= S_AXI_AWADDR; w_burst <= S_AXI_AWBURST; S_AXI_BID <= S_AXI_AWID;
      end
      if (S_AXI_WVALID && S_AXI_WREADY) begin
        for (i = 0; i < BYTES; i = i + 1)
          if (S_AXI_WSTRB[i]) mem[w_addr[11:LSB]][8*i +: 8] <= S_AXI_WDATA[8*i +: 8];
        if (w_burst != 2'b00) w_addr <= w_addr + BYTES[15:0];
        if (S_AXI_WLAST) begin w_busy <= 0; S_AXI_BVALID <= 1; end
      end
      if (S_AXI_BVALID && S_AXI_BREADY) S_AXI_BVALID <= 0;
      if (S_AXI_ARVALID && S_AXI_ARREADY) begin
        r_busy <= 1; S_AXI_RVALID <= 1; r_addr <= S_AXI_ARADDR; r_left <= S_AXI_ARLEN; r_burst <= S_AXI_ARBURST;
        S_AXI_RID <= S_AXI_ARID;
      end else if (S_AXI_RVALID && S_AXI_RREADY) begin
        if (r_left == 0) begin r_busy <= 0; S_AXI_RVALID <= 0; end
        else begin r_left <= r_left - 1; if (r_burst != 2'b00) r_addr <= r_addr + BYTES[15:0]; end
      end
    end
  end
endmodule
