// SPDX-License-Identifier: Apache-2.0
// countdown: the example block of docs/rtl.md, an AXI4-Lite countdown timer with an interrupt.
//   0x0 LOAD    rw  cycles to count
//   0x4 CTRL    wo  bit0: start (counts LOAD cycles down to 0)
//   0x8 STATUS  bit0 RUNNING (ro), bit1 EXPIRED (w1c)
// irq = EXPIRED. busy = RUNNING (keeps gpuvp's clock running while it counts).
module countdown (
  input  logic        clk,
  input  logic        rst_n,
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
  output logic        irq,
  output logic        busy
);
  logic [31:0] load, count;
  logic running, expired;
  wire wr = s_axil_awvalid && s_axil_wvalid && !s_axil_bvalid;
  assign s_axil_awready = wr;
  assign s_axil_wready = wr;
  assign s_axil_bresp = 2'b00;
  assign s_axil_arready = !s_axil_rvalid;
  assign s_axil_rresp = 2'b00;
  assign irq = expired;
  assign busy = running;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      load <= 0; count <= 0; running <= 0; expired <= 0; s_axil_bvalid <= 0; s_axil_rvalid <= 0; s_axil_rdata <= 0;
    end else begin
      if (s_axil_bvalid && s_axil_bready) s_axil_bvalid <= 0;
      if (s_axil_rvalid && s_axil_rready) s_axil_rvalid <= 0;
      if (running) begin
        count <= count - 1;
        if (count == 1) begin running <= 0; expired <= 1; end
      end
      if (wr) begin
        s_axil_bvalid <= 1;
        case (s_axil_awaddr[3:0])
          4'h0: load <= s_axil_wdata;
          4'h4: if (s_axil_wdata[0] && load != 0) begin count <= load; running <= 1; end
          4'h8: if (s_axil_wdata[1]) expired <= 0;
          default: ;
        endcase
      end
      if (s_axil_arvalid && s_axil_arready) begin
        s_axil_rvalid <= 1;
        case (s_axil_araddr[3:0])
          4'h0: s_axil_rdata <= load;
          4'h8: s_axil_rdata <= {30'b0, expired, running};
          default: s_axil_rdata <= 0;
        endcase
      end
    end
  end
endmodule
