"""Tree search engine (docs/spec.md §7): iterative-deepening negamax with fail-hard alpha-beta.

The algorithm, its value conventions and its cycle schedule are those of the golden model's
``golden.search`` docstring (the bench checks every node against it). Here it is an
explicit-stack state machine:

* **Stores.** A board stack of 16 levels x 128 bits (a memory written when a node is left
  for a child, read in one cycle when the search comes back: block RAM, see *Board stack*
  below) and per level the last
  explored move (6 bits) and alpha (9 bits, signed). The current level's board, alpha, last
  move and "started" flag live in registers, and so do the alphas of the two levels above
  it, because a returning value is compared with both: a child value v = -x cuts the parent
  off when v >= beta_parent = -alpha_grandparent. Per level also the *killer move* (6 bits
  and a valid flag): the last move that cut a node off at that level, tried first by the next
  node there (node ordering's PV input, which at the root carries the previous iteration's
  best move instead). Beta is never stored: in negamax the
  beta of a level is minus the alpha of the level above (the root's is +infinity).
  The side to move at level k is the root's side flipped k times (every ply, passes
  included, changes the side), so it is not stored either.
* **Generate node (one cycle, the seed's states 1 and 2 merged).** Two move checkers give
  the legal moves of both sides of the current board; node ordering (docs/spec.md §5) picks the next
  move after the level's last move (the PV move first at the root from iteration 2); the
  disc flipper plays it. An inner child is pushed (the current board is written to the
  stack); a leaf child (the ply after it is the iteration depth) is handed to the evaluator.
  No legal move but the opponent has one: the child is a pass (same discs). Neither side can
  move: the node itself is terminal and goes to the evaluator.
* **Evaluate.** The evaluator (docs/spec.md §4) answers c cycles after its start (c = the stable-disc
  iterations; the pattern evaluator, ``evaluator="pattern"`` below, c = 1 for every leaf). In the
  answering cycle the leaf's value is folded into the level (cut-off or alpha update) and, unless
  cut off, the next sibling is generated in the same cycle.
* **Return.** A level that has no move left (or a pass node whose pass came back) returns
  its alpha to the level above, which either cuts off (the engine then returns straight to
  the level above that: a cut-off node's beta cannot change its parent) or raises its
  alpha; the board of the level returned to is read from the stack in that cycle.
* **Board stack.** The memory has no reset and a registered read, so that synthesis maps it to
  block RAM. Its read address is the level returned to, computed in the cycle that decides
  the return; the board arrives from the memory's read register at the next edge, which is
  the cycle in which the level returned to needs it, and ``board_black``/``board_white`` take
  it from there in that one cycle (``from_stack``) while the held board register catches up.
  A push writes level ``level`` and a return reads a level below it, never in the same
  cycle, so no write-to-read bypass is needed.
* **Iterations** run from depth 1 to ``depth_limit``; the best move of each completed
  iteration is the PV of the next. From iteration 2 on, the engine stops in the first cycle
  in which the cycle count has reached ``budget``; the answer is always the deepest
  completed iteration's.

* **Single iteration** (optional inputs ``root_pv``, Signal(intbv[6]), and ``root_pv_valid``,
  Signal(bool), both or none; read on the start edge): the mode of a host that hands the
  engine subtrees (docs/root-split.md, rtl/root_split.py). A start then begins iteration
  ``depth_limit`` directly, and the root's PV move is ``root_pv`` when ``root_pv_valid`` and
  that iteration is deeper than 1 (none otherwise; an illegal one is skipped); ``depth`` is
  ``depth_limit`` when it completes, 0 when the budget abandons it. ``done`` rises in the
  step that finds the budget spent (not one step later), so that a search of C golden cycles
  is done C steps after its start however it ends; and a finished game at the root is
  answered whatever the budget, as iteration 1 answers it in iterative deepening. Without them the engine
  deepens from iteration 1 with the previous iteration's best move as the root's PV. (The
  ``search`` docstring heads the converted HDL, so the ports of this optional mode are
  described here.)

* **Solve mode** (optional inputs ``solve_mode`` and ``solve_winner``, Signal(bool), both or
  none, read on the start edge; one context): a start with ``solve_mode`` searches to the end of
  the game, as golden.search's solve mode does (its docstring has the rules and the schedule).
  It is iteration 1 with no frontier (``limit`` 1, ``frontier`` held low) and no evaluator: a
  node where neither side can move takes its final count from two popcounts of the current board
  (own - opp, or with ``solve_winner`` the empty squares to the winner) and leaves in its first
  cycle, through the same return path as an evaluated terminal node. The root window chooses
  the solve: (-256, +inf) exact, (-1, 1) win/loss/draw. The budget counts from the start (an
  abandoned solve answers depth 0 and "pass"), and a node that is not terminal at the deepest
  level, ``levels`` - 1, stops the solve the same way (``overflow``) instead of pushing. A
  completed solve answers depth 1. A solver's node ordering is rtl/node_order.py's
  ``parity_order``: in a solve, after the killer, the squares of the quadrants with an odd number
  of empty squares first. The *last-one step*: a node below the root with one empty square that
  its side plays leaves in its first cycle with the full board's count (a popcount of the
  flipper's result), its child reported on the trace port as a terminal node in that cycle, in
  place of the node's own event (``last_one``). The step sits on the clock's longest path, so it
  waits for nothing it can have earlier: the push that enters a node registers whether the node
  has one empty square and which (``one_empty``, ``last_square``: the parent's empty squares less
  its move), so the flipper plays that square without the move checkers and node ordering before
  it, and the child's value 2c - 64 (c the child's discs) is compared with the levels' windows
  directly (``last_cut``, ``last_raise``) instead of through the node's value. Without the ports the solve registers are driven by
  constant-0 signals and synthesis removes the solve logic; the default ``levels`` stays 16.
* **Two contexts** (``contexts=2``, the ``search_c2`` design; rtl/contexts.py): the same engine
  C-slowed, two searches at once. Stage 0 (the current board, the move checkers, node ordering,
  and the evaluator up to its weighted sums) reads the registers; stage 1 (the disc flipper, the
  evaluator's saturation, every decision above and the control) reads them and stage 0's results
  one clock late and writes the registers. Each context steps every other clock on exactly the
  schedule above; the per-level memories are addressed by context and level.

* **The pattern evaluator** (``evaluator="pattern"``, elaboration time; one context): the leaf value
  is rtl/pattern_leaf.py's, the pattern evaluator's sum of trained weights (docs/spec.md §13), or
  4 x the disc difference on a finished board, in the pattern evaluator's answer cycle. The seed's
  evaluator still runs beside it for what its move checkers and counts give in cycle 0 (terminal,
  the leaf's legal moves, mobility, discs, corners, X-squares); its stable-disc counts and values
  are not used (synthesis removes them), and the trace reports 0 for them, and the pattern
  evaluator's stage. Its weights are ``pattern_weights`` (None: the committed weight file).

Trace port (for the test bench's per-node scoreboard; combinational, valid in the cycle of
the event): ``node_event`` marks the cycle in which a node's first visit (an inner node: its
legal moves) or its evaluation (a leaf, ``event_kind`` 1, or a terminal inner node, 2)
happens; the event_* ports give its ply, board, side to move, legal moves of the side to
move, stable-disc counts and value (leaf and terminal only).
"""

from myhdl import ConcatSignal, Signal, always, always_comb, always_seq, block, enum, intbv

from rtl.contexts import Stages, late_register
from rtl.disc_flipper import disc_flipper
from rtl.evaluator import DEFAULT, difference, zero_extended
from rtl.evaluator import evaluator as seed_evaluator
from rtl.move_checker import move_checker
from rtl.node_order import node_order, parity_order
from rtl.pattern_leaf import pattern_leaf
from rtl.popcount import count_signal, parity, popcount

SQUARES = 64
LEVELS = 16                 # board stack depth = the deepest iteration (the default engine)
SOLVE_LEVELS = 32           # the board stack of an engine that solves (golden.search.SOLVE_LEVELS)
MINUS_INFINITY = -256       # the root window (-256, 256) stands for (-inf, +inf)
VALUE_FLOOR = -255          # leaf values are raised to this, so that -value fits 9 bits
VALUE_MAX = 255

KIND_INNER, KIND_LEAF, KIND_TERMINAL = 0, 1, 2
FIRST_ITERATION = 1         # a start begins iterative deepening here (but in single-iteration mode)
EVALUATORS = ("seed", "pattern")   # the leaf value's evaluator (elaboration time)



def levels_below(levels, steps):
    """Stack levels ``steps`` below each level, modulo ``levels`` (a return from level 0 or 1
    reads none): a ROM, so that no wrapped subtraction leaves an unused carry bit in the HDL."""
    return tuple((level - steps) % levels for level in range(levels))


def value_signal():
    """A 9-bit signed alpha / value."""
    return Signal(intbv(0, min=-256, max=256))


@block
def search(clk, rst, start, root_black, root_white, root_white_to_move, depth_limit, budget,
           root_alpha, root_beta, done, best_move, best_pass, value, depth, nodes, cycles,
           node_event, event_kind, event_ply, event_black, event_white, event_white_to_move,
           event_legal, event_stable_own, event_stable_opp, event_value,
           event_terminal, event_stage, event_corners_own, event_corners_opp, event_xsq_own,
           event_xsq_opp, event_mobility_own, event_mobility_opp, event_discs_own,
           event_discs_opp, event_fixed, event_adaptive, fault,
           weights=DEFAULT, adaptive=False, idle_move=None, idle_black=None, idle_white=None,
           idle_illegal=None, contexts=1, turn=None, root_pv=None, root_pv_valid=None, solve_mode=None,
           solve_winner=None, levels=LEVELS, evaluator="seed", pattern_weights=None):
    """The search engine.

    clk, rst:            clock; ResetSignal(0, active=1, isasync=False) (in).
    start:               Signal(bool): latch the root and begin on this edge (in; a start
                         while searching restarts).
    root_black/white:    Signal(intbv[64]) the root board (in, read on the start edge).
    root_white_to_move:  Signal(bool) the side to move at the root (in, start edge).
    depth_limit:         Signal(intbv[5]) deepest iteration, 1..16 (in, start edge).
    budget:              Signal(intbv[32]) cycle budget for iterations 2.. (in, start edge).
    root_alpha:          Signal(intbv(min=-256, max=256)) the root window's alpha, -256 for
                         minus infinity (in, start edge; the default window is (-256, +inf)).
    root_beta:           Signal(intbv(min=-256, max=256)) the root window's beta; -256, which
                         no beta can be (beta > alpha >= -256), stands for plus infinity
                         (in, start edge). A host searching a subtree gives a narrower or a
                         null window (docs/spec.md §12); the value is then fail-hard: root_alpha when
                         every move fails low, root_beta on a cut-off.
    done:                Signal(bool) the answer is ready (out; high until the next start).
    best_move:           Signal(intbv[6]) best move of the deepest completed iteration (out).
    best_pass:           Signal(bool) the answer is a pass (out; also for a finished game).
    value:               Signal(intbv(min=-256, max=256)) its value for the side to move (out).
    depth:               Signal(intbv[5]) the deepest completed iteration (out).
    nodes:               Signal(intbv[32]) nodes generated, all iterations, root excluded (out).
    cycles:              Signal(intbv[32]) cycles used (out).
    node_event .. event_value: the trace port (see the module docstring; out).
    event_terminal .. event_adaptive: every term of a leaf's evaluation, as the evaluator
                         (docs/spec.md §4) gives it (out; 0 on inner-node events).
    fault:               Signal(bool) the flipper found the chosen move illegal (out; never
                         set by a correct engine: the bench checks it every cycle).
    weights:             evaluator weights (elaboration time).
    adaptive:            use the adaptive (game-stage) value instead of the fixed one
                         (elaboration time).
    idle_move .. idle_illegal: optional (all four or none), for a top that has a move of its
                         own to play (the processor's opponent and own moves): while the engine
                         is not searching (before the first start and once done), its disc
                         flipper plays ``idle_move`` (Signal(intbv[6]), in) on the board
                         root_black/root_white for the side root_white_to_move (in: the
                         engine's root inputs, read combinationally), and idle_black,
                         idle_white (Signal(intbv[64]), out) and idle_illegal (Signal(bool),
                         out) are its result: a top needs no flipper of its own. Not given:
                         the flipper is the engine's alone and no multiplexer is built.
    contexts:            1, or 2 interleaved searches (elaboration time, rtl/contexts.py): each
                         context is a whole engine with the schedule above, stepping every
                         other clock. In each clock ``start`` and the root inputs are taken
                         for, and every output describes, the context in stage 1:
    turn:                Signal(bool) that context, 0 or 1 (out; only with contexts=2; the
                         name ``context`` is a keyword of SystemVerilog and VHDL-2008).
    solve_mode, solve_winner: optional (both or none; one context only), Signal(bool) (in,
                         start edge): ``solve_mode`` makes the start a solve (see *Solve mode* in the
                         module docstring) instead of iterative deepening, ``solve_winner``
                         its scoring: the empty squares of a finished game go to the winner.
                         Not given: the solve registers stay 0 and synthesis removes
                         the solve logic.
    levels:              board-stack levels, 16 or 32 (elaboration time): the deepest ply a
                         solve reaches is ``levels`` - 1; a depth-limited search needs 16.
    evaluator:           "seed" (docs/spec.md §4) or "pattern" (docs/spec.md §13, one context; see
                         *The pattern evaluator* in the module docstring), elaboration time.
    pattern_weights:     with "pattern": golden.patterns.PatternWeights, the ROMs' content
                         (conversion time; None: the committed weight file).
    """
    shared_flipper = idle_move is not None
    if shared_flipper != (idle_black is not None) or shared_flipper != (idle_white is not None) \
            or shared_flipper != (idle_illegal is not None):
        raise ValueError("idle_move, idle_black, idle_white and idle_illegal come together")
    stages = Stages(contexts)
    if stages.interleaved and shared_flipper:
        raise ValueError("interleaved contexts share no flipper with a top")
    if stages.interleaved != (turn is not None):
        raise ValueError("the turn port comes with contexts=2, and only then")
    single_iteration = root_pv is not None
    if single_iteration != (root_pv_valid is not None):
        raise ValueError("root_pv and root_pv_valid come together")
    solver = solve_mode is not None
    if solver != (solve_winner is not None):
        raise ValueError("solve_mode and solve_winner come together")
    if solver and (stages.interleaved or single_iteration):
        raise ValueError("the solve mode is built for one context without single-iteration mode")
    if evaluator not in EVALUATORS:
        raise ValueError(f"evaluator must be one of {', '.join(EVALUATORS)}, got {evaluator!r}")
    patterned = evaluator == "pattern"
    if patterned and stages.interleaved:
        raise ValueError("the pattern evaluator is built for one context")
    if levels not in (LEVELS, SOLVE_LEVELS):
        raise ValueError(f"levels must be {LEVELS} or {SOLVE_LEVELS}, got {levels!r}")
    level_bits = len(bin(levels - 1)) - 2
    one_below, two_below = levels_below(levels, 1), levels_below(levels, 2)
    slots = levels * contexts          # per-level memories hold every context's levels
    state_t = enum("IDLE", "EXPAND", "AWAIT", "FINISHED")
    state = Signal(state_t.IDLE)

    # --- registers -------------------------------------------------------------------
    level = Signal(intbv(0, min=0, max=levels))
    iteration = Signal(intbv(0, min=0, max=LEVELS + 1))
    limit = Signal(intbv(0, min=0, max=LEVELS + 1))
    budget_reg = Signal(intbv(0)[32:])
    cycle_count = Signal(intbv(0)[32:])
    node_count = Signal(intbv(0)[32:])
    root_side = Signal(bool(0))
    held_black = Signal(intbv(0)[SQUARES:])     # the current board but for a stack read
    held_white = Signal(intbv(0)[SQUARES:])
    from_stack = Signal(bool(0))                 # the current board is the stack's read data
    alpha_cur = value_signal()
    alpha_parent = value_signal()
    alpha_grand = value_signal()
    last_cur = Signal(intbv(0)[6:])
    started_cur = Signal(bool(0))
    evaluating_self = Signal(bool(0))
    leaf_black = Signal(intbv(0)[SQUARES:])
    leaf_white = Signal(intbv(0)[SQUARES:])
    leaf_side = Signal(bool(0))
    root_child_pass = Signal(bool(0))       # the root's current child is a pass
    root_best = Signal(intbv(0)[6:])
    root_best_pass = Signal(bool(0))
    alpha_root = value_signal()             # root_alpha, latched on start
    alpha_above = value_signal()            # -root_beta: the alpha of a level above the root
    answer_move = Signal(intbv(0)[6:])
    answer_pass = Signal(bool(0))
    answer_value = value_signal()
    answer_depth = Signal(intbv(0, min=0, max=LEVELS + 1))
    solving = Signal(bool(0))               # this start is a solve
    winner_scoring = Signal(bool(0))        # ... whose finished games give the empties to the winner
    # Without the solve ports the engine never solves: undriven, these convert as constant 0 and
    # synthesis removes the solve logic.
    solve_in = solve_mode if solver else Signal(bool(0))
    solve_winner_in = solve_winner if solver else Signal(bool(0))

    stack_black = [Signal(intbv(0)[SQUARES:]) for _ in range(slots)]
    stack_white = [Signal(intbv(0)[SQUARES:]) for _ in range(slots)]
    stack_write = Signal(bool(0))
    stack_address = Signal(intbv(0)[level_bits:])
    stack_read_black = Signal(intbv(0)[SQUARES:])
    stack_read_white = Signal(intbv(0)[SQUARES:])
    stack_last = [Signal(intbv(0)[6:]) for _ in range(slots)]
    stack_alpha = [value_signal() for _ in range(slots)]
    stack_killer = [Signal(intbv(0)[6:]) for _ in range(slots)]
    killer_valid = Signal(intbv(0)[levels:])     # per level: its killer is set
    reached_by_pass = Signal(intbv(0)[levels:])  # per level: its node is a pass child
    killer_cur = Signal(intbv(0)[6:])
    killer_cur_valid = Signal(bool(0))
    order_pv = Signal(intbv(0)[6:])
    # single-iteration mode: the root's PV, latched on start; the iteration a start begins
    pv_root = Signal(intbv(0)[6:]) if single_iteration else None
    pv_root_valid = Signal(bool(0)) if single_iteration else None
    first_iteration = depth_limit if single_iteration else FIRST_ITERATION

    # --- datapath --------------------------------------------------------------------
    board_black = Signal(intbv(0)[SQUARES:])    # the current board
    board_white = Signal(intbv(0)[SQUARES:])
    side = Signal(bool(0))
    own = Signal(intbv(0)[SQUARES:])
    opp = Signal(intbv(0)[SQUARES:])
    own_legal = Signal(intbv(0)[SQUARES:])
    opp_legal = Signal(intbv(0)[SQUARES:])
    empty_squares = Signal(intbv(0)[SQUARES:])   # a solver's: parity ordering and the last-one step
    pv_valid = Signal(bool(0))
    first = Signal(bool(0))
    found = Signal(bool(0))
    chosen = Signal(intbv(0)[6:])
    flipped_black = Signal(intbv(0)[SQUARES:])
    flipped_white = Signal(intbv(0)[SQUARES:])
    flip_illegal = Signal(bool(0))
    # The flipper's inputs: the search's, or the idle move's (shared). Without sharing they are
    # the search's own signals, passed as they are: a local alias would rename them in the HDL.
    flip_black = Signal(intbv(0)[SQUARES:]) if shared_flipper else None
    flip_white = Signal(intbv(0)[SQUARES:]) if shared_flipper else None
    flip_side = Signal(bool(0)) if shared_flipper else None
    flip_move = Signal(intbv(0)[6:]) if shared_flipper else None

    eval_start = Signal(bool(0))
    eval_black = Signal(intbv(0)[SQUARES:])
    eval_white = Signal(intbv(0)[SQUARES:])
    eval_side = Signal(bool(0))
    eval_done = Signal(bool(0))
    eval_terminal = Signal(bool(0))
    eval_stage = Signal(intbv(0)[2:])
    small = {name: Signal(intbv(0, min=0, max=5)) for name in
             ("corners_own", "corners_opp", "xsq_own", "xsq_opp")}
    counts = {name: Signal(intbv(0, min=0, max=SQUARES + 1)) for name in
              ("mobility_own", "mobility_opp", "stable_own", "stable_opp",
               "discs_own", "discs_opp")}
    fixed_value = value_signal()
    adaptive_value = value_signal()
    leaf_legal = Signal(intbv(0)[SQUARES:])
    eval_rst = rst

    # --- stage 1's view (rtl/contexts.py): the registers and stage 0's results, one clock late
    state_late = stages.late(state)
    level_late = stages.late(level)
    iteration_late = stages.late(iteration)
    limit_late = stages.late(limit)
    budget_reg_late = stages.late(budget_reg)
    cycle_count_late = stages.late(cycle_count)
    node_count_late = stages.late(node_count)
    root_side_late = stages.late(root_side)
    held_black_late = stages.late(held_black)
    held_white_late = stages.late(held_white)
    from_stack_late = stages.late(from_stack)
    alpha_cur_late = stages.late(alpha_cur)
    alpha_parent_late = stages.late(alpha_parent)
    alpha_grand_late = stages.late(alpha_grand)
    last_cur_late = stages.late(last_cur)
    started_cur_late = stages.late(started_cur)
    evaluating_self_late = stages.late(evaluating_self)
    leaf_black_late = stages.late(leaf_black)
    leaf_white_late = stages.late(leaf_white)
    leaf_side_late = stages.late(leaf_side)
    root_child_pass_late = stages.late(root_child_pass)
    root_best_late = stages.late(root_best)
    root_best_pass_late = stages.late(root_best_pass)
    alpha_root_late = stages.late(alpha_root)
    alpha_above_late = stages.late(alpha_above)
    answer_move_late = stages.late(answer_move)
    answer_pass_late = stages.late(answer_pass)
    answer_value_late = stages.late(answer_value)
    answer_depth_late = stages.late(answer_depth)
    solving_late = stages.late(solving)
    winner_scoring_late = stages.late(winner_scoring)
    killer_valid_late = stages.late(killer_valid)
    reached_by_pass_late = stages.late(reached_by_pass)
    killer_cur_late = stages.late(killer_cur)
    killer_cur_valid_late = stages.late(killer_cur_valid)
    board_black_late = stages.late(board_black)
    board_white_late = stages.late(board_white)
    side_late = stages.late(side)
    own_legal_late = stages.late(own_legal)
    opp_legal_late = stages.late(opp_legal)
    first_late = stages.late(first)
    found_late = stages.late(found)
    chosen_late = stages.late(chosen)
    # the flipper's move: node ordering's choice, or in a solve's last-one step the registered
    # last empty square (see last_square_move)
    search_move = Signal(intbv(0)[6:]) if solver else chosen_late
    # the level as a 5-bit ply (0..16 in a depth-limited search, 0..31 in a solve)
    ply_here = level_late if level_bits == 5 else ConcatSignal(intbv(0)[5 - level_bits:], level_late)
    if stages.interleaved:
        context_now = Signal(bool(0))            # the context in stage 0
        context_late = Signal(bool(1))           # the context in stage 1: the other one
        slot = ConcatSignal(context_late, level_late)
        stack_slot = ConcatSignal(context_late, stack_address)
        root_slot = ConcatSignal(context_late, intbv(0)[level_bits:])

        @always_seq(clk.posedge, reset=rst)
        def take_turns():
            context_now.next = not context_now

        @always_comb
        def other_context():
            context_late.next = not context_now

        @always_comb
        def turn_output():
            turn.next = context_late

        turns = [take_turns, other_context, turn_output]
    else:
        slot = level_late
        stack_slot = stack_address
        root_slot = 0
        turns = []

    cells = [
        move_checker(own, opp, own_legal),
        move_checker(opp, own, opp_legal),
        # a solver orders a solve's moves by parity (docs/spec.md §7), and the rest as node_order
        parity_order(own_legal, empty_squares, solving, pv_valid, order_pv, first, last_cur, found, chosen)
        if solver else node_order(own_legal, pv_valid, order_pv, first, last_cur, found, chosen),
        disc_flipper(flip_black if shared_flipper else board_black_late,
                     flip_white if shared_flipper else board_white_late,
                     flip_side if shared_flipper else side_late,
                     flip_move if shared_flipper else search_move,
                     flipped_black, flipped_white, flip_illegal),
    ]
    if patterned:
        # the seed evaluator's done, stage, stable counts and values go nowhere (synthesis removes
        # their logic); the trace's stable counts and values stay undriven: constant 0
        unused = {name: Signal(intbv(0, min=0, max=SQUARES + 1)) for name in ("stable_own", "stable_opp")}
        unused.update(done=Signal(bool(0)), stage=Signal(intbv(0)[2:]), fixed=value_signal(),
                      adaptive=value_signal())
        pattern_value = value_signal()
        cells += [
            seed_evaluator(clk, eval_rst, eval_start, eval_black, eval_white, eval_side, unused["done"],
                           eval_terminal, unused["stage"], small["corners_own"], small["corners_opp"],
                           small["xsq_own"], small["xsq_opp"], counts["mobility_own"],
                           counts["mobility_opp"], unused["stable_own"], unused["stable_opp"],
                           counts["discs_own"], counts["discs_opp"], unused["fixed"], unused["adaptive"],
                           weights=weights, legal_own=leaf_legal),
            pattern_leaf(clk, eval_rst, eval_start, eval_black, eval_white, eval_side, eval_done, eval_stage,
                         eval_terminal, counts["discs_own"], counts["discs_opp"], pattern_value,
                         weights=pattern_weights),
        ]
    else:
        cells.append(
            seed_evaluator(clk, eval_rst, eval_start, eval_black, eval_white, eval_side, eval_done,
                           eval_terminal, eval_stage, small["corners_own"], small["corners_opp"],
                           small["xsq_own"], small["xsq_opp"], counts["mobility_own"],
                           counts["mobility_opp"], counts["stable_own"], counts["stable_opp"],
                           counts["discs_own"], counts["discs_opp"], fixed_value, adaptive_value,
                           weights=weights, legal_own=leaf_legal, contexts=contexts))
    stable_own_count = counts["stable_own"]
    stable_opp_count = counts["stable_opp"]
    mobility_own_count = counts["mobility_own"]
    mobility_opp_count = counts["mobility_opp"]
    discs_own_count = counts["discs_own"]
    discs_opp_count = counts["discs_opp"]
    corners_own_count = small["corners_own"]
    corners_opp_count = small["corners_opp"]
    xsq_own_count = small["xsq_own"]
    xsq_opp_count = small["xsq_opp"]

    # --- decisions (combinational) ---------------------------------------------------
    busy = Signal(bool(0))
    out_of_budget = Signal(bool(0))
    frontier = Signal(bool(0))
    answering = Signal(bool(0))          # the evaluator answers for a child leaf
    self_answer = Signal(bool(0))        # the evaluator answers for a terminal node here
    evaluated_raw = value_signal()       # the evaluator's value (the formal proof's cut point)
    leaf_raw = value_signal()            # the answering node's value: evaluated, or a solve's final count
    leaf_value = value_signal()          # raised to >= -255
    leaf_negated = value_signal()        # the leaf's value seen from this level
    beta_here = value_signal()           # -alpha_parent: this level's beta
    leaf_cut = Signal(bool(0))
    raw_plus_cur = Signal(intbv(0, min=-512, max=512))      # leaf_raw + alpha_cur
    raw_plus_parent = Signal(intbv(0, min=-512, max=512))   # leaf_raw + alpha_parent
    alpha_now = value_signal()           # alpha of this level after this cycle's leaf
    leaf_raises = Signal(bool(0))
    at_node = Signal(bool(0))            # this cycle chooses the level's next action
    has_child = Signal(bool(0))          # the level has a child left to generate
    terminal_here = Signal(bool(0))
    spawn = Signal(bool(0))
    spawn_pass = Signal(bool(0))
    push = Signal(bool(0))
    spawn_leaf = Signal(bool(0))
    evaluate_self = Signal(bool(0))
    leave = Signal(bool(0))              # return this level's value to the level above
    leave_value = value_signal()
    up_value = value_signal()            # -leave_value
    beta_parent = value_signal()         # -alpha_grand: the parent level's beta
    up_cut = Signal(bool(0))
    up_raises = Signal(bool(0))
    cut_return = Signal(bool(0))         # a leaf cut this level off: return to the parent
    root_done = Signal(bool(0))          # this cycle ends the iteration (root exhausted or cut off)
    root_value = value_signal()          # ... with this value
    root_move = Signal(intbv(0)[6:])     # ... and this best move
    root_move_pass = Signal(bool(0))
    solve_terminal = Signal(bool(0))     # a solve's terminal node: its final count leaves this cycle
    overflow = Signal(bool(0))           # a solve would push below the deepest stack level
    own_discs = count_signal(SQUARES)    # the current board's discs (a solve's final count)
    opp_discs = count_signal(SQUARES)
    final_value = value_signal()         # a finished game's value for its side to move
    plain_final = value_signal()         # own - opp
    won_final = value_signal()           # 64 - 2 opp: the winner's discs and the empty squares
    lost_final = value_signal()          # 2 own - 64
    board_squares = Signal(intbv(SQUARES)[9:])   # a constant: undriven, it converts as one
    own_discs_wide = zero_extended(own_discs, 9)
    opp_discs_wide = zero_extended(opp_discs, 9)
    own_discs_double = ConcatSignal(intbv(0)[1:], own_discs, intbv(0)[1:])
    opp_discs_double = ConcatSignal(intbv(0)[1:], opp_discs, intbv(0)[1:])
    # the last-one step: a node below the root with one empty square that its side plays
    empty_count = count_signal(SQUARES)
    last_one = Signal(bool(0))           # this cycle values the node's full-board child and leaves
    opp_after = Signal(intbv(0)[SQUARES:])       # the opponent's discs after the last move
    opp_after_count = count_signal(SQUARES)      # ... the child's own discs
    opp_after_double = ConcatSignal(intbv(0)[1:], opp_after_count, intbv(0)[1:])
    mover_after = Signal(intbv(0)[SQUARES:])     # the side's discs after it: 64 - opp_after_count
    mover_after_count = count_signal(SQUARES)    # ... the child's opponent's discs
    last_child_value = value_signal()    # the child's value, 2 x opp_after_count - 64 (a full board)
    # The square the last-one step plays, and whether the node has one empty square, are
    # registered when the node is pushed (its parent's empty squares and move give them), so that
    # the flipper plays that square without waiting for the move checkers and node ordering.
    one_empty = Signal(bool(0))          # the node the last push entered has one empty square
    last_square = Signal(intbv(0)[6:])   # ... this one
    child_one_empty = Signal(bool(0))    # the child this cycle pushes has one empty square
    child_last_square = Signal(intbv(0)[6:])   # ... this one (when it has)
    # the XOR of the node's empty squares' indices: the square itself when one is empty, and with
    # two empty and one of them played, XOR the move gives the other (bit k: the parity of the
    # empty squares whose index has bit k)
    index_bits = {k: Signal(bool(0)) for k in range(6)}
    empty_index_xor = ConcatSignal(*(index_bits[k] for k in reversed(range(6))))
    plays_last_square = Signal(bool(0))  # a first visit below the root with one empty square
    last_cut = Signal(bool(0))           # the last-one child's value cuts the grandparent level off
    last_raise = Signal(bool(0))         # ... raises the parent level's alpha
    solve_cells = [popcount(own, own_discs), popcount(opp, opp_discs),
                   difference(own_discs_wide, opp_discs_wide, plain_final),
                   difference(board_squares, opp_discs_double, won_final),
                   difference(own_discs_double, board_squares, lost_final),
                   popcount(empty_squares, empty_count), popcount(opp_after, opp_after_count),
                   popcount(mover_after, mover_after_count),
                   difference(opp_after_double, board_squares, last_child_value)] if solver else []
    index_parity_cells = [parity(empty_squares, index_bits[k], [s for s in range(SQUARES) if s >> k & 1])
                          for k in range(6)] if solver else []

    @always_comb
    def current_board():
        if from_stack:
            board_black.next = stack_read_black
            board_white.next = stack_read_white
        else:
            board_black.next = held_black
            board_white.next = held_white

    @always_comb
    def sides():
        side.next = root_side ^ level[0]
        if root_side ^ level[0]:
            own.next = board_white
            opp.next = board_black
        else:
            own.next = board_black
            opp.next = board_white

    if single_iteration:
        pv_root_late = stages.late(pv_root)
        pv_root_valid_late = stages.late(pv_root_valid)

        @always_seq(clk.posedge, reset=rst)
        def root_pv_latch():
            if start:
                pv_root.next = root_pv
                pv_root_valid.next = root_pv_valid
            else:
                pv_root.next = pv_root_late
                pv_root_valid.next = pv_root_valid_late

        @always_comb
        def ordering_inputs():
            if level == 0:
                pv_valid.next = iteration > 1 and pv_root_valid
                order_pv.next = pv_root
            else:
                pv_valid.next = killer_cur_valid
                order_pv.next = killer_cur
            first.next = not started_cur

        root_pv_cells = [root_pv_latch]
    else:
        @always_comb
        def ordering_inputs():
            if level == 0:
                pv_valid.next = iteration > 1 and not answer_pass
                order_pv.next = answer_move
            else:
                pv_valid.next = killer_cur_valid
                order_pv.next = killer_cur
            first.next = not started_cur

        root_pv_cells = []

    if single_iteration:
        # A finished game at the root is answered whatever the budget, as iteration 1 answers
        # it in iterative deepening: the budget does not count while the root is terminal.
        @always_comb
        def schedule():
            busy.next = state_late == state_t.EXPAND or state_late == state_t.AWAIT
            out_of_budget.next = ((state_late == state_t.EXPAND or state_late == state_t.AWAIT)
                                  and iteration_late > 1 and cycle_count_late >= budget_reg_late
                                  and not (level_late == 0 and ((own_legal_late == 0 and opp_legal_late == 0)
                                                                or evaluating_self_late)))
            frontier.next = level_late + 1 == iteration_late
            answering.next = state_late == state_t.AWAIT and eval_done and not evaluating_self_late
            terminal_here.next = own_legal_late == 0 and opp_legal_late == 0
    else:
        @always_comb
        def schedule():
            busy.next = state_late == state_t.EXPAND or state_late == state_t.AWAIT
            # a solve has no iteration 1 to complete: its budget counts from the start
            out_of_budget.next = ((state_late == state_t.EXPAND or state_late == state_t.AWAIT)
                                  and (iteration_late > 1 or solving_late) and cycle_count_late >= budget_reg_late)
            frontier.next = level_late + 1 == iteration_late and not solving_late
            answering.next = state_late == state_t.AWAIT and eval_done and not evaluating_self_late
            terminal_here.next = own_legal_late == 0 and opp_legal_late == 0

    chosen_value = pattern_value if patterned else adaptive_value if adaptive else fixed_value

    @always_comb
    def self_answers():
        # A terminal node answers for itself: the evaluator's answer, or in a solve its final
        # count, in its first cycle.
        solve_terminal.next = state_late == state_t.EXPAND and first_late and terminal_here and solving_late
        self_answer.next = ((state_late == state_t.AWAIT and eval_done and evaluating_self_late)
                            or (state_late == state_t.EXPAND and first_late and terminal_here and solving_late)
                            or last_one)

    if solver:
        @always_comb
        def final_count():
            # plain: own - opp; winner: the empty squares go to the winner (a draw stays 0)
            if winner_scoring_late and own_discs > opp_discs:
                final_value.next = won_final
            elif winner_scoring_late and own_discs < opp_discs:
                final_value.next = lost_final
            else:
                final_value.next = plain_final

        @always_comb
        def stack_overflow():
            overflow.next = solving_late and spawn and level_late == levels - 1

        @always_comb
        def empties():
            empty_squares.next = ~(own | opp)

        @always_comb
        def last_square_choice():
            # The child a push enters: a pass keeps the node's empty squares; a move takes one of
            # them, so with two left the child's is the other one.
            if spawn_pass:
                child_one_empty.next = empty_count == 1
                child_last_square.next = empty_index_xor
            else:
                child_one_empty.next = empty_count == 2
                child_last_square.next = empty_index_xor ^ chosen_late

        @always_seq(clk.posedge, reset=rst)
        def last_square_register():
            if push:
                one_empty.next = child_one_empty
                last_square.next = child_last_square

        @always_comb
        def last_square_move():
            # Every first visit below the root follows the push that entered it, so the registers
            # describe the node; with one empty square its only move (if any) is that square,
            # which node ordering would choose, and the flipper takes it from the register.
            plays_last_square.next = solving_late and first_late and level_late != 0 and one_empty
            if solving_late and first_late and level_late != 0 and one_empty:
                search_move.next = last_square
            else:
                search_move.next = chosen_late

        @always_comb
        def last_one_step():
            # the first visit of a node below the root whose side plays the last empty square:
            # the flipper plays it and the node leaves with the full board's count, 64 - 2 x the
            # opponent's discs, whatever the scoring
            last_one.next = plays_last_square and state_late == state_t.EXPAND and own_legal_late != 0
            if side_late:
                opp_after.next = flipped_black
                mover_after.next = flipped_white
            else:
                opp_after.next = flipped_white
                mover_after.next = flipped_black

        @always_comb
        def last_one_fold():
            # The child's value v against the levels above, without the node's value -v: the
            # node (value -v) cuts its parent off when -v <= alpha_grand, that is v >= beta_parent,
            # and raises the parent's alpha when -v + alpha_parent < 0, that is v > alpha_parent.
            last_cut.next = alpha_grand_late != MINUS_INFINITY and last_child_value >= beta_parent
            last_raise.next = last_child_value > alpha_parent_late

        solve_blocks = [final_count, stack_overflow, empties, last_square_choice, last_square_register,
                        last_square_move, last_one_step, last_one_fold]
    else:
        solve_blocks = []   # final_value and overflow stay undriven: constant 0

    @always_comb
    def leaf_arithmetic():
        evaluated_raw.next = chosen_value

    @always_comb
    def leaf_source():
        # (a last-one node's value does not pass here: leaving_fold and leaving_negate take its
        # child's value directly)
        if solving_late:
            leaf_raw.next = final_value
        else:
            leaf_raw.next = evaluated_raw

    @always_comb
    def leaf_floor():
        if leaf_raw < VALUE_FLOOR:
            leaf_value.next = VALUE_FLOOR
        else:
            leaf_value.next = leaf_raw

    @always_comb
    def leaf_negate():
        leaf_negated.next = -leaf_value

    @always_comb
    def betas():
        # beta = -alpha of the level above; alpha = -256 means beta = +infinity (no cut-off),
        # the one alpha whose negation does not fit 9 bits: it is excluded below.
        beta_here.next = -alpha_parent_late
        beta_parent.next = -alpha_grand_late

    # The decisions of a leaf's answer (cut-off, raise) and of the return that may follow it
    # sit at the end of the clock's longest path: the evaluator's value. So they compare the
    # raw value with the alphas directly instead of floored, negated and compared again:
    # with v = max(raw, -255) and an alpha a != -256 (so a >= -255),
    #   -v >= -a  <=>  raw <= a;     -v > a  <=>  raw + a < 0 and a != 255.
    # The folded values themselves (alpha_now, up_value) only go into registers.
    @always_comb
    def leaf_sums():
        raw_plus_cur.next = leaf_raw + alpha_cur_late
        raw_plus_parent.next = leaf_raw + alpha_parent_late

    @always_comb
    def leaf_fold():
        leaf_cut.next = answering and alpha_parent_late != MINUS_INFINITY and leaf_raw <= alpha_parent_late
        leaf_raises.next = answering and alpha_cur_late != VALUE_MAX and raw_plus_cur < 0

    @always_comb
    def leaf_alpha():
        if leaf_raises:
            alpha_now.next = leaf_negated
        else:
            alpha_now.next = alpha_cur_late

    @always_comb
    def next_action():
        at_node.next = ((state_late == state_t.EXPAND and not (first_late and terminal_here) and not last_one)
                        or (answering and not leaf_cut))
        evaluate_self.next = state_late == state_t.EXPAND and first_late and terminal_here and not solving_late

    @always_comb
    def child_left():
        # a next move, or (first visit, no move, the opponent has one) the pass
        has_child.next = (own_legal_late != 0 and found_late) or (first_late and own_legal_late == 0 and opp_legal_late != 0)

    @always_comb
    def generation():
        spawn.next = at_node and has_child
        spawn_pass.next = own_legal_late == 0
        leave.next = (at_node and not has_child) or self_answer
        cut_return.next = leaf_cut

    @always_comb
    def generation_kind():
        push.next = spawn and not frontier
        spawn_leaf.next = spawn and frontier

    @always_comb
    def leaving():
        if self_answer:
            leave_value.next = leaf_value
        else:
            leave_value.next = alpha_now

    @always_comb
    def leaving_negate():
        if last_one:
            up_value.next = last_child_value
        else:
            up_value.next = -leave_value

    @always_comb
    def leaving_fold():
        # up_value >= beta_parent (cut) and up_value > alpha_parent (raise). A terminal node
        # leaves with v, its own value (up_value is -v). Any other level leaves with its alpha, fail-hard:
        # either still its starting value, alpha_grand (so up_value is the parent's beta: a
        # cut-off, unless that beta is infinite), or raised, by this cycle's leaf or earlier,
        # and then below its beta (a higher value would have cut it off), so up_value lies
        # strictly inside the parent's window and raises the parent's alpha. Alphas only rise,
        # so "still its starting value" is alpha_cur <= alpha_grand with no raise now.
        if last_one:
            up_cut.next = last_cut
            up_raises.next = last_raise
        elif self_answer:
            up_cut.next = level_late >= 1 and alpha_grand_late != MINUS_INFINITY and leaf_raw <= alpha_grand_late
            up_raises.next = raw_plus_parent < 0 and alpha_parent_late != VALUE_MAX
        else:
            up_cut.next = (level_late >= 1 and alpha_grand_late != MINUS_INFINITY and not leaf_raises
                           and alpha_cur_late <= alpha_grand_late)
            up_raises.next = 1

    @always_comb
    def iteration_end():
        # The root's moves are exhausted, or (a narrow root window) a leaf or a child's value
        # cuts the root off: fail-hard, the value is then the root's beta.
        root_done.next = 0
        root_value.next = alpha_now
        root_move.next = root_best_late
        root_move_pass.next = root_best_pass_late
        if level_late == 0 and leave and not self_answer:
            root_done.next = 1
            if answering and leaf_raises:
                root_move.next = last_cur_late
                root_move_pass.next = root_child_pass_late
        elif level_late == 0 and cut_return:
            root_done.next = 1
            root_value.next = beta_here
            root_move.next = last_cur_late
            root_move_pass.next = root_child_pass_late
        elif level_late == 1 and leave and up_cut:
            root_done.next = 1
            root_value.next = beta_parent
            root_move.next = stack_last[int(root_slot)]
            root_move_pass.next = root_child_pass_late

    @always_comb
    def evaluator_inputs():
        eval_start.next = busy and not out_of_budget and (spawn_leaf or evaluate_self)
        if spawn_leaf and not spawn_pass:
            eval_black.next = flipped_black
            eval_white.next = flipped_white
        else:
            eval_black.next = board_black_late
            eval_white.next = board_white_late
        if spawn_leaf:
            eval_side.next = not side_late
        else:
            eval_side.next = side_late

    # --- the board stack (block RAM) -------------------------------------------------
    @always_comb
    def stack_addressing():
        # The read address is the level this cycle returns to (the control's return branches
        # below).
        stack_write.next = busy and not start and not out_of_budget and not overflow and push
        if leave and up_cut and level_late >= 2:
            stack_address.next = two_below[int(level_late)]
        else:
            stack_address.next = one_below[int(level_late)]

    @always(clk.posedge)
    def stack_memory():
        # No reset and a registered read: what synthesis maps to block RAM.
        if stack_write:
            stack_black[int(slot)].next = board_black_late
            stack_white[int(slot)].next = board_white_late
        stack_read_black.next = stack_black[int(stack_slot)]
        stack_read_white.next = stack_white[int(stack_slot)]

    # --- the state machine -----------------------------------------------------------
    @always_seq(clk.posedge, reset=rst)
    def control():
        # A register this cycle does not assign keeps its context's value (rtl/contexts.py).
        alpha_above.next = alpha_above_late
        alpha_cur.next = alpha_cur_late
        alpha_grand.next = alpha_grand_late
        alpha_parent.next = alpha_parent_late
        alpha_root.next = alpha_root_late
        solving.next = solving_late
        winner_scoring.next = winner_scoring_late
        answer_depth.next = answer_depth_late
        answer_move.next = answer_move_late
        answer_pass.next = answer_pass_late
        answer_value.next = answer_value_late
        budget_reg.next = budget_reg_late
        cycle_count.next = cycle_count_late
        evaluating_self.next = evaluating_self_late
        from_stack.next = from_stack_late
        held_black.next = held_black_late
        held_white.next = held_white_late
        iteration.next = iteration_late
        killer_cur.next = killer_cur_late
        killer_cur_valid.next = killer_cur_valid_late
        killer_valid.next = killer_valid_late
        last_cur.next = last_cur_late
        leaf_black.next = leaf_black_late
        leaf_side.next = leaf_side_late
        leaf_white.next = leaf_white_late
        level.next = level_late
        limit.next = limit_late
        node_count.next = node_count_late
        reached_by_pass.next = reached_by_pass_late
        root_best.next = root_best_late
        root_best_pass.next = root_best_pass_late
        root_child_pass.next = root_child_pass_late
        root_side.next = root_side_late
        started_cur.next = started_cur_late
        state.next = state_late
        from_stack.next = 0
        if from_stack_late:   # the board read from the stack this context's last cycle
            held_black.next = board_black_late
            held_white.next = board_white_late
        if start:
            state.next = state_t.EXPAND
            level.next = 0
            iteration.next = first_iteration
            limit.next = depth_limit
            budget_reg.next = budget
            cycle_count.next = 0
            node_count.next = 0
            root_side.next = root_white_to_move
            held_black.next = root_black
            held_white.next = root_white
            alpha_cur.next = root_alpha
            alpha_root.next = root_alpha
            if root_beta == MINUS_INFINITY:
                alpha_parent.next = MINUS_INFINITY
                alpha_above.next = MINUS_INFINITY
            else:
                alpha_parent.next = -root_beta
                alpha_above.next = -root_beta
            alpha_grand.next = MINUS_INFINITY
            started_cur.next = 0
            last_cur.next = 0
            evaluating_self.next = 0
            solving.next = solve_in
            winner_scoring.next = solve_winner_in
            if solve_in:   # one search to the end: iteration 1 alone, no frontier
                limit.next = 1
            root_best.next = 0
            root_best_pass.next = 0
            root_child_pass.next = 0
            killer_valid.next = 0
            killer_cur_valid.next = 0
            reached_by_pass.next = 0
            answer_move.next = 0
            answer_pass.next = solve_in   # an abandoned solve answers no move
            answer_value.next = 0
            answer_depth.next = 0
        elif busy:
            if out_of_budget or overflow:
                state.next = state_t.FINISHED
            else:
                cycle_count.next = cycle_count_late + 1
                if eval_start:
                    leaf_black.next = eval_black
                    leaf_white.next = eval_white
                    leaf_side.next = eval_side
                if last_one:   # the full-board child is generated (and left) in this cycle
                    node_count.next = node_count_late + 1
                if evaluate_self:
                    evaluating_self.next = 1
                    started_cur.next = 1
                    state.next = state_t.AWAIT
                if answering and not leaf_cut:
                    alpha_cur.next = alpha_now
                    if level_late == 0 and leaf_raises:
                        root_best.next = last_cur_late
                        root_best_pass.next = root_child_pass_late
                if spawn:
                    node_count.next = node_count_late + 1
                    if level_late == 0:
                        root_child_pass.next = spawn_pass
                        if not started_cur_late:  # the best move until one raises alpha
                            root_best.next = chosen_late
                            root_best_pass.next = spawn_pass
                    if push:
                        stack_last[int(slot)].next = chosen_late
                        stack_alpha[int(slot)].next = alpha_now
                        if not spawn_pass:
                            held_black.next = flipped_black
                            held_white.next = flipped_white
                        level.next = level_late + 1
                        alpha_grand.next = alpha_parent_late
                        alpha_parent.next = alpha_now
                        alpha_cur.next = alpha_parent_late   # -(this level's beta)
                        started_cur.next = 0
                        last_cur.next = 0
                        killer_cur.next = stack_killer[int(slot + 1)]
                        killer_cur_valid.next = killer_valid_late[int(level_late + 1)]
                        reached_by_pass.next[int(level_late + 1)] = spawn_pass
                        state.next = state_t.EXPAND
                    else:
                        last_cur.next = chosen_late
                        started_cur.next = 1
                        evaluating_self.next = 0
                        state.next = state_t.AWAIT
                elif root_done:
                    answer_move.next = root_move
                    answer_pass.next = root_move_pass
                    answer_value.next = root_value
                    answer_depth.next = iteration_late
                    # No killer is kept for the root: its ordering takes the PV instead.
                    if level_late == 1:  # cut off by a child's value: back to the root's board
                        level.next = 0
                        from_stack.next = 1
                    if iteration_late == limit_late:
                        state.next = state_t.FINISHED
                    else:
                        iteration.next = iteration_late + 1
                        started_cur.next = 0
                        last_cur.next = 0
                        alpha_cur.next = alpha_root_late
                        alpha_parent.next = alpha_above_late
                        alpha_grand.next = MINUS_INFINITY
                        root_best_pass.next = 0
                        state.next = state_t.EXPAND
                elif cut_return:
                    # A leaf cut this level off: its beta goes up, which cannot move the
                    # parent's alpha; continue at the parent.
                    if own_legal_late != 0:   # cut by a move, not by a pass
                        stack_killer[int(slot)].next = last_cur_late
                        killer_valid.next[int(level_late)] = 1
                    level.next = level_late - 1
                    from_stack.next = 1
                    last_cur.next = stack_last[int(slot - 1)]
                    killer_cur.next = stack_killer[int(slot - 1)]
                    killer_cur_valid.next = killer_valid_late[int(level_late - 1)]
                    started_cur.next = 1
                    alpha_cur.next = alpha_parent_late
                    alpha_parent.next = alpha_grand_late
                    if level_late >= 3:
                        alpha_grand.next = stack_alpha[int(slot - 3)]
                    elif level_late == 2:
                        alpha_grand.next = alpha_above_late
                    else:
                        alpha_grand.next = MINUS_INFINITY
                    state.next = state_t.EXPAND
                elif leave:
                    if level_late == 0:
                        # A finished game at the root (the other leaves of the root are
                        # root_done): nothing to search.
                        answer_pass.next = 1
                        answer_value.next = leaf_value
                        answer_depth.next = limit_late
                        state.next = state_t.FINISHED
                    elif up_cut:
                        # The value cuts the parent off: continue at the grandparent.
                        if not reached_by_pass_late[int(level_late)]:
                            stack_killer[int(slot - 1)].next = stack_last[int(slot - 1)]
                            killer_valid.next[int(level_late - 1)] = 1
                        level.next = level_late - 2
                        from_stack.next = 1
                        last_cur.next = stack_last[int(slot - 2)]
                        killer_cur.next = stack_killer[int(slot - 2)]
                        killer_cur_valid.next = killer_valid_late[int(level_late - 2)]
                        started_cur.next = 1
                        alpha_cur.next = alpha_grand_late
                        if level_late >= 3:
                            alpha_parent.next = stack_alpha[int(slot - 3)]
                        else:
                            alpha_parent.next = alpha_above_late
                        if level_late >= 4:
                            alpha_grand.next = stack_alpha[int(slot - 4)]
                        elif level_late == 3:
                            alpha_grand.next = alpha_above_late
                        else:
                            alpha_grand.next = MINUS_INFINITY
                        state.next = state_t.EXPAND
                    else:
                        level.next = level_late - 1
                        from_stack.next = 1
                        last_cur.next = stack_last[int(slot - 1)]
                        killer_cur.next = stack_killer[int(slot - 1)]
                        killer_cur_valid.next = killer_valid_late[int(level_late - 1)]
                        started_cur.next = 1
                        if up_raises:
                            alpha_cur.next = up_value
                            if level_late == 1:
                                root_best.next = stack_last[int(root_slot)]
                                root_best_pass.next = root_child_pass_late
                        else:
                            alpha_cur.next = alpha_parent_late
                        alpha_parent.next = alpha_grand_late
                        if level_late >= 3:
                            alpha_grand.next = stack_alpha[int(slot - 3)]
                        elif level_late == 2:
                            alpha_grand.next = alpha_above_late
                        else:
                            alpha_grand.next = MINUS_INFINITY
                        state.next = state_t.EXPAND

    # --- outputs ---------------------------------------------------------------------
    if single_iteration:
        # The step that finds the budget spent already shows the abandoned answer (depth 0, the
        # final node count), so that done comes C steps after the start however the search
        # ends (C the golden search's cycles, its budget when it is abandoned).
        @always_comb
        def answer_outputs():
            done.next = state_late == state_t.FINISHED or out_of_budget
            best_move.next = answer_move_late
            best_pass.next = answer_pass_late
            value.next = answer_value_late
            depth.next = answer_depth_late
            nodes.next = node_count_late
            cycles.next = cycle_count_late
    else:
        @always_comb
        def answer_outputs():
            done.next = state_late == state_t.FINISHED
            best_move.next = answer_move_late
            best_pass.next = answer_pass_late
            value.next = answer_value_late
            depth.next = answer_depth_late
            nodes.next = node_count_late
            cycles.next = cycle_count_late

    @always_comb
    def trace_outputs():
        # Defaults first (no event: everything 0), then the fields of this cycle's event.
        node_event.next = 0
        event_kind.next = KIND_INNER
        event_ply.next = 0
        event_black.next = 0
        event_white.next = 0
        event_white_to_move.next = 0
        event_legal.next = 0
        event_stable_own.next = 0
        event_stable_opp.next = 0
        event_value.next = 0
        event_terminal.next = 0
        event_stage.next = 0
        event_corners_own.next = 0
        event_corners_opp.next = 0
        event_xsq_own.next = 0
        event_xsq_opp.next = 0
        event_mobility_own.next = 0
        event_mobility_opp.next = 0
        event_discs_own.next = 0
        event_discs_opp.next = 0
        event_fixed.next = 0
        event_adaptive.next = 0
        if last_one and not out_of_budget:
            # the last-one step reports the node's full-board child in place of the node
            node_event.next = 1
            event_kind.next = KIND_TERMINAL
            event_ply.next = ply_here + 1
            event_black.next = flipped_black
            event_white.next = flipped_white
            event_white_to_move.next = not side_late
            event_value.next = last_child_value
            event_terminal.next = 1
            event_discs_own.next = opp_after_count
            event_discs_opp.next = mover_after_count
        elif (state_late == state_t.EXPAND and not out_of_budget and first_late
                and not terminal_here):
            node_event.next = 1
            event_ply.next = ply_here
            event_black.next = board_black_late
            event_white.next = board_white_late
            event_white_to_move.next = side_late
            event_legal.next = own_legal_late
        elif solve_terminal and not out_of_budget:
            node_event.next = 1
            event_kind.next = KIND_TERMINAL
            event_ply.next = ply_here
            event_black.next = board_black_late
            event_white.next = board_white_late
            event_white_to_move.next = side_late
            event_value.next = final_value
            event_terminal.next = 1
            event_discs_own.next = own_discs
            event_discs_opp.next = opp_discs
        elif state_late == state_t.AWAIT and eval_done and not out_of_budget:
            node_event.next = 1
            if evaluating_self_late:
                event_kind.next = KIND_TERMINAL
                event_ply.next = ply_here
            else:
                event_kind.next = KIND_LEAF
                event_ply.next = ply_here + 1
            event_black.next = leaf_black_late
            event_white.next = leaf_white_late
            event_white_to_move.next = leaf_side_late
            event_legal.next = leaf_legal
            event_stable_own.next = stable_own_count
            event_stable_opp.next = stable_opp_count
            event_value.next = leaf_value
            event_terminal.next = eval_terminal
            event_stage.next = eval_stage
            event_corners_own.next = corners_own_count
            event_corners_opp.next = corners_opp_count
            event_xsq_own.next = xsq_own_count
            event_xsq_opp.next = xsq_opp_count
            event_mobility_own.next = mobility_own_count
            event_mobility_opp.next = mobility_opp_count
            event_discs_own.next = discs_own_count
            event_discs_opp.next = discs_opp_count
            event_fixed.next = fixed_value
            event_adaptive.next = adaptive_value

    @always_comb
    def fault_output():
        fault.next = busy and spawn and not spawn_pass and flip_illegal

    if shared_flipper:
        @always_comb
        def flipper_inputs():
            # a 2:1 multiplexer in front of the flipper, selected by a decode of the state
            # register (early in the cycle); the flipper is idle whenever the engine is
            if busy:
                flip_black.next = board_black
                flip_white.next = board_white
                flip_side.next = side
                flip_move.next = search_move
            else:
                flip_black.next = root_black
                flip_white.next = root_white
                flip_side.next = root_white_to_move
                flip_move.next = idle_move

        @always_comb
        def idle_outputs():
            idle_black.next = flipped_black
            idle_white.next = flipped_white
            idle_illegal.next = flip_illegal

        shared = [flipper_inputs, idle_outputs]
    else:
        shared = []

    late_cells = [late_register(clk, rst, source, copy) for source, copy in stages.pairs]

    return (late_cells, turns, cells, solve_cells, index_parity_cells, shared, root_pv_cells, current_board, sides, ordering_inputs, schedule, leaf_arithmetic, leaf_floor, leaf_negate,
            self_answers, solve_blocks, leaf_source, betas, leaf_sums, leaf_fold, leaf_alpha, next_action, child_left, generation, generation_kind, leaving,
            leaving_negate, leaving_fold, iteration_end, evaluator_inputs, stack_addressing, stack_memory,
            control,
            answer_outputs, trace_outputs, fault_output)
