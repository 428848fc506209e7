// search (docs/spec.md §7, the engine's control) from reset, for every root window, depth limit 1..16
// and budget given at `start`, a depth-limited search or a solve (`solve_mode`, `solve_winner`
// free at the start), and for every answer of the datapath: the move checkers' legal
// moves (both sides), the evaluator's answer (when it comes and what value) and a solve's two
// disc counts (`own_discs`, `opp_discs`: any pair that fits on the board) are free
// values of the proof (cut points), so the properties hold whatever the board; node ordering
// stays the engine's own. Stated at the ports and at the registers the proof exposes
// (probe_* ports of the proof's own copy of the converted Verilog):
// * the ply of every node event lies within the depth limit (so 0..16; a solve's within the
//   stack's 32 levels, 0..31), and the level moves by at most +1 or -2 in a cycle (a start
//   aside): it never wraps below 0 or above 31;
// * in a WLD solve (the root window (-1, 1)) the window stays (-1, 1): the root's beta stays 1
//   and the alpha of every level, stacked or current, stays -1 or 0;
// * a solve's final count (own - opp, or the empties to the winner) lies within -64..64;
// * the window invariant alpha < beta at every level of the stack, where in negamax the beta
//   of level L is minus the alpha of level L-1 and the root's is root_beta (-256 is +infinity);
// * `done` rises in the cycle after one in which the first iteration was complete (the `depth`
//   port is non-zero) and the cycle count had reached the budget, and the `cycles` port counts
//   the clock since the start: so done comes at most two cycles after the budget or the end of
//   iteration 1, whichever is later (iteration 1 always completes: docs/spec.md §7).
// The invariants marked "inductive support" are the bookkeeping that makes k-induction close:
// where each level's alpha is kept, and that an alpha only rises.
module formal_search (input clk, input rst, input start, input [63:0] root_black, input [63:0] root_white,
                      input root_white_to_move, input [4:0] depth_limit, input [31:0] budget,
                      input signed [8:0] root_alpha, input signed [8:0] root_beta,
                      // the datapath's answers, free: legal moves of both sides, the evaluator's
                      // done and value
                      input [63:0] own_legal, input [63:0] opp_legal, input eval_done,
                      input signed [8:0] evaluated_raw,
                      // a solve's start, and its disc counts of the current board, free
                      input solve_mode, input solve_winner, input [6:0] own_discs, input [6:0] opp_discs);
  localparam signed [9:0] MINUS_INFINITY = -10'sd256;
  localparam [1:0] EXPAND = 2'd1, AWAIT = 2'd2;
  wire done, node_event;
  wire [4:0] depth, event_ply;
  wire [31:0] cycles;
  wire [1:0] state;
  wire [4:0] level;
  wire [4:0] iteration, limit;
  wire [31:0] budget_reg;
  wire signed [8:0] alpha_cur, alpha_parent, alpha_grand, alpha_above, alpha_root;
  wire [32*9-1:0] stack_alpha;
  wire started_cur, solving;
  wire signed [8:0] final_value;
  search dut (.clk(clk), .rst(rst), .start(start), .root_black(root_black), .root_white(root_white),
              .root_white_to_move(root_white_to_move), .depth_limit(depth_limit), .budget(budget),
              .root_alpha(root_alpha), .root_beta(root_beta), .solve_mode(solve_mode), .solve_winner(solve_winner),
              .done(done), .depth(depth), .cycles(cycles),
              .node_event(node_event), .event_ply(event_ply),
              .probe_state(state), .probe_level(level), .probe_iteration(iteration), .probe_limit(limit),
              .probe_budget_reg(budget_reg), .probe_alpha_cur(alpha_cur), .probe_alpha_parent(alpha_parent),
              .probe_alpha_grand(alpha_grand), .probe_alpha_above(alpha_above), .probe_alpha_root(alpha_root),
              .probe_stack_alpha(stack_alpha), .probe_started_cur(started_cur), .probe_solving(solving), .probe_final_value(final_value),
              .cut_own_legal(own_legal), .cut_opp_legal(opp_legal), .cut_eval_done(eval_done),
              .cut_evaluated_raw(evaluated_raw), .cut_own_discs(own_discs), .cut_opp_discs(opp_discs));

  wire busy = state == EXPAND || state == AWAIT;

  reg init = 1'b1;                  // the cycle the proof starts in: reset
  reg started = 1'b0;               // a start since the last reset
  reg stepping = 1'b0;              // the previous cycle was neither a reset nor a start
  reg [4:0] level_q = 5'd0;
  reg [4:0] limit_q = 5'd0;         // depth_limit, budget and window given at start
  reg [31:0] budget_q = 32'd0, t = 32'd0;
  reg signed [8:0] alpha_q = 9'sd0, beta_q = 9'sd0;
  reg overdue = 1'b0;               // last cycle: not done, iteration 1 complete, the count at the budget
  reg solve_q = 1'b0;               // solve_mode given at start
  wire wld = solve_q && alpha_q == -9'sd1 && beta_q == 9'sd1;   // a WLD solve
  always @(posedge clk) begin
    init <= 1'b0;
    level_q <= level;
    stepping <= !rst && !start;
    if (rst) begin
      started <= 1'b0; overdue <= 1'b0;
    end else if (start) begin
      started <= 1'b1; overdue <= 1'b0; t <= 32'd0; solve_q <= solve_mode;
      limit_q <= depth_limit; budget_q <= budget; alpha_q <= root_alpha; beta_q <= root_beta;
    end else begin
      t <= t + 32'd1;
      overdue <= started && !done && depth != 0 && cycles >= budget_q;
    end
  end

  // alpha of stack level k (k < level), and the alphas the window of level L compares
  function automatic signed [9:0] stacked(input integer k);
    stacked = $signed(stack_alpha[k * 9 +: 9]);
  endfunction
  function automatic window_holds(input signed [9:0] alpha, input signed [9:0] alpha_above_it);
    // alpha < beta with beta = -alpha_above_it; alpha_above_it = -256 is beta = +infinity
    window_holds = alpha_above_it == MINUS_INFINITY || alpha + alpha_above_it < 0;
  endfunction

  integer k;
  reg stack_windows, stack_rising, stack_wld;
  always @* begin
    stack_windows = 1'b1;
    stack_rising = 1'b1;
    stack_wld = 1'b1;
    for (k = 0; k < 32; k = k + 1)
      if (k < level) begin
        stack_windows = stack_windows && window_holds(stacked(k), k == 0 ? alpha_above : stacked(k - 1));
        stack_rising = stack_rising && stacked(k) >= (k == 0 ? MINUS_INFINITY : k == 1 ? alpha_above : stacked(k - 2));
        stack_wld = stack_wld && (stacked(k) == -10'sd1 || stacked(k) == 10'sd0);
      end
  end

  always @* begin
    if (init) assume (rst);
    // the two sides' discs of one board: no square counted twice
    assume ({1'b0, own_discs} + {1'b0, opp_discs} <= 8'd64);
    if (start) begin
      assume ((root_black & root_white) == 0);
      assume (depth_limit >= 1 && depth_limit <= 16);
      assume (root_beta == MINUS_INFINITY || root_alpha < root_beta);
    end
    if (started && !rst) begin
      if (node_event) ply_within_depth_limit: assert ((solve_q || event_ply <= limit_q) && limit_q <= 16);
      if (stepping) level_never_wraps: assert ({1'b0, level} <= {1'b0, level_q} + 6'd1
                                               && {1'b0, level} + 6'd2 >= {1'b0, level_q});
      if (busy) level_below_iteration: assert (solve_q ? iteration == 5'd1 && limit == 5'd1
                                                       : level < iteration && iteration <= limit && limit == limit_q);
      if (busy && wld) wld_root_window_stays: assert (alpha_above == -9'sd1 && alpha_root == -9'sd1);
      if (busy && wld) wld_alphas_stay_minus_1_or_0: assert ((alpha_cur == -9'sd1 || alpha_cur == 9'sd0) && stack_wld);
      if (solving) final_count_within_64: assert (final_value >= -9'sd64 && final_value <= 9'sd64);
      if (busy) window_at_this_level: assert (window_holds(alpha_cur, alpha_parent));
      if (busy) window_at_every_stack_level: assert (stack_windows);
      if (!done) cycles_count_the_clock: assert (cycles == t);
      if (overdue) done_after_budget: assert (done);
      // inductive support
      solving_as_given: assert (solving == solve_q);
      inputs_as_given: assert (limit_q >= 1 && limit_q <= 16 && (beta_q == MINUS_INFINITY || alpha_q < beta_q));
      if (busy) alphas_in_place: assert (
          (level == 0 ? alpha_parent == alpha_above && alpha_grand == MINUS_INFINITY
                      : alpha_parent == stacked(level - 1)
                        && alpha_grand == (level == 1 ? alpha_above : stacked(level - 2)))
          && alpha_root == alpha_q && alpha_above == (beta_q == MINUS_INFINITY ? MINUS_INFINITY : -beta_q));
      if (busy) alphas_only_rise: assert (stack_rising && alpha_cur >= alpha_grand);
      if (busy && state == EXPAND && started_cur) a_child_raised_alpha: assert (alpha_cur != MINUS_INFINITY);
      if (busy) iteration_and_depth: assert (depth == iteration - 5'd1 && budget_reg == budget_q);
    end
  end
endmodule
