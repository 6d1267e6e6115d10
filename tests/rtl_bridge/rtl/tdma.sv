// SPDX-License-Identifier: Apache-2.0
// tdma: a DMA-style test block written the way third-party AXI IP is (tests/rtl_bridge): upper-case
// prefixes, an active-high reset, a 16-bit control address, optional signals present on some
// ports and missing on others, a parameterised master data width. Three buses:
//   S_AXIL_  AXI4-Lite control slave (16-bit address, has AWPROT/ARPROT):
//            0x00 SRC_LO  0x04 SRC_HI  0x08 DST_LO  0x0c DST_HI  0x10 LEN (bytes, multiple of the
//            master's bus width)  0x14 CTRL (write bit0: start)  0x18 STATUS (bit0 BUSY ro,
//            bit1 DONE w1c)
//   M_AXI_   AXI4 master (DATA_WIDTH bits, ID_WIDTH-bit IDs, has AxCACHE/AxPROT outputs): copies
//            LEN bytes from SRC to DST one beat at a time (read a beat, write it, next)
//   S_AXI_   AXI4 slave scratch RAM: 4 KiB mirrored over its window, 64-bit data, 16-bit address,
//            no IDs, no AxPROT; INCR bursts (FIXED reads the same word), byte strobes. Plusarg
//            +tdma_ram_bug flips bit 0 of every read of word 3 (lock-step memory tests).
// o_int = DONE, o_busy = BUSY.
module tdma #(
  parameter int DATA_WIDTH = 64,
  parameter int ID_WIDTH = 4
) (
  input  wire                      i_clk,
  input  wire                      i_reset,
  // control
  input  wire                      S_AXIL_AWVALID,
  output wire                      S_AXIL_AWREADY,
  input  wire [15:0]               S_AXIL_AWADDR,
  input  wire [2:0]                S_AXIL_AWPROT,
  input  wire                      S_AXIL_WVALID,
  output wire                      S_AXIL_WREADY,
  input  wire [31:0]               S_AXIL_WDATA,
  input  wire [3:0]                S_AXIL_WSTRB,
  output reg                       S_AXIL_BVALID,
  input  wire                      S_AXIL_BREADY,
  output wire [1:0]                S_AXIL_BRESP,
  input  wire                      S_AXIL_ARVALID,
  output wire                      S_AXIL_ARREADY,
  input  wire [15:0]               S_AXIL_ARADDR,
  input  wire [2:0]                S_AXIL_ARPROT,
  output reg                       S_AXIL_RVALID,
  input  wire                      S_AXIL_RREADY,
  output reg  [31:0]               S_AXIL_RDATA,
  output wire [1:0]                S_AXIL_RRESP,
  // DMA master
  output reg                       M_AXI_AWVALID,
  input  wire                      M_AXI_AWREADY,
  output wire [ID_WIDTH-1:0]       M_AXI_AWID,
  output reg  [63:0]               M_AXI_AWADDR,
  output wire [7:0]                M_AXI_AWLEN,
  output wire [2:0]                M_AXI_AWSIZE,
  output wire [1:0]                M_AXI_AWBURST,
  output wire [3:0]                M_AXI_AWCACHE,
  output wire [2:0]                M_AXI_AWPROT,
  output reg                       M_AXI_WVALID,
  input  wire                      M_AXI_WREADY,
  output reg  [DATA_WIDTH-1:0]     M_AXI_WDATA,
  output wire [DATA_WIDTH/8-1:0]   M_AXI_WSTRB,
  output wire                      M_AXI_WLAST,
  input  wire                      M_AXI_BVALID,
  output wire                      M_AXI_BREADY,
  input  wire [ID_WIDTH-1:0]       M_AXI_BID,
  input  wire [1:0]                M_AXI_BRESP,
  output reg                       M_AXI_ARVALID,
  input  wire                      M_AXI_ARREADY,
  output wire [ID_WIDTH-1:0]       M_AXI_ARID,
  output reg  [63:0]               M_AXI_ARADDR,
  output wire [7:0]                M_AXI_ARLEN,
  output wire [2:0]                M_AXI_ARSIZE,
  output wire [1:0]                M_AXI_ARBURST,
  output wire [3:0]                M_AXI_ARCACHE,
  output wire [2:0]                M_AXI_ARPROT,
  input  wire                      M_AXI_RVALID,
  output wire                      M_AXI_RREADY,
  input  wire [ID_WIDTH-1:0]       M_AXI_RID,
  input  wire [DATA_WIDTH-1:0]     M_AXI_RDATA,
  input  wire [1:0]                M_AXI_RRESP,
  input  wire                      M_AXI_RLAST,
  // scratch RAM
  input  wire                      S_AXI_AWVALID,
  output wire                      S_AXI_AWREADY,
  input  wire [15:0]               S_AXI_AWADDR,
  input  wire [7:0]                S_AXI_AWLEN,
  input  wire [2:0]                S_AXI_AWSIZE,
  input  wire [1:0]                S_AXI_AWBURST,
  input  wire                      S_AXI_WVALID,
  output wire                      S_AXI_WREADY,
  input  wire [63:0]               S_AXI_WDATA,
  input  wire [7:0]                S_AXI_WSTRB,
  input  wire                      S_AXI_WLAST,
  output reg                       S_AXI_BVALID,
  input  wire                      S_AXI_BREADY,
  output wire [1:0]                S_AXI_BRESP,
  input  wire                      S_AXI_ARVALID,
  output wire                      S_AXI_ARREADY,
  input  wire [15:0]               S_AXI_ARADDR,
  input  wire [7:0]                S_AXI_ARLEN,
  input  wire [2:0]                S_AXI_ARSIZE,
  input  wire [1:0]                S_AXI_ARBURST,
  output reg                       S_AXI_RVALID,
  input  wire                      S_AXI_RREADY,
  output wire [63:0]               S_AXI_RDATA,
  output wire [1:0]                S_AXI_RRESP,
  output wire                      S_AXI_RLAST,
  output wire                      o_int,
  output wire                      o_busy
);
  localparam int BYTES = DATA_WIDTH / 8;
  // ---- control registers ----
  reg [63:0] src, dst;
  reg [31:0] len, left;
  reg busy, done;
  wire ctl_wr = S_AXIL_AWVALID && S_AXIL_WVALID && !S_AXIL_BVALID;
  assign S_AXIL_AWREADY = ctl_wr;
  assign S_AXIL_WREADY = ctl_wr;
  assign S_AXIL_BRESP = 2'b00;
  assign S_AXIL_ARREADY = !S_AXIL_RVALID;
  assign S_AXIL_RRESP = 2'b00;
  assign o_int = done;
  assign o_busy = busy;

  // ---- DMA master: one beat at a time ----
  localparam int ST_IDLE = 0, ST_AR = 1, ST_R = 2, ST_AW = 3, ST_B = 4;
  reg [2:0] st;
  reg aw_done, w_done;
  reg [63:0] rd_ptr, wr_ptr;
  assign M_AXI_AWID = '0;
  assign M_AXI_ARID = '0;
  assign M_AXI_AWLEN = 8'd0;
  assign M_AXI_ARLEN = 8'd0;
  assign M_AXI_AWSIZE = 3'($clog2(BYTES));
  assign M_AXI_ARSIZE = 3'($clog2(BYTES));
  assign M_AXI_AWBURST = 2'b01;
  assign M_AXI_ARBURST = 2'b01;
  assign M_AXI_AWCACHE = 4'b0011;
  assign M_AXI_ARCACHE = 4'b0011;
  assign M_AXI_AWPROT = 3'b000;
  assign M_AXI_ARPROT = 3'b000;
  assign M_AXI_WSTRB = '1;
  assign M_AXI_WLAST = 1'b1;
  assign M_AXI_BREADY = (st == ST_B);
  assign M_AXI_RREADY = (st == ST_R);

  always @(posedge i_clk) begin
    if (i_reset) begin
      src <= 0; dst <= 0; len <= 0; left <= 0; busy <= 0; done <= 0; st <= ST_IDLE;
      S_AXIL_BVALID <= 0; S_AXIL_RVALID <= 0; S_AXIL_RDATA <= 0;
      M_AXI_AWVALID <= 0; M_AXI_WVALID <= 0; M_AXI_ARVALID <= 0; M_AXI_AWADDR <= 0; M_AXI_ARADDR <= 0;
      M_AXI_WDATA <= 0; rd_ptr <= 0; wr_ptr <= 0; aw_done <= 0; w_done <= 0;
    end else begin
      if (S_AXIL_BVALID && S_AXIL_BREADY) S_AXIL_BVALID <= 0;
      if (S_AXIL_RVALID && S_AXIL_RREADY) S_AXIL_RVALID <= 0;
      if (ctl_wr) begin
        S_AXIL_BVALID <= 1;
        case (S_AXIL_AWADDR[7:0])
          8'h00: src[31:0] <= S_AXIL_WDATA;
          8'h04: src[63:32] <= S_AXIL_WDATA;
          8'h08: dst[31:0] <= S_AXIL_WDATA;
          8'h0c: dst[63:32] <= S_AXIL_WDATA;
          8'h10: len <= S_AXIL_WDATA;
          8'h14: if (S_AXIL_WDATA[0] && !busy && len != 0) begin
                   busy <= 1; left <= len; rd_ptr <= src; wr_ptr <= dst; st <= ST_AR;
                 end
          8'h18: if (S_AXIL_WDATA[1]) done <= 0;
          default: ;
        endcase
      end
      if (S_AXIL_ARVALID && S_AXIL_ARREADY) begin
        S_AXIL_RVALID <= 1;
        case (S_AXIL_ARADDR[7:0])
          8'h00: S_AXIL_RDATA <= src[31:0];
          8'h04: S_AXIL_RDATA <= src[63:32];
          8'h08: S_AXIL_RDATA <= dst[31:0];
          8'h0c: S_AXIL_RDATA <= dst[63:32];
          8'h10: S_AXIL_RDATA <= len;
          8'h18: S_AXIL_RDATA <= {30'b0, done, busy};
          default: S_AXIL_RDATA <= 0;
        endcase
      end
      case (st)
        ST_AR: begin
          M_AXI_ARVALID <= 1; M_AXI_ARADDR <= rd_ptr;
          if (M_AXI_ARVALID && M_AXI_ARREADY) begin M_AXI_ARVALID <= 0; st <= ST_R; end
        end
        ST_R: if (M_AXI_RVALID) begin
          M_AXI_WDATA <= M_AXI_RDATA; st <= ST_AW; aw_done <= 0; w_done <= 0;
          M_AXI_AWVALID <= 1; M_AXI_AWADDR <= wr_ptr; M_AXI_WVALID <= 1;
        end
        ST_AW: begin
          if (M_AXI_AWVALID && M_AXI_AWREADY) M_AXI_AWVALID <= 0;
          if (M_AXI_WVALID && M_AXI_WREADY) M_AXI_WVALID <= 0;
          if ((!M_AXI_AWVALID || M_AXI_AWREADY) && (!M_AXI_WVALID || M_AXI_WREADY)) st <= ST_B;
        end
        ST_B: if (M_AXI_BVALID) begin
          rd_ptr <= rd_ptr + BYTES; wr_ptr <= wr_ptr + BYTES;
          if (left <= BYTES) begin left <= 0; busy <= 0; done <= 1; st <= ST_IDLE; end
          else begin left <= left - BYTES; st <= ST_AR; end
        end
        default: ;
      endcase
    end
  end

  // ---- scratch RAM: one burst at a time ----
  reg [63:0] ram [0:511];
  reg bug;
  initial bug = $test$plusargs("tdma_ram_bug") != 0;
  reg w_act, r_act;
  reg [15:0] w_addr, r_addr;
  reg [7:0] r_left;
  reg [1:0] r_burst;
  reg [1:0] w_burst;
  assign S_AXI_AWREADY = !w_act && !S_AXI_BVALID;
  assign S_AXI_WREADY = w_act;
  assign S_AXI_BRESP = 2'b00;
  assign S_AXI_ARREADY = !r_act;
  assign S_AXI_RRESP = 2'b00;
  assign S_AXI_RLAST = (r_left == 0);
  wire [63:0] word = ram[r_addr[11:3]];
  assign S_AXI_RDATA = (bug && r_addr[11:3] == 9'd3) ? word ^ 64'd1 : word;
  always @(posedge i_clk) begin
    if (i_reset) begin
      w_act <= 0; r_act <= 0; S_AXI_BVALID <= 0; S_AXI_RVALID <= 0; w_addr <= 0; r_addr <= 0; r_left <= 0;
      r_burst <= 0; w_burst <= 0;
    end else begin
      if (S_AXI_AWVALID && S_AXI_AWREADY) begin w_act <= 1; w_addr <= S_AXI_AWADDR; w_burst <= S_AXI_AWBURST; end
      if (S_AXI_WVALID && S_AXI_WREADY) begin
        for (int i = 0; i < 8; i++)
          if (S_AXI_WSTRB[i]) ram[w_addr[11:3]][8*i +: 8] <= S_AXI_WDATA[8*i +: 8];
        if (w_burst != 2'b00) w_addr <= w_addr + 16'd8;
        if (S_AXI_WLAST) begin w_act <= 0; S_AXI_BVALID <= 1; end
      end
      if (S_AXI_BVALID && S_AXI_BREADY) S_AXI_BVALID <= 0;
      if (S_AXI_ARVALID && S_AXI_ARREADY) begin
        r_act <= 1; S_AXI_RVALID <= 1; r_addr <= S_AXI_ARADDR; r_left <= S_AXI_ARLEN; r_burst <= S_AXI_ARBURST;
      end else if (S_AXI_RVALID && S_AXI_RREADY) begin
        if (r_left == 0) begin r_act <= 0; S_AXI_RVALID <= 0; end
        else begin r_left <= r_left - 1; if (r_burst != 2'b00) r_addr <= r_addr + 16'd8; end
      end
    end
  end
endmodule
