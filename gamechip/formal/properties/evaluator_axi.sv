// evaluator_axi (docs/spec.md §10) from reset, against any master that keeps the AXI4-Lite rules (a
// VALID, with its address or data, held until READY): the slave holds BVALID and RVALID, with
// their response and data, until BREADY / RREADY; it never responds without a request; it
// holds at most one write and one read outstanding and answers a write in the next cycle.
// k-induction closes with one invariant tying the harness's request counts to the slave's
// response flags and its read-waiting register (read through a probe port of the proof's copy).
module formal_evaluator_axi (input clk, input rst,
    input [11:0] s_axil_awaddr, input s_axil_awvalid, input [31:0] s_axil_wdata, input [3:0] s_axil_wstrb,
    input s_axil_wvalid, input s_axil_bready, input [11:0] s_axil_araddr, input s_axil_arvalid,
    input s_axil_rready);
  wire s_axil_awready, s_axil_wready, s_axil_bvalid, s_axil_arready, s_axil_rvalid;
  wire [1:0] s_axil_bresp, s_axil_rresp;
  wire [31:0] s_axil_rdata;
  evaluator_axi dut (.clk(clk), .rst(rst),
    .s_axil_awaddr(s_axil_awaddr), .s_axil_awvalid(s_axil_awvalid), .s_axil_awready(s_axil_awready),
    .s_axil_wdata(s_axil_wdata), .s_axil_wstrb(s_axil_wstrb), .s_axil_wvalid(s_axil_wvalid),
    .s_axil_wready(s_axil_wready), .s_axil_bresp(s_axil_bresp), .s_axil_bvalid(s_axil_bvalid),
    .s_axil_bready(s_axil_bready), .s_axil_araddr(s_axil_araddr), .s_axil_arvalid(s_axil_arvalid),
    .s_axil_arready(s_axil_arready), .s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp),
    .s_axil_rvalid(s_axil_rvalid), .s_axil_rready(s_axil_rready), .probe_read_waiting(read_waiting));
  wire read_waiting;   // a RESULT read accepted and waiting for the evaluator (the proof's probe)

  wire aw_go = s_axil_awvalid && s_axil_awready;
  wire w_go = s_axil_wvalid && s_axil_wready;
  wire b_go = s_axil_bvalid && s_axil_bready;
  wire ar_go = s_axil_arvalid && s_axil_arready;
  wire r_go = s_axil_rvalid && s_axil_rready;

  reg first = 1'b1, settled = 1'b0, live = 1'b0;   // live: the previous cycle was out of reset
  reg [3:0] writes = 4'd0, reads = 4'd0;            // requests accepted and not yet answered
  reg aw_wait = 1'b0, w_wait = 1'b0, ar_wait = 1'b0, b_wait = 1'b0, r_wait = 1'b0;
  reg [11:0] awaddr_q, araddr_q;
  reg [31:0] wdata_q, rdata_q;
  reg [1:0] bresp_q, rresp_q;
  reg wrote = 1'b0;                                 // a write was accepted in the previous cycle
  always @(posedge clk) begin
    first <= 1'b0;
    settled <= settled || rst;
    live <= (settled || rst) && !rst;
    aw_wait <= !rst && s_axil_awvalid && !s_axil_awready;
    w_wait <= !rst && s_axil_wvalid && !s_axil_wready;
    ar_wait <= !rst && s_axil_arvalid && !s_axil_arready;
    b_wait <= !rst && s_axil_bvalid && !s_axil_bready;
    r_wait <= !rst && s_axil_rvalid && !s_axil_rready;
    awaddr_q <= s_axil_awaddr; wdata_q <= s_axil_wdata; araddr_q <= s_axil_araddr;
    bresp_q <= s_axil_bresp; rresp_q <= s_axil_rresp; rdata_q <= s_axil_rdata;
    wrote <= !rst && aw_go;
    if (rst) begin writes <= 4'd0; reads <= 4'd0; end
    else begin
      writes <= writes + aw_go - b_go;
      reads <= reads + ar_go - r_go;
    end
  end

  always @* begin
    if (first) assume (rst);
    // the master keeps the rules
    if (aw_wait) assume (s_axil_awvalid && s_axil_awaddr == awaddr_q);
    if (w_wait) assume (s_axil_wvalid && s_axil_wdata == wdata_q);
    if (ar_wait) assume (s_axil_arvalid && s_axil_araddr == araddr_q);
    if (live && !rst) begin
      bvalid_held_until_bready: assert (!b_wait || (s_axil_bvalid && s_axil_bresp == bresp_q));
      rvalid_held_until_rready: assert (!r_wait || (s_axil_rvalid && s_axil_rresp == rresp_q && s_axil_rdata == rdata_q));
      no_write_response_without_request: assert (!s_axil_bvalid || writes != 0);
      no_read_response_without_request: assert (!s_axil_rvalid || reads != 0);
      one_write_outstanding: assert (writes <= 1);
      one_read_outstanding: assert (reads <= 1);
      write_answered_next_cycle: assert (!wrote || s_axil_bvalid);
      aw_and_w_accepted_together: assert (aw_go == w_go);
    end
    // inductive support: the harness's count of outstanding requests is the slave's own state
    if (settled && !rst) outstanding_is_the_slaves_state: assert (
        writes == s_axil_bvalid && reads == s_axil_rvalid + read_waiting && !(s_axil_rvalid && read_waiting));
  end
endmodule
