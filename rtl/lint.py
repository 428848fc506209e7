"""Verilator lint settings for the converted Verilog, kept in this one place.

``VERILATOR_WAIVERS`` maps each ``-Wno-...`` flag to the reason it is acceptable. It is
empty: every design converts clean under ``-Wall``. (The move checker tests its arriving
patterns through a mask rather than by slicing off bit 0, which would otherwise leave bits
that UNUSEDSIGNAL reports. The evaluator zero-extends its counts with exact-width
concatenations before subtracting, and saturates with an explicit ``[9:].signed()`` slice,
so no operand is widened or truncated implicitly (WIDTH); it builds its stable_discs
instances without the unused ``stable`` vector (UNUSEDSIGNAL). The node ordering compares
positions with constants in one cell per position, not with a loop variable, which converts
to a 32-bit ``integer`` (WIDTH), and builds no "< 0" comparison (UNSIGNED).) Add a waiver
only with its reason.
"""

VERILATOR_WAIVERS = {}

VERILATOR_LINT_FLAGS = ["--lint-only", "-Wall", *VERILATOR_WAIVERS]

# Waivers for one design only, each with its reason.
DESIGN_WAIVERS = {
    "evaluator_axi": {
        "-Wno-UNUSEDSIGNAL": "the peripheral returns only the evaluator's adaptive value (docs/spec.md §10): the term "
                             "outputs, the fixed-weight value, stage and terminal of its evaluator stay "
                             "unconnected, and wstrb is ignored (every write is a whole word, documented)",
    },
    "search_pattern": {
        "-Wno-UNUSEDSIGNAL": "the engine with the pattern evaluator (rtl/search.py evaluator=\"pattern\") reads of "
                             "the seed's evaluator only what its move checkers and counts give in cycle 0: its done, "
                             "stage, stable counts and values stay unconnected, and synthesis removes their logic",
    },
    "processor_pattern": {
        "-Wno-UNUSEDSIGNAL": "its engine is search_pattern's: the seed evaluator's done, stage, stable counts and "
                             "values stay unconnected (synthesis removes their logic)",
    },
    "processor_c2": {
        "-Wno-UNUSEDSIGNAL": "the processor's root-window registers (window_alpha, window_beta) feed the "
                             "one-context engine only (the root splitter gives every job its window itself), "
                             "and the splitter leaves its engine's cycle count unread (it counts its own clocks)",
    },
    **{design: {"-Wno-UNUSEDSIGNAL": "the K-engine splitter (rtl/k_engines.py) leaves each engine's cycle count "
                                     "unread (it counts its own clocks, as the root splitter does)"}
       for design in ("search_k2", "search_k3")},
    **{design: {"-Wno-UNUSEDSIGNAL": "the processor's root-window registers (window_alpha, window_beta) feed the "
                                     "one-context engine only (the K-engine splitter gives every job its window "
                                     "itself), and the splitter leaves its engines' cycle counts unread (it counts "
                                     "its own clocks)"}
       for design in ("processor_k2", "processor_k3")},
    "chess_movegen": {
        "-Wno-WIDTH": "the chess cells test 64-bit planes against constant square masks (knight, king "
                      "and pawn patterns); MyHDL writes each mask with its own width (33'h..., or "
                      "65'h... when bit 63 is set, a positive Python int), and the AND zero-extends or "
                      "drops only zero bits, which is the intended value",
    },
    "board_ulx3s": {
        "-Wno-UNUSEDSIGNAL": "the board top (rtl/board.py) leaves the processor's status words (last_depth, "
                             "last_cycles, last_nodes, last_value, trace_signature) unconnected: a board has no "
                             "pins for them, and synthesis removes the logic only they need",
    },
    "chess_repetition": {
        "-Wno-WIDTH": "the counters add 6-bit squares and counts in 8-bit sums (so that minus x can be "
                      "written plus 64 - x without a negative value); the operands zero-extend and the "
                      "result is sliced back to 6 bits, which is the intended modulo-64 arithmetic",
        "-Wno-SYMRSVDWORD": "docs/spec-chess.md §6 names the output 'near', a common C++ word; Verilator renames it "
                            "in its C++ model, which nothing here reads by that name",
    },
}


def lint_flags(design):
    """The Verilator lint flags for ``design``: the common ones plus its own waivers."""
    return VERILATOR_LINT_FLAGS + list(DESIGN_WAIVERS.get(design, {}))
