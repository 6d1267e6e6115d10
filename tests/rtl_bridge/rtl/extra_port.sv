// SPDX-License-Identifier: Apache-2.0
// extra_port: an AXI4-Lite register block with one input gpuvp does not know (`enable`), so the
// port stays unconnected: gpuvp must refuse the component with a message naming the port.
module extra_port (
  input  logic        clk,
  input  logic        rst_n,
  input  logic        enable,
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
  output logic [1:0]  s_axil_rresp
);
  assign s_axil_awready = 1'b0;
  assign s_axil_wready = 1'b0;
  assign s_axil_bvalid = 1'b0;
  assign s_axil_bresp = 2'b00;
  assign s_axil_arready = 1'b0;
  assign s_axil_rvalid = 1'b0;
  assign s_axil_rdata = {31'b0, enable};
  assign s_axil_rresp = 2'b00;
endmodule
