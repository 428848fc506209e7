// stable_discs (docs/spec.md §3) from reset, over every board and colour given at `start`:
// the count never decreases while the block iterates, `done` comes within the bound (the 36
// inner flip-flops only ever switch on, and done rises in the first cycle none changes, so at
// most 36 + 1 cycles of iteration; BOUND leaves the pipeline's cycles on top), the stable set
// at `done` holds only own discs and is a fixed point of the rule, and no single move of
// either side flips a disc marked stable (the converted disc_flipper, in this proof).
//
// For k-induction each of these is stated in every cycle of the iteration, with the
// invariants that make it inductive (read through probe ports of the proof's copy):
// * the harness's view (busy, the board given at start) is the block's own state;
// * every inner flip-flop that is set is still supported (no pending change clears one), so
//   the set only grows, by at least one inner disc in every cycle that is not done: after c
//   cycles at least c inner discs are set, which bounds c by 36;
// * the move checked is one move of one side (mover_is_white, move) held from the first cycle
//   on, free: so the proof covers every move; a disc that becomes stable is supported on every
//   axis by a disc already stable (or the edge), which the same move would have to flip too,
//   so "this move flips no stable disc" carries from one cycle to the next.
module formal_stable_discs (input clk, input rst, input start, input [63:0] black,
                            input [63:0] white, input color);
  localparam BOUND = 40;
  wire done;
  wire [6:0] count;
  wire [63:0] stable;
  wire dut_busy, corners_empty;
  wire [63:0] own, stable_vector;
  wire [35:0] pending_vector;
  stable_discs dut (.clk(clk), .rst(rst), .start(start), .black(black), .white(white),
                    .color(color), .done(done), .count(count), .stable(stable),
                    .probe_busy(dut_busy), .probe_corners_empty(corners_empty), .probe_own(own),
                    .probe_stable_vector(stable_vector), .probe_pending_vector(pending_vector));

  reg first = 1'b1;                 // the cycle the proof starts in: reset
  reg settled = 1'b0;               // a reset cycle has passed
  reg busy = 1'b0;                  // between start and done, as the harness sees it
  reg [7:0] cycles = 8'd0;          // cycles since start
  reg [63:0] black_q, white_q;      // the board given at start
  reg color_q;
  reg [6:0] count_q;
  reg mover_is_white;               // the move checked: free, and held
  reg [5:0] move;
  always @(posedge clk) begin
    first <= 1'b0;
    settled <= settled || rst;
    count_q <= count;
    mover_is_white <= mover_is_white;
    move <= move;
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

  // the inner flip-flops (rows and columns 1..6), in the order of pending_vector
  wire [35:0] inner;
  genvar i;
  generate for (i = 0; i < 36; i = i + 1) begin : inner_squares
    assign inner[i] = stable_vector[8 * (i / 6 + 1) + i % 6 + 1];
  end endgenerate
  integer k;
  reg [6:0] inner_count;
  always @* begin
    inner_count = 7'd0;
    for (k = 0; k < 36; k = k + 1) inner_count = inner_count + inner[k];
  end
  wire corners_empty_q = ((black_q | white_q) & 64'h8100_0000_0000_0081) == 0;

  always @* begin
    if (first) assume (rst);
    if (start) assume ((black & white) == 0);
    if (busy) assume (!start && !rst);   // one question at a time
    if (busy && cycles > 0) count_never_decreases: assert (count >= count_q);
    if (busy) done_within_bound: assert (done || cycles < BOUND);
    if (busy) stable_only_own: assert ((stable & ~own_q) == 0);
    if (busy && done) stable_is_fixed_point: assert (rule_next == stable);
    if (busy) stable_never_flipped: assert ((stable & ~new_own) == 0);
    // inductive support
    if (!first && !rst) block_state_is_the_harness_view: assert (settled && dut_busy == busy
        && (!busy || ((black_q & white_q) == 0 && own == own_q && corners_empty == corners_empty_q)));
    if (busy) set_discs_stay_supported: assert ((pending_vector & inner) == 0);
    if (busy && !corners_empty) one_more_disc_each_cycle: assert (inner_count >= cycles);
    if (busy && corners_empty) empty_corners_answer_at_once: assert (cycles == 0 && done);
  end
endmodule
