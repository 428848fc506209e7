"""Registry of the convertible top-level designs.

``DESIGNS[name]()`` creates the top-level signals and returns the elaborated block instance;
convert it with ``inst.convert(hdl=..., path=..., name=name)`` so that the module / entity
is called ``name``. ``PORTS[name]`` lists ``(port, width, 'in' | 'out')`` in argument order
(bool = width 1) and ``SIZE[name]`` the board side, so that wrappers and benches can be
generated without elaborating anything. Port names are the block argument names.
``SIGNED[name]`` is the set of ports that are two's complement (MyHDL intbv with a negative
min: Verilog ``signed``, VHDL ``signed``); every other port is unsigned. Designs without
signed ports have no entry (use ``SIGNED.get(name, set())``).
"""

from myhdl import ResetSignal, Signal, intbv


from rtl.board import board_design, board_ports
from rtl.chess.movegen import chess_movegen
from rtl.chess.repetition import chess_repetition
from rtl.disc_flipper import disc_flipper
from rtl.evaluator import DEFAULT, HEAVY, evaluator
from rtl.evaluator_axi import evaluator_axi
from rtl.geometry import move_width
from rtl.k_engines import k_splitter
from rtl.move_checker import move_checker
from rtl.node_order import node_order
from rtl.openings import openings
from rtl.pattern_evaluator import STAGE_BITS, pattern_evaluator
from rtl.processor import JOB_SIGNED, k_engines_job_ports, processor, processor_ports
from rtl.processor_settings import PROCESSOR_SOLVE_EMPTIES
from rtl.search import LEVELS, SOLVE_LEVELS, search
from rtl.stable_discs import stable_discs
from rtl.uart import uart


def move_checker_ports(size):
    squares = size * size
    return [("own", squares, "in"), ("opp", squares, "in"), ("legal", squares, "out")]


def disc_flipper_ports(size):
    squares = size * size
    return [("black", squares, "in"), ("white", squares, "in"), ("white_to_move", 1, "in"),
            ("move", move_width(size), "in"), ("new_black", squares, "out"),
            ("new_white", squares, "out"), ("illegal", 1, "out")]


def stable_discs_ports(size):
    squares = size * size
    return [("clk", 1, "in"), ("rst", 1, "in"), ("start", 1, "in"), ("black", squares, "in"),
            ("white", squares, "in"), ("color", 1, "in"), ("done", 1, "out"),
            ("count", (squares + 1).bit_length(), "out"), ("stable", squares, "out")]


def evaluator_ports():
    return [("clk", 1, "in"), ("rst", 1, "in"), ("start", 1, "in"), ("black", 64, "in"),
            ("white", 64, "in"), ("white_to_move", 1, "in"), ("done", 1, "out"),
            ("terminal", 1, "out"), ("stage", 2, "out"),
            ("corners_own", 3, "out"), ("corners_opp", 3, "out"),
            ("xsq_own", 3, "out"), ("xsq_opp", 3, "out"),
            ("mobility_own", 7, "out"), ("mobility_opp", 7, "out"),
            ("stable_own", 7, "out"), ("stable_opp", 7, "out"),
            ("discs_own", 7, "out"), ("discs_opp", 7, "out"),
            ("fixed_value", 9, "out"), ("adaptive_value", 9, "out")]


def pattern_evaluator_ports():
    return [("clk", 1, "in"), ("rst", 1, "in"), ("start", 1, "in"), ("black", 64, "in"),
            ("white", 64, "in"), ("white_to_move", 1, "in"), ("done", 1, "out"),
            ("stage", STAGE_BITS, "out"), ("value", 9, "out")]


def node_order_ports():
    return [("legal", 64, "in"), ("pv_valid", 1, "in"), ("pv_move", 6, "in"), ("first", 1, "in"),
            ("last_move", 6, "in"), ("found", 1, "out"), ("next_move", 6, "out")]


def openings_ports():
    return [("clk", 1, "in"), ("rst", 1, "in"), ("start", 1, "in"), ("restart", 1, "in"),
            ("move", 6, "in"), ("done", 1, "out"), ("in_book", 1, "out"),
            ("book_move", 6, "out")]


# Clock cycles per bit of the converted UART: small, so that benches simulate few cycles per
# frame, and even, so that the receiver's half-bit wait is exact.
UART_DIVISOR = 8


def uart_ports():
    return [("clk", 1, "in"), ("rst", 1, "in"), ("rx", 1, "in"), ("tx", 1, "out"),
            ("rx_data", 8, "out"), ("rx_valid", 1, "out"), ("rx_frame_error", 1, "out"),
            ("tx_data", 8, "in"), ("tx_send", 1, "in"), ("tx_busy", 1, "out")]


def evaluator_axi_ports():
    return [("clk", 1, "in"), ("rst", 1, "in"),
            ("s_axil_awaddr", 12, "in"), ("s_axil_awvalid", 1, "in"), ("s_axil_awready", 1, "out"),
            ("s_axil_wdata", 32, "in"), ("s_axil_wstrb", 4, "in"), ("s_axil_wvalid", 1, "in"),
            ("s_axil_wready", 1, "out"), ("s_axil_bresp", 2, "out"), ("s_axil_bvalid", 1, "out"),
            ("s_axil_bready", 1, "in"), ("s_axil_araddr", 12, "in"), ("s_axil_arvalid", 1, "in"),
            ("s_axil_arready", 1, "out"), ("s_axil_rdata", 32, "out"), ("s_axil_rresp", 2, "out"),
            ("s_axil_rvalid", 1, "out"), ("s_axil_rready", 1, "in")]


def search_ports(solve=False):
    """The engine's ports; with ``solve``, the solve mode's inputs too (the ``search`` design)."""
    return [("clk", 1, "in"), ("rst", 1, "in"), ("start", 1, "in"), ("root_black", 64, "in"),
            ("root_white", 64, "in"), ("root_white_to_move", 1, "in"), ("depth_limit", 5, "in"),
            ("budget", 32, "in"), ("root_alpha", 9, "in"), ("root_beta", 9, "in"), ("done", 1, "out"), ("best_move", 6, "out"),
            ("best_pass", 1, "out"), ("value", 9, "out"), ("depth", 5, "out"),
            ("nodes", 32, "out"), ("cycles", 32, "out"), ("node_event", 1, "out"),
            ("event_kind", 2, "out"), ("event_ply", 5, "out"), ("event_black", 64, "out"),
            ("event_white", 64, "out"), ("event_white_to_move", 1, "out"),
            ("event_legal", 64, "out"), ("event_stable_own", 7, "out"),
            ("event_stable_opp", 7, "out"), ("event_value", 9, "out"),
            ("event_terminal", 1, "out"), ("event_stage", 2, "out"),
            ("event_corners_own", 3, "out"), ("event_corners_opp", 3, "out"),
            ("event_xsq_own", 3, "out"), ("event_xsq_opp", 3, "out"),
            ("event_mobility_own", 7, "out"), ("event_mobility_opp", 7, "out"),
            ("event_discs_own", 7, "out"), ("event_discs_opp", 7, "out"),
            ("event_fixed", 9, "out"), ("event_adaptive", 9, "out"), ("fault", 1, "out")] + (
        [("solve_mode", 1, "in"), ("solve_winner", 1, "in")] if solve else [])


def search_c2_ports():
    """The engine with two interleaved contexts (rtl/contexts.py): the search's ports and
    ``turn``, the context that they take and describe in this clock."""
    return search_ports() + [("turn", 1, "out")]


def search_k_ports(engines):
    """The K-engine splitter (rtl/k_engines.py ``k_splitter``): one search of a move on K engines;
    the root's flipper on the idle_* ports while no search runs, and the job port."""
    return [("clk", 1, "in"), ("rst", 1, "in"), ("start", 1, "in"), ("root_black", 64, "in"),
            ("root_white", 64, "in"), ("root_white_to_move", 1, "in"), ("depth_limit", 5, "in"),
            ("budget", 32, "in"), ("done", 1, "out"), ("best_move", 6, "out"), ("best_pass", 1, "out"),
            ("value", 9, "out"), ("depth", 5, "out"), ("nodes", 32, "out"), ("cycles", 32, "out"),
            ("fault", 1, "out"), ("idle_move", 6, "in"), ("idle_black", 64, "out"), ("idle_white", 64, "out"),
            ("idle_illegal", 1, "out")] + k_engines_job_ports(engines) + [("trace_signature", 64, "out")]


def chess_movegen_ports():
    """docs/spec-chess.md §4; the ``next`` request is ``next_req`` (``next`` is a VHDL keyword)."""
    return [("clk", 1, "in"), ("rst", 1, "in"), ("start", 1, "in"), ("next_req", 1, "in"), ("mode", 1, "in"),
            ("board", 256, "in"), ("wtm", 1, "in"), ("castle", 4, "in"), ("ep_valid", 1, "in"),
            ("ep_file", 3, "in"), ("last_mv", 16, "in"), ("valid", 1, "out"), ("status", 2, "out"),
            ("mv", 16, "out"), ("busy", 1, "out")]


def chess_repetition_ports():
    """docs/spec-chess.md §6, plus the reply pulse rd_valid."""
    return [("clk", 1, "in"), ("rst", 1, "in"), ("rd_init", 1, "in"), ("rd_push", 1, "in"), ("rd_pop", 1, "in"),
            ("rd_wtm", 1, "in"), ("rd_from", 6, "in"), ("rd_to", 6, "in"), ("rd_piece", 4, "in"),
            ("rd_irrev", 1, "in"), ("rd_dbg_k", 6, "in"), ("rd_valid", 1, "out"), ("rep", 1, "out"),
            ("rep_dist", 6, "out"), ("near", 1, "out"), ("near_from", 6, "out"), ("near_to", 6, "out"),
            ("rd_dbg_d", 6, "out")]


SIZE = {
    "move_checker": 8,
    "disc_flipper": 8,
    "disc_flipper_n4": 4,
    "disc_flipper_n6": 6,
    "stable_discs": 8,
    "evaluator": 8,
    "evaluator_heavy": 8,
    "pattern_evaluator": 8,
    "node_order": 8,
    "openings": 8,
    "search": 8,
    "search_c2": 8,
    "search_k2": 8,
    "search_k3": 8,
    "search_pattern": 8,
    "processor": 8,
    "processor_pattern": 8,
    "processor_c2": 8,
    "processor_k2": 8,
    "processor_k3": 8,
    "chess_movegen": 8,
    "chess_repetition": 8,
    "evaluator_axi": 8,
    "board_ulx3s": 8,
    "uart": 8,  # no board: tb.runner hands every bench a board side, and the uart bench ignores it
}

PORTS = {
    "move_checker": move_checker_ports(SIZE["move_checker"]),
    "disc_flipper": disc_flipper_ports(SIZE["disc_flipper"]),
    "disc_flipper_n4": disc_flipper_ports(SIZE["disc_flipper_n4"]),
    "disc_flipper_n6": disc_flipper_ports(SIZE["disc_flipper_n6"]),
    "stable_discs": stable_discs_ports(SIZE["stable_discs"]),
    "evaluator": evaluator_ports(),
    "evaluator_heavy": evaluator_ports(),
    "pattern_evaluator": pattern_evaluator_ports(),
    "node_order": node_order_ports(),
    "openings": openings_ports(),
    "uart": uart_ports(),
    "processor": processor_ports(),
    "processor_c2": processor_ports(contexts=2),
    "processor_k2": processor_ports(engines=2),
    "processor_k3": processor_ports(engines=3),
    "processor_pattern": processor_ports(),
    "search": search_ports(solve=True),
    "search_c2": search_c2_ports(),
    "search_k2": search_k_ports(2),
    "search_k3": search_k_ports(3),
    "search_pattern": search_ports(solve=True),
    "chess_movegen": chess_movegen_ports(),
    "chess_repetition": chess_repetition_ports(),
    "evaluator_axi": evaluator_axi_ports(),
    "board_ulx3s": board_ports("ulx3s"),
}

SIGNED = {
    "evaluator": {"fixed_value", "adaptive_value"},
    "evaluator_heavy": {"fixed_value", "adaptive_value"},
    "pattern_evaluator": {"value"},
    "search": {"root_alpha", "root_beta", "value", "event_value", "event_fixed", "event_adaptive"},
    "search_c2": {"root_alpha", "root_beta", "value", "event_value", "event_fixed", "event_adaptive"},
    "search_pattern": {"root_alpha", "root_beta", "value", "event_value", "event_fixed", "event_adaptive"},
    "search_k2": {"value"} | JOB_SIGNED,
    "search_k3": {"value"} | JOB_SIGNED,
    "processor": {"last_value"},
    "processor_pattern": {"last_value"},
    "processor_c2": {"last_value"} | JOB_SIGNED,
    "processor_k2": {"last_value"} | JOB_SIGNED,
    "processor_k3": {"last_value"} | JOB_SIGNED,
}


def port_signals(ports):
    """One signal per port: Signal(bool) for width 1, Signal(intbv[width]) otherwise."""
    return [Signal(bool(0)) if width == 1 else Signal(intbv(0)[width:]) for _, width, _ in ports]


def build_move_checker(size):
    return move_checker(*port_signals(move_checker_ports(size)), size=size)


def build_disc_flipper(size):
    return disc_flipper(*port_signals(disc_flipper_ports(size)), size=size)


def build_stable_discs(size):
    """rst is a synchronous active-high ResetSignal, count an intbv(0, min=0, max=N*N+1)."""
    signals = dict(zip((name for name, _, _ in stable_discs_ports(size)),
                       port_signals(stable_discs_ports(size))))
    signals["rst"] = ResetSignal(0, active=1, isasync=False)
    signals["count"] = Signal(intbv(0, min=0, max=size * size + 1))
    return stable_discs(size=size, **signals)


def build_evaluator(weights):
    """rst is a synchronous active-high ResetSignal; counts are intbv(0, min=0, max=5 or 65);
    fixed_value / adaptive_value are intbv(0, min=-256, max=256) (signed)."""
    signals = dict(zip((name for name, _, _ in evaluator_ports()),
                       port_signals(evaluator_ports())))
    signals["rst"] = ResetSignal(0, active=1, isasync=False)
    for name in ("corners_own", "corners_opp", "xsq_own", "xsq_opp"):
        signals[name] = Signal(intbv(0, min=0, max=5))
    for name in ("mobility_own", "mobility_opp", "stable_own", "stable_opp",
                 "discs_own", "discs_opp"):
        signals[name] = Signal(intbv(0, min=0, max=65))
    for name in SIGNED["evaluator"]:
        signals[name] = Signal(intbv(0, min=-256, max=256))
    return evaluator(weights=weights, **signals)


def build_pattern_evaluator():
    """rst is a synchronous active-high ResetSignal; value is intbv(0, min=-256, max=256)
    (signed); the tables are the committed weight file's (golden/pattern_weights.txt)."""
    signals = dict(zip((name for name, _, _ in pattern_evaluator_ports()), port_signals(pattern_evaluator_ports())))
    signals["rst"] = ResetSignal(0, active=1, isasync=False)
    signals["value"] = Signal(intbv(0, min=-256, max=256))
    return pattern_evaluator(**signals)


def build_node_order():
    return node_order(*port_signals(node_order_ports()))


def build_openings():
    """rst is a synchronous active-high ResetSignal."""
    signals = dict(zip((name for name, _, _ in openings_ports()), port_signals(openings_ports())))
    signals["rst"] = ResetSignal(0, active=1, isasync=False)
    return openings(**signals)


def build_uart():
    """rst is a synchronous active-high ResetSignal; divisor UART_DIVISOR."""
    signals = dict(zip((name for name, _, _ in uart_ports()), port_signals(uart_ports())))
    signals["rst"] = ResetSignal(0, active=1, isasync=False)
    return uart(divisor=UART_DIVISOR, **signals)


def build_evaluator_axi():
    """rst is a synchronous active-high ResetSignal; the AXI4-Lite ports are prefixed s_axil_."""
    signals = dict(zip((name for name, _, _ in evaluator_axi_ports()), port_signals(evaluator_axi_ports())))
    signals["rst"] = ResetSignal(0, active=1, isasync=False)
    return evaluator_axi(**signals)


def build_search(adaptive, contexts=1, evaluator="seed"):
    """rst is a synchronous active-high ResetSignal; value / event_value are signed 9-bit;
    depth_limit and the depth output hold 0..16, the ply output 0..31. One context: the engine
    that solves too (solve ports, SOLVE_LEVELS of board stack); two: the midgame engine.
    ``evaluator``: the leaf evaluator, seed or pattern (rtl/search.py EVALUATORS)."""
    ports = search_ports(solve=True) if contexts == 1 else search_c2_ports()
    signals = dict(zip((name for name, _, _ in ports), port_signals(ports)))
    signals["rst"] = ResetSignal(0, active=1, isasync=False)
    for name in SIGNED["search"]:
        signals[name] = Signal(intbv(0, min=-256, max=256))
    for name in ("depth_limit", "depth"):
        signals[name] = Signal(intbv(0, min=0, max=17))
    signals["event_ply"] = Signal(intbv(0, min=0, max=32))
    for name in ("event_stable_own", "event_stable_opp", "event_mobility_own",
                 "event_mobility_opp", "event_discs_own", "event_discs_opp"):
        signals[name] = Signal(intbv(0, min=0, max=65))
    for name in ("event_corners_own", "event_corners_opp", "event_xsq_own", "event_xsq_opp"):
        signals[name] = Signal(intbv(0, min=0, max=5))
    levels = SOLVE_LEVELS if contexts == 1 else LEVELS
    return search(adaptive=adaptive, contexts=contexts, levels=levels, evaluator=evaluator, **signals)


def engine_port(engines):
    """The job port's engine, 0..K-1: Signal(bool) for K = 2 (a width-1 port is a bool, whose VHDL is
    std_logic), else an intbv(min=0, max=K)."""
    return Signal(bool(0)) if engines == 2 else Signal(intbv(0, min=0, max=engines))


def build_search_k(engines):
    """The K-engine splitter (rtl/k_engines.py) with ``engines`` engines: rst is a synchronous
    active-high ResetSignal; depth_limit, depth and job_depth hold 0..16; value and the job
    port's alpha, beta and value are signed 9-bit; job_engine holds 0..K-1 (engine_port)."""
    ports = search_k_ports(engines)
    signals = dict(zip((name for name, _, _ in ports), port_signals(ports)))
    signals["rst"] = ResetSignal(0, active=1, isasync=False)
    for name in ("depth_limit", "depth", "job_depth"):
        signals[name] = Signal(intbv(0, min=0, max=17))
    for name in SIGNED[f"search_k{engines}"]:
        signals[name] = Signal(intbv(0, min=-256, max=256))
    signals["job_engine"] = engine_port(engines)
    return k_splitter(engines=engines, **signals)


# The converted processor: smallest practical UART divisor, full depth limit; the per-move
# cycle budget is an input port (the benches' default is small: they simulate whole games).
PROCESSOR_DIVISOR = 8
PROCESSOR_BUDGET = 256
PROCESSOR_DEPTH_LIMIT = 16
# processor_c2's regression budget, in clocks (both contexts together): enough that a game's
# searches complete iteration 3 or 4 and run iteration 4's PV, null-window and re-search jobs
PROCESSOR_C2_BUDGET = 4 * PROCESSOR_BUDGET


def build_processor(contexts=1, evaluator="seed", engines=1):
    """rst is a synchronous active-high ResetSignal; last_depth (and job_depth) hold 0..16; the
    value ports are signed 9-bit. ``evaluator``: the engine's, seed or pattern (one context).
    ``engines``: K >= 2, the K-engine splitter (job_engine holds 0..K-1, engine_port)."""
    ports = processor_ports(contexts, engines)
    signals = dict(zip((name for name, _, _ in ports), port_signals(ports)))
    signals["rst"] = ResetSignal(0, active=1, isasync=False)
    signals["last_depth"] = Signal(intbv(0, min=0, max=17))
    signals["last_value"] = Signal(intbv(0, min=-256, max=256))
    if contexts == 1 and engines == 1:
        return processor(divisor=PROCESSOR_DIVISOR, depth_limit=PROCESSOR_DEPTH_LIMIT, solve_empties=PROCESSOR_SOLVE_EMPTIES,
                         evaluator=evaluator, **signals)
    signals["job_depth"] = Signal(intbv(0, min=0, max=17))
    for name in JOB_SIGNED:
        signals[name] = Signal(intbv(0, min=-256, max=256))
    if engines > 1:
        signals["job_engine"] = engine_port(engines)
    return processor(divisor=PROCESSOR_DIVISOR, depth_limit=PROCESSOR_DEPTH_LIMIT, contexts=contexts, engines=engines,
                     **signals)


def build_chess_movegen():
    """rst is a synchronous active-high ResetSignal."""
    signals = dict(zip((name for name, _, _ in chess_movegen_ports()), port_signals(chess_movegen_ports())))
    signals["rst"] = ResetSignal(0, active=1, isasync=False)
    return chess_movegen(**signals)


def build_chess_repetition():
    """rst is a synchronous active-high ResetSignal."""
    signals = dict(zip((name for name, _, _ in chess_repetition_ports()), port_signals(chess_repetition_ports())))
    signals["rst"] = ResetSignal(0, active=1, isasync=False)
    return chess_repetition(**signals)


DESIGNS = {
    "move_checker": lambda: build_move_checker(SIZE["move_checker"]),
    "disc_flipper": lambda: build_disc_flipper(SIZE["disc_flipper"]),
    "disc_flipper_n4": lambda: build_disc_flipper(SIZE["disc_flipper_n4"]),
    "disc_flipper_n6": lambda: build_disc_flipper(SIZE["disc_flipper_n6"]),
    "stable_discs": lambda: build_stable_discs(SIZE["stable_discs"]),
    "evaluator": lambda: build_evaluator(DEFAULT),
    "evaluator_heavy": lambda: build_evaluator(HEAVY),
    "pattern_evaluator": build_pattern_evaluator,
    "node_order": build_node_order,
    "openings": build_openings,
    "uart": build_uart,
    "processor": build_processor,
    "processor_c2": lambda: build_processor(contexts=2),
    # the processor with K engines (docs/k-engines.md): make test-full (tb.blocks FULL_TIER_DESIGNS)
    "processor_k2": lambda: build_processor(engines=2),
    "processor_k3": lambda: build_processor(engines=3),
    "search": lambda: build_search(False),
    "search_c2": lambda: build_search(False, contexts=2),
    # the K-engine splitter (docs/k-engines.md): make test-full (tb.blocks FULL_TIER_DESIGNS)
    "search_k2": lambda: build_search_k(2),
    "search_k3": lambda: build_search_k(3),
    # the engine and the processor with the pattern evaluator (docs/pattern-evaluator.md)
    "search_pattern": lambda: build_search(False, evaluator="pattern"),
    "processor_pattern": lambda: build_processor(evaluator="pattern"),
    "chess_movegen": build_chess_movegen,
    "chess_repetition": build_chess_repetition,
    "evaluator_axi": build_evaluator_axi,
    # the processor on the ULX3S's pins (rtl/board.py): the bitstream's top with the PLL's
    # simulation stand-in, and the benches' small budget per move instead of 0.1 s
    "board_ulx3s": lambda: board_design("ulx3s", budget=PROCESSOR_BUDGET),
}
