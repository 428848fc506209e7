"""The blocks the benches know: bench module, converted designs, regression sizes.

The one place a new block is registered; ``gamechip fuzz``, ``make bench`` and the pytest
functions all read it.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Block:
    name: str
    module: str  # the cocotb bench
    designs: tuple  # converted designs the bench checks; the first is the 8x8 one
    counts: dict  # simulator -> random positions of each kind in the default regression
    tests: tuple = ("directed", "random_occupancy", "random_played")  # the default regression
    quick_build: bool = True  # the regression's Verilator build at -O0 (False: a large design that runs long)


# Sized so the whole regression stays well inside 15 minutes on 2 cores: Verilator runs the
# harness at >100k positions/s, Icarus and GHDL interpret the per-square networks far slower.
BLOCKS = {
    "move_checker": Block("move_checker", "tb.test_move_checker", ("move_checker",),
                          {"icarus": 4000, "verilator": 50000, "ghdl": 2000}),
    "disc_flipper": Block("disc_flipper", "tb.test_disc_flipper",
                          ("disc_flipper", "disc_flipper_n6", "disc_flipper_n4"),
                          {"icarus": 3000, "verilator": 50000, "ghdl": 1500}),
    "stable_discs": Block("stable_discs", "tb.test_stable_discs", ("stable_discs",),
                          {"icarus": 3000, "verilator": 30000, "ghdl": 1500}),
    "evaluator": Block("evaluator", "tb.test_evaluator", ("evaluator", "evaluator_heavy"),
                       {"icarus": 600, "verilator": 10000, "ghdl": 400}),
    "node_order": Block("node_order", "tb.test_node_order", ("node_order",),
                        {"icarus": 500, "verilator": 4000, "ghdl": 500}),
    "openings": Block("openings", "tb.test_openings", ("openings",),
                      {"icarus": 1000, "verilator": 10000, "ghdl": 500}, tests=("directed", "random_played")),
    "chess_movegen": Block("chess_movegen", "tb.test_chess_movegen", ("chess_movegen",),
                           {"icarus": 30, "verilator": 2000, "ghdl": 20},
                           tests=("directed", "random_positions_walked", "perft"), quick_build=False),
    "chess_repetition": Block("chess_repetition", "tb.test_chess_repetition", ("chess_repetition",),
                              {"icarus": 30, "verilator": 300, "ghdl": 8}, tests=("directed", "random_walks")),
}
DESIGN_BLOCK = {design: block for block in BLOCKS.values() for design in block.designs}

# Designs with benches of their own that random positions through a batch harness cannot drive
# (a whole search, a serial line, refereed games): how each one is checked instead.
CHECKED_ELSEWHERE = {
    "search": "every node of its searches against the golden search: gamechip search --sim S, make search-deep",
    "search_c2": "two searches at once, every node of each against its own golden search: "
                 "make test (tb/test_search.py::test_search_interleaved)",
    "uart": "byte streams with noise, glitches and breaks: make test (tb/test_uart.py)",
    "processor": "whole refereed games: gamechip play --sim S, gamechip tournament --sim S",
    "evaluator_axi": "every bus response against the golden bus model, NegaScout searches replayed: "
                     "make test (tb/test_evaluator_axi.py)",
}


# The processor bench's tests per simulator in the default regression (tb/test_processor.py), and
# their settings. A whole game is about 18k cycles. Under the HDL clock Verilator plays one in
# about a second, so it runs every test and GAMECHIP_PROC_GAMES more games (both colours,
# reference levels 2-4 and random players, every third noisy); Icarus and GHDL interpret the
# processor far slower, so Icarus plays one game and the first 10 replies of a noisy one (then
# the referee's II) and GHDL one game: the regression stays inside 15 minutes.
PROCESSOR_PLAN = {
    "verilator": (["assembler", "game_black", "game_white", "noise", "processor_pass", "referee_codes", "games"],
                  {"GAMECHIP_PROC_GAMES": "24"}),
    "ghdl": (["assembler", "game_black"], {}),
    "icarus": (["assembler", "game_white", "noise"], {"GAMECHIP_PROC_MAX_REPLIES": "10"}),
}
# gamechip mutate's plan: the same tests with 4 more games instead of 24, since a mutant that
# survives runs all of it
PROCESSOR_MUTATION_PLAN = {**PROCESSOR_PLAN,
                           "verilator": (PROCESSOR_PLAN["verilator"][0], {"GAMECHIP_PROC_GAMES": "4"})}


def unknown(kind, name, valid):
    return f"unknown {kind} '{name}': choose one of {', '.join(valid)}"
