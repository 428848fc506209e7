"""Processor top (docs/spec.md §8): RS-232 UART + referee protocol + board + openings table + search.

Messages are two ASCII characters, 8N1 frames at ``divisor`` clock cycles per bit.

Message assembler (in state IDLE only). A byte is a *first character* when it is a file
letter ``A``..``H`` or one of the code letters ``Y R I X``; any other byte arriving without a
pending first character is dropped. With a first character pending, the next byte completes
a pair:

* file letter + rank digit ``1``..``8``: a move (checked for legality below);
* the same code letter twice (``YY``, ``RR``, ``II``, ``XX``): a referee code;
* anything else is malformed and dropped; if the second byte is itself a first character it
  becomes the new pending first character (so ``QD3``, ``AD3`` still end as ``D3``),
  otherwise nothing is pending any more.

A framing error clears the pending character. Bytes that arrive while the processor is not
in IDLE (thinking, consulting the book, sending, game over) are dropped and clear the pending
character. Never does a malformed message change the board, the colour or the book.

Messages and their effect:

* ``YY`` (only before the colour is known): the processor is black; the book restarts;
  think. Later ``YY`` messages are dropped.
* a square: the opponent's move. The disc flipper (the engine's, shared while it does not
  search) plays it for the opponent (black if the colour is still unknown: a move as first
  message makes the processor white). An illegal
  move is dropped (board unchanged, keep waiting in IDLE); a legal one is committed, fed to the
  openings table, then the processor thinks.
* ``RR`` (only once the colour is known): the opponent passed; think. The pass sets the
  sticky ``passed`` flag.
* ``II`` / ``XX``: the game is over; the processor stops (state OVER) until reset.

Thinking. While the openings table is in book and no pass has happened in the game (either
side; ``passed`` is sticky), the book move is played (last_depth = last_cycles = 0).
Otherwise the search engine runs from the current board with the elaboration-time
``depth_limit`` and cycle ``budget``.

Endgame solve (``solve_empties`` E > 0, elaboration time; one context). At a search with E empty
squares or fewer the move is found by up to three runs of the engine, one after the other, which
share the move's ``budget`` B: the engine's WLD solve (solve mode, window (-1, 1), plain scoring)
with budget B; when it completes (depth 1) the exact solve (window (-256, +inf)) with what is left,
B - the WLD's cycles, and the exact solve's move is played, or the WLD's when the exact solve is
abandoned; when the WLD solve is abandoned (budget, or a node deeper than the board stack's
deepest level) the midgame search with what is left. ``last_solve`` says which answer was played
(0 none, 1 WLD, 2 exact); ``last_depth`` and ``last_value`` are the played run's, ``last_cycles``
and ``last_nodes`` the sums over the move's runs, and ``trace_signature`` folds the node events of
all of them in order (cleared when the move's first run starts). A run's cycles never exceed
the budget it was given, so what is left never goes below 0. The engine of a processor that solves
has the solving engine's board stack, 32 levels (a solve's deepest ply is 31). E = 0 builds none of
it and keeps the 16-level stack. A pass answer (no legal move, or a finished game)
sends ``VV`` and sets ``passed``; the board is unchanged. Otherwise the own move is played
with the flipper, fed to the openings table, and its two characters are sent (upper case).

FSM: IDLE -> (APPLY_OPP -> BOOK_START -> BOOK_WAIT ->) THINK -> [SEARCH_START -> SEARCHING]
-> APPLY_MINE -> BOOK_START -> BOOK_WAIT -> SEND1 -> SEND2 -> IDLE (a solve's next run goes from
SEARCHING back to SEARCH_START); a pass goes from
SEARCHING straight to SEND1 with ``VV``; ``YY`` goes through BOOK_RESTART; ``II``/``XX`` to
OVER.

Status outputs: ``thinking`` (not waiting for a message and not over), ``game_over``,
``out_of_book`` (the last own decision came from the search), ``last_depth`` and
``last_cycles`` (of the last search; 0 for a book move), ``fault`` (the engine's fault
flag, sticky; never set by a correct design).

Contexts (``contexts``, elaboration time; described here because the ``processor``
docstring heads the converted HDL). With 1 (design ``processor``) the search is the
one-context engine, ``budget`` counts its cycles. With 2 (design ``processor_c2``) the search is
the root splitter (rtl/root_split.py, docs/root-split.md) on both contexts of the interleaved
engine: ``budget`` counts clocks, ``last_cycles`` is the splitter's clock count, the disc
flipper serving the FSM is the splitter's, ``trace_signature`` folds the jobs' signatures, and
the job port (``JOB_PORTS``: job_event, job_context, job_kind, job_move, job_depth,
job_alpha, job_beta, job_value, job_nodes, job_signature; keyword arguments) follows the
other ports. ``processor_ports(contexts)`` lists the ports of either.

Engines (``engines``, elaboration time, one context each). With K >= 2 (designs ``processor_k2``,
``processor_k3``; docs/k-engines.md) the search is the K-engine splitter (rtl/k_engines.py) in
place of the two-context root splitter, on the same terms: ``budget`` counts clocks, the
splitter's flipper serves the FSM, ``trace_signature`` folds the jobs' signatures, and the job
port follows the other ports with ``job_engine`` (the engine, 0..K-1) in place of ``job_context``.
``processor_ports(engines=K)`` lists its ports.
"""

from myhdl import ConcatSignal, Signal, always_comb, always_seq, block, concat, enum, intbv

from rtl.contexts import CONTEXT_CHOICES
from rtl.k_engines import MAX_ENGINES, k_splitter
from rtl.openings import openings
from rtl.rom import rom
from rtl.root_split import root_split
from rtl.popcount import count_signal, popcount
from rtl.processor_settings import MAX_SOLVE_EMPTIES
from rtl.search import EVALUATORS, LEVELS, MINUS_INFINITY, SOLVE_LEVELS, search
from rtl.uart import uart_rx, uart_tx

SQUARES = 64
if MAX_SOLVE_EMPTIES != SOLVE_LEVELS - 1:
    raise ImportError(f"rtl/processor_settings.py MAX_SOLVE_EMPTIES must be the solving engine's deepest ply, "
                      f"{SOLVE_LEVELS - 1}")
# last_solve: which answer the last own decision played
SOLVED_NONE, SOLVED_WLD, SOLVED_EXACT = 0, 1, 2
# the run of the engine a move is in (solve_empties > 0)
RUN_MIDGAME, RUN_WLD, RUN_EXACT = 0, 1, 2
START_BLACK = (1 << 28) | (1 << 35)   # E4, D5
START_WHITE = (1 << 27) | (1 << 36)   # D4, E5

CODE_NONE, CODE_Y, CODE_R, CODE_I, CODE_X = range(5)
CODE_LETTERS = {ord("Y"): CODE_Y, ord("R"): CODE_R, ord("I"): CODE_I, ord("X"): CODE_X}

# Byte -> {valid, col}: file letters A..H
FILE_ROM = tuple((8 | (b - ord("A"))) if ord("A") <= b <= ord("H") else 0 for b in range(256))
# Byte -> {valid, row}: rank digits 1..8
RANK_ROM = tuple((8 | (b - ord("1"))) if ord("1") <= b <= ord("8") else 0 for b in range(256))
# Byte -> referee code
CODE_ROM = tuple(CODE_LETTERS.get(b, CODE_NONE) for b in range(256))
# Byte -> may start a message
FIRST_ROM = tuple(int(FILE_ROM[b] != 0 or CODE_ROM[b] != 0) for b in range(256))
# Square -> its two characters
LETTER_ROM = tuple(ord("A") + (s % 8) for s in range(SQUARES))
DIGIT_ROM = tuple(ord("1") + (s // 8) for s in range(SQUARES))
PASS_CHAR = ord("V")


def processor_ports(contexts=1, engines=1):
    """(port, width, direction) in argument order; with two contexts or K >= 2 engines the job port
    follows (with ``job_engine`` in place of ``job_context`` for K engines)."""
    ports = [("clk", 1, "in"), ("rst", 1, "in"), ("rx", 1, "in"), ("budget", 32, "in"), ("tx", 1, "out"),
             ("thinking", 1, "out"), ("game_over", 1, "out"), ("out_of_book", 1, "out"),
             ("last_depth", 5, "out"), ("last_cycles", 32, "out"), ("last_nodes", 32, "out"),
             ("last_value", 9, "out"), ("trace_signature", 64, "out"), ("fault", 1, "out"),
             ("last_solve", 2, "out")]
    if engines > 1:
        return ports + k_engines_job_ports(engines)
    if contexts == 1:
        return ports
    return ports + JOB_PORTS


# The job port of the processor with two contexts (rtl/root_split.py, docs/root-split.md).
JOB_PORTS = [("job_event", 2, "out"), ("job_context", 1, "out"), ("job_kind", 2, "out"),
             ("job_move", 6, "out"), ("job_depth", 5, "out"), ("job_alpha", 9, "out"),
             ("job_beta", 9, "out"), ("job_value", 9, "out"), ("job_nodes", 32, "out"),
             ("job_signature", 64, "out")]
JOB_SIGNED = {"job_alpha", "job_beta", "job_value"}


def k_engines_job_ports(engines):
    """The K-engine splitter's job port: JOB_PORTS with the engine (0..K-1, ceil(log2 K) bits) in
    place of the context."""
    worker = ("job_engine", max(1, (engines - 1).bit_length()), "out")
    return [worker if name == "job_context" else (name, width, direction) for name, width, direction in JOB_PORTS]


@block
def processor(clk, rst, rx, budget, tx, thinking, game_over, out_of_book, last_depth, last_cycles,
              last_nodes, last_value, trace_signature, fault,
              last_solve=None, divisor=8, depth_limit=16, contexts=1, solve_empties=0, job_event=None,
              job_context=None, job_engine=None, job_kind=None, job_move=None, job_depth=None, job_alpha=None,
              job_beta=None, job_value=None, job_nodes=None, job_signature=None, evaluator="seed", engines=1):
    """The Reversi processor behind its UART (see the module docstring).

    clk:          Signal(bool) clock (in).
    rst:          ResetSignal(0, active=1, isasync=False): start position, colour unknown,
                  book at its root (in).
    rx:           Signal(bool) serial input, idle high (in).
    budget:       Signal(intbv[32]) the search's cycle budget per move (in: a configuration
                  input, tied off or set by switches; read each time a search starts).
    tx:           Signal(bool) serial output, idle high (out).
    thinking:     Signal(bool) busy with a message (not waiting, not over) (out).
    game_over:    Signal(bool) II or XX received; waits for reset (out).
    out_of_book:  Signal(bool) the last own decision came from the search (out).
    last_depth:   Signal(intbv(0, min=0, max=17)) deepest completed iteration of the last
                  search, 0 after a book move (out).
    last_cycles:  Signal(intbv[32]) cycles of the last search, 0 after a book move (out).
    last_nodes:   Signal(intbv[32]) nodes of the last search, 0 after a book move (out).
    last_value:   Signal(intbv(0, min=-256, max=256)) value of the last search (out).
    trace_signature: Signal(intbv[64]) debug: XOR over the engine's node events of the last
                  search (two 64-bit words per event, see ``trace_fold``); cleared when a
                  move's first search starts (out).
    fault:        Signal(bool) sticky: the engine reported a fault (out).
    last_solve:   Signal(intbv[2]) the last own decision was a completed solve's answer: 0 no,
                  1 the WLD solve's, 2 the exact solve's (out; optional, always 0 with
                  solve_empties 0).
    engines:      K, 1..MAX_ENGINES search engines of one context (elaboration time): with K >= 2
                  the K-engine splitter (module docstring), seed evaluator, no solve, one context.
    job_engine:   Signal(intbv(min=0, max=K)), Signal(bool) for K = 2: the job port's engine (out;
                  K >= 2 only).
    divisor:      UART clock cycles per bit (elaboration time, >= 4).
    depth_limit:  search depth limit 1..16 (elaboration time).
    solve_empties: E, 0..MAX_SOLVE_EMPTIES (elaboration time): solve the endgame at E empty
                  squares or fewer (module docstring) on an engine with a board stack of 32 levels;
                  0 builds no solve logic and keeps the 16-level stack. One context only.
    evaluator:    the engine's leaf evaluator, "seed" (docs/spec.md §4) or "pattern" (docs/spec.md
                  §13, the committed weight file; one context only), elaboration time.
    """
    if not 1 <= depth_limit <= 16:
        raise ValueError(f"depth_limit must be 1..16, got {depth_limit!r}")
    if contexts not in CONTEXT_CHOICES:
        raise ValueError(f"contexts must be one of {CONTEXT_CHOICES}, got {contexts!r}")
    if not isinstance(solve_empties, int) or not 0 <= solve_empties <= MAX_SOLVE_EMPTIES:
        raise ValueError(f"solve_empties must be 0..{MAX_SOLVE_EMPTIES}, got {solve_empties!r}")
    if solve_empties and contexts != 1:
        raise ValueError("the endgame solve (solve_empties > 0) is built for one context: the engine's solve "
                         "mode is not in the two-context engine")
    if evaluator not in EVALUATORS:
        raise ValueError(f"evaluator must be one of {', '.join(EVALUATORS)}, got {evaluator!r}")
    if evaluator != "seed" and contexts != 1:
        raise ValueError("the pattern evaluator is built for one context: the two-context engine has the seed's")
    if not isinstance(engines, int) or not 1 <= engines <= MAX_ENGINES:
        raise ValueError(f"engines must be 1..{MAX_ENGINES}, got {engines!r}")
    if engines > 1 and (contexts != 1 or solve_empties or evaluator != "seed"):
        raise ValueError("K engines (engines >= 2) are built with one context each, the seed evaluator and no "
                         "endgame solve")
    solving = solve_empties > 0
    split = contexts == 2 or engines > 1        # the search is a splitter's jobs, with the job port
    if last_solve is None:
        last_solve = Signal(intbv(0)[2:])
    worker_name, worker_port = ("job_engine", job_engine) if engines > 1 else ("job_context", job_context)
    job_port = {"job_event": job_event, worker_name: worker_port, "job_kind": job_kind, "job_move": job_move,
                "job_depth": job_depth, "job_alpha": job_alpha, "job_beta": job_beta, "job_value": job_value,
                "job_nodes": job_nodes, "job_signature": job_signature}
    given = sorted(name for name, port in {**job_port, "job_context": job_context, "job_engine": job_engine}.items()
                   if port is not None)
    if given != (sorted(job_port) if split else []):
        raise ValueError(f"the job port ({', '.join(sorted(job_port))}) comes with contexts=2 or engines >= 2, and "
                         f"only then; given: {', '.join(given) or 'none'}")

    st = enum("IDLE", "APPLY_OPP", "BOOK_RESTART", "BOOK_START", "BOOK_WAIT", "THINK",
              "SEARCH_START", "SEARCHING", "APPLY_MINE", "SEND1", "SEND2", "OVER")
    state = Signal(st.IDLE)

    # --- UART ------------------------------------------------------------------------
    rx_data = Signal(intbv(0)[8:])
    rx_valid = Signal(bool(0))
    rx_error = Signal(bool(0))
    tx_data = Signal(intbv(0)[8:])
    tx_send = Signal(bool(0))
    tx_busy = Signal(bool(0))
    receiver = uart_rx(clk, rst, rx, rx_data, rx_valid, rx_error, divisor=divisor)
    transmitter = uart_tx(clk, rst, tx_data, tx_send, tx_busy, tx, divisor=divisor)

    # --- message assembler -----------------------------------------------------------
    pending = Signal(bool(0))
    pend_char = Signal(intbv(0)[8:])
    pend_file = Signal(intbv(0)[4:])
    pend_code = Signal(intbv(0)[3:])
    rx_rank = Signal(intbv(0)[4:])
    rx_first = Signal(bool(0))
    decoders = [rom(pend_char, pend_file, FILE_ROM), rom(pend_char, pend_code, CODE_ROM),
                rom(rx_data, rx_rank, RANK_ROM), rom(rx_data, rx_first, FIRST_ROM)]

    # --- game state ------------------------------------------------------------------
    # MyHDL writes a 64-bit reset value as an unsized (32-bit) Verilog literal, so the board
    # registers reset to 0 and are loaded from these constant concatenations (sized literals)
    # in the first cycle after reset (``loaded``).
    start_black = ConcatSignal(intbv(START_BLACK >> 32)[32:], intbv(START_BLACK & 0xFFFFFFFF)[32:])
    start_white = ConcatSignal(intbv(START_WHITE >> 32)[32:], intbv(START_WHITE & 0xFFFFFFFF)[32:])
    loaded = Signal(bool(0))
    black = Signal(intbv(0)[SQUARES:])
    white = Signal(intbv(0)[SQUARES:])
    color_known = Signal(bool(0))
    me_white = Signal(bool(0))
    passed = Signal(bool(0))
    to_send = Signal(bool(0))        # after the book update: send (own move) or think
    char1 = Signal(intbv(0)[8:])
    char2 = Signal(intbv(0)[8:])
    from_search = Signal(bool(0))
    depth_reg = Signal(intbv(0, min=0, max=17))
    cycles_reg = Signal(intbv(0)[32:])
    fault_reg = Signal(bool(0))
    nodes_reg = Signal(intbv(0)[32:])
    value_reg = Signal(intbv(0, min=-256, max=256))
    signature = Signal(intbv(0)[SQUARES:])
    solve_reg = Signal(intbv(0)[2:])
    ev_word_a = Signal(intbv(0)[SQUARES:])
    ev_word_b = Signal(intbv(0)[SQUARES:])

    # --- disc flipper: the engine's, while it is not searching (one move per cycle, from
    # the board registers; the search's idle_* ports) ----------------------------------
    fl_move = Signal(intbv(0)[6:])
    fl_white = Signal(bool(0))       # the side that plays fl_move is white
    fl_new_black = Signal(intbv(0)[SQUARES:])
    fl_new_white = Signal(intbv(0)[SQUARES:])
    fl_illegal = Signal(bool(0))
    move_letter = Signal(intbv(0)[8:])
    move_digit = Signal(intbv(0)[8:])
    encoders = [rom(fl_move, move_letter, LETTER_ROM), rom(fl_move, move_digit, DIGIT_ROM)]

    # --- openings table --------------------------------------------------------------
    op_start = Signal(bool(0))
    op_restart = Signal(bool(0))
    op_done = Signal(bool(0))
    op_in_book = Signal(bool(0))
    op_book_move = Signal(intbv(0)[6:])
    book = openings(clk, rst, op_start, op_restart, fl_move, op_done, op_in_book, op_book_move)

    # --- search engine ---------------------------------------------------------------
    s_start = Signal(bool(0))
    s_depth_limit = Signal(intbv(depth_limit, min=0, max=17))
    s_done = Signal(bool(0))
    s_best_move = Signal(intbv(0)[6:])
    s_best_pass = Signal(bool(0))
    s_value = Signal(intbv(0, min=-256, max=256))
    s_depth = Signal(intbv(0, min=0, max=17))
    s_nodes = Signal(intbv(0)[32:])
    s_cycles = Signal(intbv(0)[32:])
    ev_node = Signal(bool(0))
    ev_kind = Signal(intbv(0)[2:])
    ev_ply = Signal(intbv(0, min=0, max=SOLVE_LEVELS if solving else 17))
    ev_black = Signal(intbv(0)[SQUARES:])
    ev_white = Signal(intbv(0)[SQUARES:])
    ev_wtm = Signal(bool(0))
    ev_legal = Signal(intbv(0)[SQUARES:])
    ev_stable_own = Signal(intbv(0, min=0, max=65))
    ev_stable_opp = Signal(intbv(0, min=0, max=65))
    ev_value = Signal(intbv(0, min=-256, max=256))
    ev_terminal = Signal(bool(0))
    ev_stage = Signal(intbv(0)[2:])
    ev_corners_own = Signal(intbv(0, min=0, max=5))
    ev_corners_opp = Signal(intbv(0, min=0, max=5))
    ev_xsq_own = Signal(intbv(0, min=0, max=5))
    ev_xsq_opp = Signal(intbv(0, min=0, max=5))
    ev_mobility_own = Signal(intbv(0, min=0, max=65))
    ev_mobility_opp = Signal(intbv(0, min=0, max=65))
    ev_discs_own = Signal(intbv(0, min=0, max=65))
    ev_discs_opp = Signal(intbv(0, min=0, max=65))
    ev_fixed = Signal(intbv(0, min=-256, max=256))
    ev_adaptive = Signal(intbv(0, min=-256, max=256))
    s_fault = Signal(bool(0))
    # the processor searches with the full root window; registers only so that they are driven
    # (with the solve, solve_alpha and solve_beta below are the engine's window, and these are not built)
    window_alpha = Signal(intbv(MINUS_INFINITY, min=-256, max=256))
    window_beta = Signal(intbv(MINUS_INFINITY, min=-256, max=256))    # -256: plus infinity
    # the endgame solve (solve_empties > 0): the run of the engine, the budget it gets (the move's,
    # then what is left of it), the sums over the move's runs, the WLD solve's answer, and the window:
    # (-1, 1) for the WLD solve, full for the exact solve and the midgame search
    run = Signal(intbv(RUN_MIDGAME)[2:])
    s_budget = Signal(intbv(0)[32:])
    move_cycles = Signal(intbv(0)[32:])
    move_nodes = Signal(intbv(0)[32:])
    wld_move = Signal(intbv(0)[6:])
    wld_pass = Signal(bool(0))
    wld_value = Signal(intbv(0, min=-256, max=256))
    s_solve = Signal(bool(0))
    s_solve_winner = Signal(bool(0))   # the processor's value is plain: never the winner's scoring
    solve_alpha = Signal(intbv(MINUS_INFINITY, min=-256, max=256))
    solve_beta = Signal(intbv(MINUS_INFINITY, min=-256, max=256))
    occupied = Signal(intbv(0)[SQUARES:])
    occupied_count = count_signal(SQUARES)
    # the answer a finished run gives the move; without the solve, the engine's own outputs
    another_run = Signal(bool(0))      # the run that is done is the WLD solve: another run follows
    answer_move = Signal(intbv(0)[6:]) if solving else s_best_move
    answer_pass = Signal(bool(0)) if solving else s_best_pass
    answer_value = Signal(intbv(0, min=-256, max=256)) if solving else s_value
    answer_depth = Signal(intbv(0, min=0, max=17)) if solving else s_depth
    total_cycles = Signal(intbv(0)[32:]) if solving else s_cycles
    total_nodes = Signal(intbv(0)[32:]) if solving else s_nodes
    solve_ports = dict(solve_mode=s_solve, solve_winner=s_solve_winner) if solving else {}
    engine_budget = s_budget if solving else budget
    engine_alpha = solve_alpha if solving else window_alpha
    engine_beta = solve_beta if solving else window_beta
    # The engine's side to move is fl_white: the flipper's side while idle, and me_white when
    # a search starts (THINK, the only way to SEARCH_START, sets fl_white to me_white).
    if not split:
        engine = search(clk, rst, s_start, black, white, fl_white, s_depth_limit, engine_budget,
                        engine_alpha, engine_beta, s_done, s_best_move, s_best_pass, s_value, s_depth, s_nodes, s_cycles,
                        ev_node, ev_kind, ev_ply, ev_black, ev_white, ev_wtm, ev_legal,
                        ev_stable_own, ev_stable_opp, ev_value, ev_terminal, ev_stage,
                        ev_corners_own, ev_corners_opp, ev_xsq_own, ev_xsq_opp, ev_mobility_own,
                        ev_mobility_opp, ev_discs_own, ev_discs_opp, ev_fixed, ev_adaptive, s_fault,
                        idle_move=fl_move, idle_black=fl_new_black, idle_white=fl_new_white,
                        idle_illegal=fl_illegal, levels=SOLVE_LEVELS if solving else LEVELS, evaluator=evaluator,
                        **solve_ports)
    elif engines > 1:
        # K engines on the one search of a move (docs/k-engines.md), on the two-context splitter's terms
        engine = k_splitter(clk, rst, s_start, black, white, fl_white, s_depth_limit, budget,
                            s_done, s_best_move, s_best_pass, s_value, s_depth, s_nodes, s_cycles,
                            s_fault, fl_move, fl_new_black, fl_new_white, fl_illegal,
                            trace_signature=signature, engines=engines, **job_port)
    else:
        # both contexts on the one search of a move (docs/root-split.md); the budget counts
        # clocks, and the trace signature folds the jobs' signatures
        engine = root_split(clk, rst, s_start, black, white, fl_white, s_depth_limit, budget,
                            s_done, s_best_move, s_best_pass, s_value, s_depth, s_nodes, s_cycles,
                            s_fault, fl_move, fl_new_black, fl_new_white, fl_illegal,
                            trace_signature=signature, **job_port)

    @always_comb
    def strobes():
        op_start.next = (state == st.BOOK_START) or (state == st.BOOK_RESTART)
        op_restart.next = state == st.BOOK_RESTART
        s_start.next = state == st.SEARCH_START
        tx_send.next = (state == st.SEND1) or (state == st.SEND2)
        if state == st.SEND1:
            tx_data.next = char1
        else:
            tx_data.next = char2

    @always_comb
    def trace_words():
        # trace fields of a node event, folded into 64-bit words (widths exact); the
        # evaluation terms not in these two words are folded in by trace_fold
        ev_word_a.next = ev_black ^ ev_white ^ ev_legal
        ev_word_b.next = concat(intbv(0)[18:], ev_kind, ev_ply[5:], ev_wtm, ev_stable_own[7:],
                                ev_stable_opp[7:], ev_value[9:], ev_terminal, ev_stage,
                                ev_corners_own[3:], ev_corners_opp[3:], ev_xsq_own[3:],
                                ev_xsq_opp[3:])

    @always_seq(clk.posedge, reset=rst)
    def trace_fold():
        if state == st.THINK:
            signature.next = 0
        elif ev_node:
            # rotate, then fold in: the signature depends on the order of the events too
            signature.next = (concat(signature[SQUARES - 1:], signature[SQUARES - 1])
                              ^ ev_word_a ^ ev_word_b
                              ^ concat(intbv(0)[18:], ev_mobility_own[7:], ev_mobility_opp[7:],
                                       ev_discs_own[7:], ev_discs_opp[7:], ev_fixed[9:],
                                       ev_adaptive[9:]))

    @always_comb
    def status():
        thinking.next = (state != st.IDLE) and (state != st.OVER)
        game_over.next = state == st.OVER
        out_of_book.next = from_search
        last_depth.next = depth_reg
        last_cycles.next = cycles_reg
        last_nodes.next = nodes_reg
        last_value.next = value_reg
        trace_signature.next = signature
        fault.next = fault_reg
        last_solve.next = solve_reg

    @always_seq(clk.posedge, reset=rst)
    def control():
        if s_fault:
            fault_reg.next = 1
        if not loaded:
            loaded.next = 1
            black.next = start_black
            white.next = start_white
        elif state == st.IDLE:
            if rx_error:
                pending.next = 0
            elif rx_valid:
                if not pending:
                    if rx_first:
                        pending.next = 1
                        pend_char.next = rx_data
                elif pend_file[3] and rx_rank[3]:
                    # a square: the opponent's move (black while the colour is unknown)
                    pending.next = 0
                    fl_move.next = concat(rx_rank[3:0], pend_file[3:0])
                    fl_white.next = color_known and not me_white
                    state.next = st.APPLY_OPP
                elif pend_code != CODE_NONE and pend_char == rx_data:
                    pending.next = 0
                    if pend_code == CODE_Y:
                        if not color_known:
                            color_known.next = 1
                            me_white.next = 0
                            state.next = st.BOOK_RESTART
                    elif pend_code == CODE_R:
                        if color_known:
                            passed.next = 1
                            state.next = st.THINK
                    else:  # II or XX
                        state.next = st.OVER
                elif rx_first:
                    pend_char.next = rx_data
                else:
                    pending.next = 0
        else:
            pending.next = 0
            if state == st.APPLY_OPP:
                if fl_illegal:
                    state.next = st.IDLE  # an illegal move is discarded
                else:
                    black.next = fl_new_black
                    white.next = fl_new_white
                    if not color_known:
                        color_known.next = 1
                        me_white.next = 1
                    to_send.next = 0
                    state.next = st.BOOK_START
            elif state == st.BOOK_RESTART:
                to_send.next = 0
                state.next = st.BOOK_WAIT
            elif state == st.BOOK_START:
                state.next = st.BOOK_WAIT
            elif state == st.BOOK_WAIT:
                if op_done:
                    if to_send:
                        state.next = st.SEND1
                    else:
                        state.next = st.THINK
            elif state == st.THINK:
                fl_white.next = me_white
                if op_in_book and not passed:
                    fl_move.next = op_book_move
                    from_search.next = 0
                    depth_reg.next = 0
                    cycles_reg.next = 0
                    nodes_reg.next = 0
                    value_reg.next = 0
                    state.next = st.APPLY_MINE
                else:
                    from_search.next = 1
                    state.next = st.SEARCH_START
            elif state == st.SEARCH_START:
                state.next = st.SEARCHING
            elif state == st.SEARCHING:
                if s_done:
                    if another_run:
                        state.next = st.SEARCH_START
                    else:
                        depth_reg.next = answer_depth
                        cycles_reg.next = total_cycles
                        nodes_reg.next = total_nodes
                        value_reg.next = answer_value
                        if answer_pass:
                            passed.next = 1
                            char1.next = PASS_CHAR
                            char2.next = PASS_CHAR
                            state.next = st.SEND1
                        else:
                            fl_move.next = answer_move
                            state.next = st.APPLY_MINE
            elif state == st.APPLY_MINE:
                # a book or engine move is legal; fl_illegal would be a design fault
                if fl_illegal:
                    fault_reg.next = 1
                black.next = fl_new_black
                white.next = fl_new_white
                char1.next = move_letter
                char2.next = move_digit
                to_send.next = 1
                state.next = st.BOOK_START
            elif state == st.SEND1:
                if not tx_busy:
                    state.next = st.SEND2
            elif state == st.SEND2:
                if not tx_busy:
                    state.next = st.IDLE
            else:  # st.OVER: stay until reset
                state.next = st.OVER

    if not solving:
        @always_seq(clk.posedge, reset=rst)
        def full_window():
            if not loaded:
                window_alpha.next = MINUS_INFINITY
                window_beta.next = MINUS_INFINITY

        solve_logic = [full_window]
    else:
        occupancy = popcount(occupied, occupied_count)

        @always_comb
        def occupancy_word():
            occupied.next = black | white

        @always_comb
        def solve_answer():
            # the exact solve abandoned: the move is the completed WLD solve's (depth 1)
            another_run.next = run == RUN_WLD
            if run == RUN_EXACT and s_depth == 0:
                answer_move.next = wld_move
                answer_pass.next = wld_pass
                answer_value.next = wld_value
                answer_depth.next = 1
            else:
                answer_move.next = s_best_move
                answer_pass.next = s_best_pass
                answer_value.next = s_value
                answer_depth.next = s_depth
            total_cycles.next = move_cycles + s_cycles
            total_nodes.next = move_nodes + s_nodes

        @always_seq(clk.posedge, reset=rst)
        def solve_control():
            if state == st.THINK:
                # the move's first run: the WLD solve at solve_empties empties or fewer
                solve_reg.next = SOLVED_NONE
                s_budget.next = budget
                move_cycles.next = 0
                move_nodes.next = 0
                if occupied_count >= SQUARES - solve_empties:
                    run.next = RUN_WLD
                    s_solve.next = 1
                    solve_alpha.next = -1
                    solve_beta.next = 1
                else:
                    run.next = RUN_MIDGAME
                    s_solve.next = 0
                    solve_alpha.next = MINUS_INFINITY
                    solve_beta.next = MINUS_INFINITY
            elif state == st.SEARCHING and s_done:
                move_cycles.next = total_cycles
                move_nodes.next = total_nodes
                if run == RUN_WLD:
                    # the WLD solve ran first, on the move's budget; a solve's cycles never exceed
                    # its budget, so what is left stays >= 0
                    s_budget.next = s_budget - s_cycles
                    solve_alpha.next = MINUS_INFINITY
                    solve_beta.next = MINUS_INFINITY
                    if s_depth != 0:
                        wld_move.next = s_best_move
                        wld_pass.next = s_best_pass
                        wld_value.next = s_value
                        run.next = RUN_EXACT
                    else:
                        run.next = RUN_MIDGAME
                        s_solve.next = 0
                elif run == RUN_EXACT:
                    if s_depth != 0:
                        solve_reg.next = SOLVED_EXACT
                    else:
                        solve_reg.next = SOLVED_WLD

        solve_logic = [occupancy, occupancy_word, solve_answer, solve_control]

    if not split:
        return (receiver, transmitter, decoders, encoders, book, engine, strobes,
                trace_words, trace_fold, status, control, solve_logic)
    return (receiver, transmitter, decoders, encoders, book, engine, strobes, status, control, solve_logic)
