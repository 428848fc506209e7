// move_checker (docs/spec.md §1) against the reference rules, for every pair of bitboards with no
// square in both: legal(s) <=> s is empty and some direction holds a run of opponent discs
// closed by an own disc.
module formal_move_checker (input [63:0] own, input [63:0] opp);
  wire [63:0] legal, expected;
  wire [64*64-1:0] flips_of;
  move_checker dut (.own(own), .opp(opp), .legal(legal));
  othello_reference_n8 reference (.own(own), .opp(opp), .flips_of(flips_of), .legal(expected));

  always @* begin
    assume ((own & opp) == 0);
    legal_iff_run: assert (legal == expected);
  end
endmodule
