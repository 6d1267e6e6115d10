// SPDX-License-Identifier: Apache-2.0
// wlite: an AXI4-Lite register file of DATA_WIDTH (32 or 64) bits, for the width-adaptation tests
// (tests/rtl_bridge): 32 registers of one bus word each, mirrored over the window (address bits
// above log2(bytes) pick the register); byte strobes; OKAY responses.
module wlite #(
  parameter int DATA_WIDTH = 64
) (
  input  wire                    clk,
  input  wire                    rst_n,
  input  wire                    s_axil_awvalid,
  output wire                    s_axil_awready,
  input  wire [31:0]             s_axil_awaddr,
  input  wire                    s_axil_wvalid,
  output wire                    s_axil_wready,
  input  wire [DATA_WIDTH-1:0]   s_axil_wdata,
  input  wire [DATA_WIDTH/8-1:0] s_axil_wstrb,
  output reg                     s_axil_bvalid,
  input  wire                    s_axil_bready,
  output wire [1:0]              s_axil_bresp,
  input  wire                    s_axil_arvalid,
  output wire                    s_axil_arready,
  input  wire [31:0]             s_axil_araddr,
  output reg                     s_axil_rvalid,
  input  wire                    s_axil_rready,
  output reg  [DATA_WIDTH-1:0]   s_axil_rdata,
  output wire [1:0]              s_axil_rresp
);
  localparam int BYTES = DATA_WIDTH / 8;
  localparam int LSB = $clog2(BYTES);
  reg [DATA_WIDTH-1:0] regs [0:31];
  wire wr = s_axil_awvalid && s_axil_wvalid && !s_axil_bvalid;
  assign s_axil_awready = wr;
  assign s_axil_wready = wr;
  assign s_axil_bresp = 2'b00;
  assign s_axil_arready = !s_axil_rvalid;
  assign s_axil_rresp = 2'b00;
  always @(posedge clk) begin
    if (!rst_n) begin
      s_axil_bvalid <= 0; s_axil_rvalid <= 0; s_axil_rdata <= 0;
    end else begin
      if (s_axil_bvalid && s_axil_bready) s_axil_bvalid <= 0;
      if (s_axil_rvalid && s_axil_rready) s_axil_rvalid <= 0;
      if (wr) begin
        s_axil_bvalid <= 1;
        for (int i = 0; i < BYTES; i++)
          if (s_axil_wstrb[i]) regs[s_axil_awaddr[LSB+4:LSB]][8*i +: 8] <= s_axil_wdata[8*i +: 8];
      end
      if (s_axil_arvalid && s_axil_arready) begin
        s_axil_rvalid <= 1;
        s_axil_rdata <= regs[s_axil_araddr[LSB+4:LSB]];
      end
    end
  end
endmodule
