// uart (docs/spec.md §8, divisor 8 as converted) from reset, for every input sequence: every byte the
// transmitter accepts goes out as one 8N1 frame (start bit 0, bits 0..7, stop bit 1, each bit
// 8 cycles) with tx_busy high exactly for those 10 bits, after which the line is idle high;
// the receiver never pulses rx_valid and rx_frame_error together, never reports a byte when
// the line was low through the whole stop bit (a framing error), and with the line held high
// for 11 bits and 4 cycles it is idle: no pulse at all.
module formal_uart (input clk, input rst, input rx, input [7:0] tx_data, input tx_send);
  localparam DIV = 8;
  localparam FRAME = 10 * DIV;
  wire tx, rx_valid, rx_frame_error, tx_busy;
  wire [7:0] rx_data;
  uart dut (.clk(clk), .rst(rst), .rx(rx), .tx(tx), .rx_data(rx_data), .rx_valid(rx_valid),
            .rx_frame_error(rx_frame_error), .tx_data(tx_data), .tx_send(tx_send), .tx_busy(tx_busy));

  reg first = 1'b1, settled = 1'b0;     // settled: a reset cycle has passed
  reg sending = 1'b0;                   // the reference transmitter: a frame on the line
  reg [7:0] frame_byte = 8'd0;
  reg [7:0] t = 8'd0;                   // cycles since the accepting edge
  reg [7:0] low_run = 8'd0, high_run = 8'd0;   // cycles rx has been low / high
  always @(posedge clk) begin
    first <= 1'b0;
    settled <= settled || rst;
    low_run <= rx ? 8'd0 : (low_run == 8'hff ? low_run : low_run + 8'd1);
    high_run <= !rx ? 8'd0 : (high_run == 8'hff ? high_run : high_run + 8'd1);
    if (rst) sending <= 1'b0;
    else if (sending) begin
      t <= t + 8'd1;
      if (t == FRAME - 1) sending <= 1'b0;
    end else if (tx_send && !tx_busy) begin
      sending <= 1'b1; frame_byte <= tx_data; t <= 8'd0;
    end
  end

  wire [3:0] bit_number = t / DIV;
  wire expected_tx = bit_number == 0 ? 1'b0 : bit_number == 9 ? 1'b1 : frame_byte[bit_number - 1];

  always @* begin
    if (first) assume (rst);
    if (settled && !rst && sending) tx_sends_8n1_frame: assert (tx == expected_tx && tx_busy);
    if (settled && !sending) tx_idle_between_frames: assert (tx && !tx_busy);
    if (settled) rx_valid_or_error_not_both: assert (!(rx_valid && rx_frame_error));
    if (settled) no_byte_without_stop_bit: assert (!(rx_valid && low_run >= 2 * DIV));
    if (settled && high_run >= 11 * DIV + 4) rx_idle_on_a_quiet_line: assert (!rx_valid && !rx_frame_error);
  end
endmodule
