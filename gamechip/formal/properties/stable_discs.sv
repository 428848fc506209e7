// stable_discs (SPEC §3) from reset, over every board and colour given at `start`:
// the count never decreases while the block iterates, `done` comes within the bound (the 36
// inner flip-flops only ever switch on, and done rises in the first cycle none changes, so at
// most 36 + 1 cycles of iteration; BOUND leaves the pipeline's cycles on top), the stable set
// at `done` holds only own discs and is a fixed point of the rule, and no single move of
// either side flips a disc marked stable (the converted disc_flipper, in this proof).
module formal_stable_discs (input clk, input rst, input start, input [63:0] black,
                            input [63:0] white, input color, input mover_is_white,
                            input [5:0] move);
  localparam BOUND = 40;
  wire done;
  wire [6:0] count;
  wire [63:0] stable;
  stable_discs dut (.clk(clk), .rst(rst), .start(start), .black(black), .white(white),
                    .color(color), .done(done), .count(count), .stable(stable));

  reg first = 1'b1;                 // the cycle the proof starts in: reset
  reg busy = 1'b0;                  // between start and done, as the harness sees it
  reg [7:0] cycles = 8'd0;          // cycles since start
  reg [63:0] black_q, white_q;      // the board given at start
  reg color_q;
  reg [6:0] count_q;
  always @(posedge clk) begin
    first <= 1'b0;
    count_q <= count;
    if (rst) begin
      busy <= 1'b0;
    end else if (start) begin
      busy <= 1'b1; cycles <= 8'd0;
      black_q <= black; white_q <= white; color_q <= color;
    end else if (busy) begin
      cycles <= cycles + 8'd1;
      if (done) busy <= 1'b0;
    end
  end

  wire [63:0] own_q = color_q ? white_q : black_q;
  wire [63:0] rule_next;
  stability_rule_n8 rule (.own(own_q), .stable(stable), .next(rule_next));

  wire [63:0] new_black, new_white;
  wire illegal;
  disc_flipper flipper (.black(black_q), .white(white_q), .white_to_move(mover_is_white), .move(move),
                        .new_black(new_black), .new_white(new_white), .illegal(illegal));
  wire [63:0] new_own = color_q ? new_white : new_black;

  always @* begin
    if (first) assume (rst);
    if (start) assume ((black & white) == 0);
    if (busy) assume (!start && !rst);   // one question at a time
    if (busy && cycles > 0) count_never_decreases: assert (count >= count_q);
    if (busy) done_within_bound: assert (done || cycles < BOUND);
    if (busy && done) stable_only_own: assert ((stable & ~own_q) == 0);
    if (busy && done) stable_is_fixed_point: assert (rule_next == stable);
    if (busy && done) stable_never_flipped: assert ((stable & ~new_own) == 0);
  end
endmodule
