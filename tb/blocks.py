"""The blocks the benches know: bench module, converted designs, regression sizes.

The one place a new block is registered; ``gamechip fuzz``, ``make bench`` and the pytest
functions all read it.
"""

import os
from dataclasses import dataclass

# The regression's size: "default" (make test: every block on every simulator, the large sets on
# Verilator and the smallest meaningful set on Icarus and GHDL) or "full" (make test-full: every
# set on every simulator).
REGRESSION = "GAMECHIP_REGRESSION"
REGRESSION_TIERS = ("default", "full")


def regression_tier():
    """The tier GAMECHIP_REGRESSION names (default when unset); an unknown one is refused."""
    tier = os.environ.get(REGRESSION) or "default"
    if tier not in REGRESSION_TIERS:
        raise ValueError(f"{REGRESSION} must be one of {', '.join(REGRESSION_TIERS)}, got '{tier}'")
    return tier


def full_regression():
    return regression_tier() == "full"


@dataclass(frozen=True)
class Block:
    name: str
    module: str  # the cocotb bench
    designs: tuple  # converted designs the bench checks; the first is the 8x8 one
    default_counts: dict  # simulator -> random positions of each kind in the default regression
    full_counts: dict  # the same in the full regression
    tests: tuple = ("directed", "random_occupancy", "random_played")  # the regression's tests
    quick_build: bool = True  # the regression's Verilator build at -O0 (False: a large design that runs long)
    default_tests: dict = None  # simulator -> the default regression's tests where they are fewer than ``tests``

    @property
    def counts(self):
        """simulator -> random positions of each kind in the regression tier GAMECHIP_REGRESSION names."""
        return self.full_counts if full_regression() else self.default_counts

    def regression_tests(self, sim):
        """The tests of this block's regression on ``sim`` in the tier GAMECHIP_REGRESSION names."""
        if full_regression() or not self.default_tests:
            return self.tests
        return self.default_tests.get(sim, self.tests)


# The default tier gives Verilator a few thousand positions of each kind and the full tier the
# large sets: under cocotb 2 a batch bench checks some 4,000 positions a second on Verilator (the
# golden model and the bench's Python are the cost, not the simulator), so 50,000 positions are
# 12-20 s of a default run. Icarus and GHDL interpret the per-square networks far slower, and what
# they add is the other conversion and their own semantics, not volume: the default tier gives them
# a few hundred positions of each kind (no fewer than gamechip mutate --quick's 256 and
# tests/test_mutants' 300 on Icarus), the full tier thousands.
BLOCKS = {
    "move_checker": Block("move_checker", "tb.test_move_checker", ("move_checker",),
                          {"icarus": 300, "verilator": 5000, "ghdl": 256},
                          {"icarus": 4000, "verilator": 50000, "ghdl": 2000}),
    "disc_flipper": Block("disc_flipper", "tb.test_disc_flipper",
                          ("disc_flipper", "disc_flipper_n6", "disc_flipper_n4"),
                          {"icarus": 300, "verilator": 5000, "ghdl": 256},
                          {"icarus": 3000, "verilator": 50000, "ghdl": 1500}),
    "stable_discs": Block("stable_discs", "tb.test_stable_discs", ("stable_discs",),
                          {"icarus": 300, "verilator": 5000, "ghdl": 256},
                          {"icarus": 3000, "verilator": 30000, "ghdl": 1500}),
    "evaluator": Block("evaluator", "tb.test_evaluator", ("evaluator", "evaluator_heavy"),
                       {"icarus": 300, "verilator": 2000, "ghdl": 256},
                       {"icarus": 600, "verilator": 10000, "ghdl": 400},
                       # the directed set's 329 boards are 13 s of GHDL (the stable discs iterate): the
                       # default tier runs it on Icarus and Verilator, the full tier on GHDL as well
                       default_tests={"ghdl": ("random_occupancy", "random_played")}),
    # the pattern evaluator's design holds 30 ROMs (167,184 weights): its conversion and builds
    # cost more than its vectors; the full tier's directed set adds every table entry
    "pattern_evaluator": Block("pattern_evaluator", "tb.test_pattern_evaluator", ("pattern_evaluator",),
                               {"icarus": 300, "verilator": 4000, "ghdl": 256},
                               {"icarus": 2000, "verilator": 50000, "ghdl": 1000}),
    "node_order": Block("node_order", "tb.test_node_order", ("node_order",),
                        {"icarus": 300, "verilator": 1000, "ghdl": 256},
                        {"icarus": 500, "verilator": 4000, "ghdl": 500}),
    "openings": Block("openings", "tb.test_openings", ("openings",),
                      {"icarus": 300, "verilator": 2000, "ghdl": 256},
                      {"icarus": 1000, "verilator": 10000, "ghdl": 500}, tests=("directed", "random_played")),
    "chess_movegen": Block("chess_movegen", "tb.test_chess_movegen", ("chess_movegen",),
                           {"icarus": 30, "verilator": 500, "ghdl": 20},
                           {"icarus": 30, "verilator": 2000, "ghdl": 20},
                           tests=("directed", "random_positions_walked", "perft"),
                           # GHDL interprets the cell network slowest: its directed set (three quarters of
                           # its run) is Verilator's and Icarus's in the default tier
                           default_tests={"ghdl": ("random_positions_walked", "perft")}),
    "chess_repetition": Block("chess_repetition", "tb.test_chess_repetition", ("chess_repetition",),
                              {"icarus": 30, "verilator": 100, "ghdl": 8},
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
    "search_k2": "every job of every engine against the golden K-engine splitter, clock by clock, each job's nodes "
                 "by its node signature: make test-full (tb/test_search_k.py)",
    "search_k3": "every job of every engine against the golden K-engine splitter, clock by clock, each job's nodes "
                 "by its node signature: make test-full (tb/test_search_k.py test_search_k3)",
    "processor_c2": "every job of every search against the golden root splitter, clock by clock: make test "
                    "(tb/test_processor.py test_processor_c2)",
    "processor_k2": "whole refereed games, every job of every engine against the golden K-engine splitter, clock "
                    "by clock: make test-full (tests/test_processor_k.py, the bench tb/test_processor.py)",
    "processor_k3": "whole refereed games, every job of every engine against the golden K-engine splitter, clock "
                    "by clock: make test-full (tests/test_processor_k.py, the bench tb/test_processor.py)",
    "board_ulx3s": "refereed games over the board's pins, UART at its real divisor, LEDs checked: "
                   "make test (tb/test_board.py)",
    "evaluator_axi": "every bus response against the golden bus model, NegaScout searches replayed: "
                     "make test (tb/test_evaluator_axi.py)",
    "search_pattern": "every node of its searches against the golden search with the pattern evaluator: "
                      "make test-full (tests/test_pattern_engine.py::test_search_pattern)",
    "processor_pattern": "whole refereed games, every node of every search checked: make test-full "
                         "(tests/test_pattern_engine.py::test_processor_pattern_plays_whole_games_on_verilator), "
                         "gamechip play --sim S --evaluator pattern",
}

# The designs built with the pattern evaluator (docs/pattern-evaluator.md): their benches' golden
# twins search with its committed weight file; every other design has the seed's evaluator.
DESIGN_EVALUATOR = {"search_pattern": "pattern", "processor_pattern": "pattern"}


# Designs whose conversion, lint and benches run in make test-full only: those built with the
# pattern evaluator (the engine and 30 ROMs of weights, a minute of conversion and 5 MB of HDL
# each) and the K-engine designs (K engines: a 12 MB design at K = 2, whose conversions, lint and
# benches would add some 250 CPU-s to make test, over its 12-minute budget already; K = 3 minutes
# more).
FULL_TIER_DESIGNS = set(DESIGN_EVALUATOR) | {"search_k2", "processor_k2", "search_k3", "processor_k3"}


def design_params(designs):
    """``designs`` as pytest parameters, those of FULL_TIER_DESIGNS marked ``full`` (make test-full),
    for the tests that convert, lint or compile each design."""
    import pytest

    return [pytest.param(design, marks=pytest.mark.full) if design in FULL_TIER_DESIGNS else design
            for design in designs]


def design_evaluator(design):
    """The leaf evaluator ``design`` is built with: seed or pattern."""
    return DESIGN_EVALUATOR.get(design, "seed")

# The regression's pytest tests of the designs above that sample functional coverage
# (tb/testplans/; the benches add their hits themselves, tb.checks.coverage_benches): design ->
# [(pytest test, its simulators (None: every simulator), the simulators make test-full alone runs)].
# Coverage closure judges such a design once all of them passed in a session.
BENCH_SAMPLED_TESTS = {
    "search": [("tb/test_search.py::test_search", None, ())],
    "search_c2": [("tb/test_search.py::test_search_interleaved", None, ("ghdl",))],
    "search_k2": [("tb/test_search_k.py::test_search_k", None, ())],
    # the engine with the pattern evaluator: its conversion and builds keep it in make test-full
    "search_pattern": [("tests/test_pattern_engine.py::test_search_pattern", None, ("icarus", "verilator", "ghdl"))],
    "uart": [("tb/test_uart.py::test_uart", None, ())],
    "processor": [("tb/test_processor.py::test_processor", None, ())],
    "evaluator_axi": [("tb/test_evaluator_axi.py::test_evaluator_axi", ("icarus", "ghdl"), ()),
                      ("tb/test_evaluator_axi.py::test_evaluator_axi_streamed", ("verilator",), ())],
}


# The processor bench's tests per simulator in each regression tier (tb/test_processor.py), and
# their settings. A whole game is about 18k cycles. Under the HDL clock Verilator plays one in
# about a second, so it runs every test and GAMECHIP_PROC_GAMES more games (both colours,
# reference levels 2-4 and random players, every third noisy): 8 in the default tier, which close
# the processor's test plan, 24 in the full tier. Icarus and GHDL interpret the processor far
# slower (GHDL about 2 s a reply): in the default tier they run the assembler's corner cases and
# the first GAMECHIP_PROC_MAX_REPLIES (5) replies of a noisy game (then the referee's II); in the
# full tier every directed test and whole game but the extra games.
PROCESSOR_EVERY_TEST = ["assembler", "game_black", "game_white", "noise", "processor_pass", "referee_codes",
                        "least_budget"]
# The one-context processor's endgame solve (rtl/processor.py): a whole game whose last moves take
# each of its answers. Icarus plays it in about two minutes (some 180 clocks a second), so it runs
# on Icarus and GHDL in the full tier only.
PROCESSOR_SOLVE_TESTS = ["solve_endgame"]
PROCESSOR_VERILATOR_PLAN = (PROCESSOR_EVERY_TEST + PROCESSOR_SOLVE_TESTS + ["games"], {"GAMECHIP_PROC_GAMES": "8"})
PROCESSOR_VERILATOR_FULL_PLAN = (PROCESSOR_EVERY_TEST + PROCESSOR_SOLVE_TESTS + ["games"], {"GAMECHIP_PROC_GAMES": "24"})
PROCESSOR_TRUNCATED_PLAN = (["assembler", "noise"], {"GAMECHIP_PROC_MAX_REPLIES": "5"})
PROCESSOR_PLANS = {
    "default": {"verilator": PROCESSOR_VERILATOR_PLAN, "ghdl": PROCESSOR_TRUNCATED_PLAN,
                "icarus": PROCESSOR_TRUNCATED_PLAN},
    "full": {"verilator": PROCESSOR_VERILATOR_FULL_PLAN, "ghdl": (PROCESSOR_EVERY_TEST + PROCESSOR_SOLVE_TESTS, {}),
             "icarus": (PROCESSOR_EVERY_TEST + PROCESSOR_SOLVE_TESTS, {})},
}


# The two-context processor (design processor_c2, docs/root-split.md): every job of both contexts
# checked against the golden root splitter. Icarus simulates it at a few hundred clocks a second:
# its default tier is the assembler's cases, whose one search (the opponent's pass in book) runs
# ROOT, PV, NULL and RESEARCH jobs; Verilator adds a whole game in each colour and two games whose
# searches get budgets of 0 and 1 clocks. GHDL runs in the full tier only (tb/test_processor.py
# marks it). The full tier: every test on Verilator, the first replies of a game as well on Icarus
# and GHDL.
PROCESSOR_C2_TRUNCATED_PLAN = (["assembler", "game_black"], {"GAMECHIP_PROC_MAX_REPLIES": "6"})
PROCESSOR_C2_PLANS = {
    "default": {"verilator": (["assembler", "game_black", "game_white", "least_budget"], {}), "icarus": (["assembler"], {}),
                "ghdl": (["assembler"], {})},
    "full": {"verilator": (PROCESSOR_EVERY_TEST + ["games"], {"GAMECHIP_PROC_GAMES": "4"}),
             "icarus": PROCESSOR_C2_TRUNCATED_PLAN, "ghdl": PROCESSOR_C2_TRUNCATED_PLAN},
}
# The processor with K engines (designs processor_k2, processor_k3, docs/k-engines.md): every job of
# every engine checked against the golden K-engine splitter. Its bench runs in make test-full
# (FULL_TIER_DESIGNS, tests/test_processor_k.py): whole games in both colours, with noise and with
# budgets of 0 and 1 clocks on Verilator, the assembler's cases and the first replies of a game on
# Icarus and GHDL. The default plans (the assembler's cases, and on Verilator the first
# GAMECHIP_PROC_MAX_REPLIES replies of a game) serve a run outside the full tier, gatelevel and mutate.
PROCESSOR_K_PLANS = {
    "default": {"verilator": (["assembler", "game_black"], {"GAMECHIP_PROC_MAX_REPLIES": "10"}),
                "icarus": (["assembler"], {}), "ghdl": (["assembler"], {})},
    "full": {"verilator": (["assembler", "game_black", "game_white", "least_budget", "noise"], {}),
             "icarus": PROCESSOR_C2_TRUNCATED_PLAN, "ghdl": PROCESSOR_C2_TRUNCATED_PLAN},
}
# the processor with the pattern evaluator: the one-context processor's plans (its bench runs in
# make test-full, tests/test_pattern_engine.py; gamechip gatelevel and mutate read these)
PROCESSOR_PLAN_DESIGNS = {"processor": PROCESSOR_PLANS, "processor_c2": PROCESSOR_C2_PLANS,
                          "processor_pattern": PROCESSOR_PLANS, "processor_k2": PROCESSOR_K_PLANS,
                          "processor_k3": PROCESSOR_K_PLANS}


# The processor designs' search: design -> (contexts, engines) (rtl/designs.py build_processor).
PROCESSOR_SEARCH = {"processor": (1, 1), "processor_c2": (2, 1), "processor_pattern": (1, 1), "processor_k2": (1, 2),
                    "processor_k3": (1, 3)}


def processor_plan(sim, design="processor"):
    """(tests, settings) of the processor bench for ``design`` on ``sim`` in the regression tier
    GAMECHIP_REGRESSION names."""
    return PROCESSOR_PLAN_DESIGNS[design][regression_tier()][sim]


# gamechip mutate's plan: the default tier's, with 4 more games on Verilator instead of 8, since
# a mutant that survives runs all of it
PROCESSOR_MUTATION_PLAN = {**PROCESSOR_PLANS["default"],
                           "verilator": (PROCESSOR_VERILATOR_PLAN[0], {"GAMECHIP_PROC_GAMES": "4"})}


def regression_params(block, sims):
    """The (sim, design) pytest parameters of a batch block's regression on ``sims``. A block's
    variant designs (other board sizes, other weights) run on Icarus in every tier and on Verilator
    and GHDL in the full tier only (pytest mark ``full``, make test-full): a Verilator build of each
    would cost more than all their runs, and GHDL, the slowest to run them, adds only the VHDL
    conversion of a variant, a check make test-full keeps and make test leaves out for its time."""
    import pytest

    return [pytest.param(sim, design, id=f"{sim}-{design}",
                         marks=pytest.mark.full if sim in ("verilator", "ghdl") and design != block.designs[0] else ())
            for design in block.designs for sim in sims]


def unknown(kind, name, valid):
    return f"unknown {kind} '{name}': choose one of {', '.join(valid)}"


# The board top's bench (tb/test_board.py, rtl/board.py): the processor on the ULX3S's pins, UART at
# the board's real divisor, on Verilator. The default tier checks power-on, the illegal-input LED
# and the first replies of a game as black (book moves and searches); the full tier whole games in
# both colours, a reset by the button and the game-over LED. The regression runs the board on
# Verilator only; the Icarus sets (power-on, the illegal-input LED and the first replies as black)
# serve ``gamechip gatelevel``, whose netlists run on both simulators.
BOARD_PLANS = {
    "default": {"verilator": (["power_on", "illegal_input", "game_black"], {"GAMECHIP_BOARD_MAX_REPLIES": "12"}),
                "icarus": (["power_on", "illegal_input", "game_black"], {"GAMECHIP_BOARD_MAX_REPLIES": "4"})},
    "full": {"verilator": (["power_on", "illegal_input", "game_black", "game_white", "button_reset", "game_over"],
                           {}),
             "icarus": (["power_on", "illegal_input", "game_black"], {"GAMECHIP_BOARD_MAX_REPLIES": "12"})},
}


def board_plan(sim):
    """(tests, settings) of the board bench on ``sim`` in the regression tier GAMECHIP_REGRESSION names."""
    return BOARD_PLANS[regression_tier()][sim]
