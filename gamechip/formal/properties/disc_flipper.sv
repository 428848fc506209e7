// disc_flipper (docs/spec.md §2) against the reference rules, for every board with no square in both
// colours, either side to move and every move square: the move is illegal exactly when it
// flips nothing (and then the board is unchanged); a legal move flips exactly the runs of
// opponent discs closed by an own disc and places the mover's disc; no other square changes.
module formal_disc_flipper (input [63:0] black, input [63:0] white, input white_to_move,
                            input [5:0] move);
  wire [63:0] new_black, new_white;
  wire illegal;
  disc_flipper dut (.black(black), .white(white), .white_to_move(white_to_move), .move(move),
                    .new_black(new_black), .new_white(new_white), .illegal(illegal));

  wire [63:0] own = white_to_move ? white : black;
  wire [63:0] opp = white_to_move ? black : white;
  wire [64*64-1:0] flips_of;
  wire [63:0] legal;
  othello_reference_n8 reference (.own(own), .opp(opp), .flips_of(flips_of), .legal(legal));
  wire [63:0] flips = flips_of[move * 64 +: 64];
  wire [63:0] placed = 64'd1 << move;
  wire [63:0] new_own = white_to_move ? new_white : new_black;
  wire [63:0] new_opp = white_to_move ? new_black : new_white;
  wire [63:0] changed = (new_black ^ black) | (new_white ^ white);

  always @* begin
    assume ((black & white) == 0);
    illegal_iff_no_run: assert (illegal == (flips == 0));
    illegal_leaves_board: assert (!illegal || (new_black == black && new_white == white));
    flips_exactly_the_runs: assert (illegal || (new_own == (own | flips | placed) && new_opp == (opp & ~flips)));
    nothing_outside_the_runs: assert ((changed & ~(flips | placed)) == 0);
  end
endmodule
