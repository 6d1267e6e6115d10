// SPDX-License-Identifier: Apache-2.0
// axil_doorbell: an AXI4-Lite register block in the style of third-party IP: ACLK / ARESETN
// (active low), upper-case S_AXIL_ ports, a 16-bit address, AWPROT/ARPROT inputs it ignores.
//   0x0 SCRATCH   rw
//   0x4 DOORBELL  write: any value sets RING (o_irq); read: the last value written
//   0x8 STATUS    bit0 RING (write 1 to clear)
module axil_doorbell (
  input  wire        ACLK,
  input  wire        ARESETN,
  input  wire        S_AXIL_AWVALID,
  output wire        S_AXIL_AWREADY,
  input  wire [15:0] S_AXIL_AWADDR,
  input  wire [2:0]  S_AXIL_AWPROT,
  input  wire        S_AXIL_WVALID,
  output wire        S_AXIL_WREADY,
  input  wire [31:0] S_AXIL_WDATA,
  input  wire [3:0]  S_AXIL_WSTRB,
  output reg         S_AXIL_BVALID,
  input  wire        S_AXIL_BREADY,
  output wire [1:0]  S_AXIL_BRESP,
  input  wire        S_AXIL_ARVALID,
  output wire        S_AXIL_ARREADY,
  input  wire [15:0] S_AXIL_ARADDR,
  input  wire [2:0]  S_AXIL_ARPROT,
  output reg         S_AXIL_RVALID,
  input  wire        S_AXIL_RREADY,
  output reg  [31:0] S_AXIL_RDATA,
  output wire [1:0]  S_AXIL_RRESP,
  output wire        o_irq
);
  reg [31:0] scratch, bell;
  reg ring;
  wire wr = S_AXIL_AWVALID && S_AXIL_WVALID && !S_AXIL_BVALID;
  assign S_AXIL_AWREADY = wr;
  assign S_AXIL_WREADY = wr;
  assign S_AXIL_BRESP = 2'b00;
  assign S_AXIL_ARREADY = !S_AXIL_RVALID;
  assign S_AXIL_RRESP = 2'b00;
  assign o_irq = ring;
  always @(posedge ACLK) begin
    if (!ARESETN) begin
      scratch <= 0; bell <= 0; ring <= 0; S_AXIL_BVALID <= 0; S_AXIL_RVALID <= 0; S_AXIL_RDATA <= 0;
    end else begin
      if (S_AXIL_BVALID && S_AXIL_BREADY) S_AXIL_BVALID <= 0;
      if (S_AXIL_RVALID && S_AXIL_RREADY) S_AXIL_RVALID <= 0;
      if (wr) begin
        S_AXIL_BVALID <= 1;
        case (S_AXIL_AWADDR[3:0])
          4'h0: scratch <= S_AXIL_WDATA;
          4'h4: begin bell <= S_AXIL_WDATA; ring <= 1; end
          4'h8: if (S_AXIL_WDATA[0]) ring <= 0;
          default: ;
        endcase
      end
      if (S_AXIL_ARVALID && S_AXIL_ARREADY) begin
        S_AXIL_RVALID <= 1;
        case (S_AXIL_ARADDR[3:0])
          4'h0: S_AXIL_RDATA <= scratch;
          4'h4: S_AXIL_RDATA <= bell;
          4'h8: S_AXIL_RDATA <= {31'b0, ring};
          default: S_AXIL_RDATA <= 0;
        endcase
      end
    end
  end
endmodule
