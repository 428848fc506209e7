"""The root splitter (docs/root-split.md): one search of a move on both contexts of the engine.

The processor built with ``contexts=2`` keeps iterative deepening at the root and hands the
root's moves to the two contexts of the interleaved engine (``search`` with ``contexts=2`` in
single-iteration mode) as subtree searches, *jobs*, each with the root window as it stands when
the job starts. The contract, clock by clock, is docs/root-split.md; its golden twin is
golden/root_split.py. Here it is a small controller beside the engine:

* **Root.** A move checker gives the root's legal moves, registered (the root is held while
  searching); node ordering (docs/spec.md §5) with the previous iteration's best move as PV gives the
  iteration's first move ``m0`` (``first``) and the move after the last one handed out
  (``last_move``); a disc flipper plays the job's move on the root to make the child the job
  searches. While no search runs the flipper serves the processor instead (``idle_*``): the
  interleaved engine shares no flipper with a top.
* **Dispatch.** A job is chosen in its context's clock ``k`` and started in that context's
  next clock ``k + 2`` (``DISPATCH_LATENCY``): the choice is registered (``chosen_*``), the
  flipper plays it in clock ``k + 1`` and its child is registered (``ready_*``), and the engine
  takes the registered child in clock ``k + 2``. The node ordering, the flipper and the
  engine's start each get a clock of their own; the two contexts' choices alternate through
  the one two-stage pipeline. The window is taken from the root's alpha at the start.
* **Clocks.** ``k`` counts clocks from the first clock after ``start`` in which the engine's
  ``turn`` is 0; in clock ``k`` the engine's inputs are taken for, and its outputs describe,
  context ``k mod 2`` (= ``turn``). Each clock applies the contract's steps for that
  context: take its result, else start the job it chose two clocks before, else choose its
  next job; then end the iteration when no job is running or chosen.
  A result is taken when the engine's ``done`` is visible: ``2 + 2 C`` clocks after the job's
  start (``C`` the golden search's cycles; in single-iteration mode the engine's ``done`` of a
  search that its budget abandons rises in the step that finds the budget spent).
* **Per context** (two-entry memories, addressed by ``turn``): the job's kind, root move,
  depth, the window given to the engine, the root's alpha when it started, and the signature
  of the context's node events since the job started (the fold of ``trace_signature`` of the
  one-context processor, rtl/processor.py ``trace_fold``).
* **Per root move** (64 entries, valid bits cleared when a search starts): the best reply
  that the latest completed job of that move found, the next job's ``root_pv``.
* **Re-search queue**: two entries suffice. A move is queued when a context takes a null-window
  result, and a context that is free takes the oldest queued move the next time it may start:
  each context adds at most one entry before the queue is drained by the contexts' next turns.

Interface (``root_split``):

    clk, rst:         clock; ResetSignal(0, active=1, isasync=False) (in).
    start:            Signal(bool) begin a search (in; the next clock with turn 0 is k = 0).
    root_black/white: Signal(intbv[64]) the root board (in; valid in the clock of start and
                      held while searching).
    root_white_to_move: Signal(bool) the root's side to move (in; as the root board).
    depth_limit:      Signal(intbv(min=0, max=17)) deepest iteration, 1..16 (in, start edge).
    budget:           Signal(intbv[32]) clocks: no job of iteration >= 2 is chosen to start
                      in a clock k + DISPATCH_LATENCY >= budget (in, start edge).
    done:             Signal(bool) the answer is ready (out; high until the next start).
    best_move, best_pass, value, depth: the deepest completed iteration's answer (out;
                      a pass at the root: pass, value 0, depth 0).
    nodes:            Signal(intbv[32]) nodes of every job taken, a child job's root included
                      (out).
    cycles:           Signal(intbv[32]) k_end + 1 (out).
    fault:            Signal(bool) the engine (either context) or the splitter's flipper found
                      a chosen move illegal (out; never set by a correct design).
    idle_move, idle_black, idle_white, idle_illegal: while not searching, the flipper plays
                      idle_move (in) on the root inputs for root_white_to_move; the result
                      (out), as the one-context engine's ``idle_*`` service.
    job_event:        Signal(intbv[2]) 1: a job starts, 2: a result is taken, 0: neither (out).
    job_context:      Signal(bool) the context (= the engine's turn) (out).
    job_kind:         Signal(intbv[2]) 0 ROOT, 1 PV, 2 NULL, 3 RESEARCH (out).
    job_move:         Signal(intbv[6]) the root move (0 for ROOT) (out).
    job_depth:        Signal(intbv(min=0, max=17)) the job's depth (out).
    job_alpha, job_beta: Signal(intbv(min=-256, max=256)) the window given to the engine,
                      -256 for minus infinity (alpha) and plus infinity (beta) (out).
    job_value:        Signal(intbv(min=-256, max=256)) on a result: the engine's value (out).
    job_nodes:        Signal(intbv[32]) on a result: the engine's node count (out).
    job_signature:    Signal(intbv[64]) on a result: the fold of the job's node events (out).
    trace_signature:  Signal(intbv[64]) the job signatures folded (rotate left, XOR) in the
                      order their results are taken; cleared when a search starts (out).
    Every job_* port but job_event is 0 in a clock without a job event.

The engine's ``cycles`` output is left unread: the splitter counts its own clocks.
"""

from myhdl import Signal, always, always_comb, always_seq, block, concat, enum, intbv

from rtl.disc_flipper import disc_flipper
from rtl.move_checker import move_checker
from rtl.node_order import node_order
from rtl.search import LEVELS, MINUS_INFINITY, SQUARES, search, value_signal

KIND_ROOT, KIND_PV, KIND_NULL, KIND_RESEARCH = 0, 1, 2, 3
EVENT_NONE, EVENT_START, EVENT_RESULT = 0, 1, 2
DISPATCH_LATENCY = 2      # a job chosen in clock k starts in clock k + 2, its context's next


def depth_signal(value=0):
    """A depth 0..16."""
    return Signal(intbv(value, min=0, max=LEVELS + 1))


@block
def root_split(clk, rst, start, root_black, root_white, root_white_to_move, depth_limit, budget,
               done, best_move, best_pass, value, depth, nodes, cycles, fault,
               idle_move, idle_black, idle_white, idle_illegal,
               job_event, job_context, job_kind, job_move, job_depth, job_alpha, job_beta,
               job_value, job_nodes, job_signature, trace_signature):
    """The root splitter (see the module docstring for the ports)."""
    phase_t = enum("IDLE", "ALIGN", "RUN", "FINISHED")
    phase = Signal(phase_t.IDLE)

    # --- the engine, two contexts in single-iteration mode ----------------------------
    turn = Signal(bool(0))
    other = Signal(bool(0))
    e_start = Signal(bool(0))
    e_black = Signal(intbv(0)[SQUARES:])
    e_white = Signal(intbv(0)[SQUARES:])
    e_side = Signal(bool(0))
    e_depth_limit = depth_signal()
    e_budget = Signal(intbv(0)[32:])
    e_alpha = value_signal()
    e_beta = value_signal()
    e_pv = Signal(intbv(0)[6:])
    e_pv_valid = Signal(bool(0))
    e_done = Signal(bool(0))
    e_best = Signal(intbv(0)[6:])
    e_pass = Signal(bool(0))
    e_value = value_signal()
    e_depth = depth_signal()
    e_nodes = Signal(intbv(0)[32:])
    e_cycles = Signal(intbv(0)[32:])
    e_fault = Signal(bool(0))
    ev_node = Signal(bool(0))
    ev_kind = Signal(intbv(0)[2:])
    ev_ply = depth_signal()
    ev_black = Signal(intbv(0)[SQUARES:])
    ev_white = Signal(intbv(0)[SQUARES:])
    ev_wtm = Signal(bool(0))
    ev_legal = Signal(intbv(0)[SQUARES:])
    ev_stable_own = Signal(intbv(0, min=0, max=65))
    ev_stable_opp = Signal(intbv(0, min=0, max=65))
    ev_value = value_signal()
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
    ev_fixed = value_signal()
    ev_adaptive = value_signal()
    engine = search(clk, rst, e_start, e_black, e_white, e_side, e_depth_limit, e_budget,
                    e_alpha, e_beta, e_done, e_best, e_pass, e_value, e_depth, e_nodes, e_cycles,
                    ev_node, ev_kind, ev_ply, ev_black, ev_white, ev_wtm, ev_legal,
                    ev_stable_own, ev_stable_opp, ev_value, ev_terminal, ev_stage,
                    ev_corners_own, ev_corners_opp, ev_xsq_own, ev_xsq_opp, ev_mobility_own,
                    ev_mobility_opp, ev_discs_own, ev_discs_opp, ev_fixed, ev_adaptive, e_fault,
                    contexts=2, turn=turn, root_pv=e_pv, root_pv_valid=e_pv_valid)

    # --- the root: legal moves, order, the child of a move ----------------------------
    root_own = Signal(intbv(0)[SQUARES:])
    root_opp = Signal(intbv(0)[SQUARES:])
    root_legal = Signal(intbv(0)[SQUARES:])
    root_legal_reg = Signal(intbv(0)[SQUARES:])
    order_first = Signal(bool(0))
    order_found = Signal(bool(0))
    order_move = Signal(intbv(0)[6:])
    flip_move = Signal(intbv(0)[6:])
    child_black = Signal(intbv(0)[SQUARES:])
    child_white = Signal(intbv(0)[SQUARES:])
    child_illegal = Signal(bool(0))
    iteration_deep = Signal(bool(0))  # iteration >= 2: m0 is the previous iteration's best move

    # --- registers ----------------------------------------------------------------------
    k = Signal(intbv(0)[32:])
    budget_reg = Signal(intbv(0)[32:])
    deadline = Signal(intbv(0)[32:])    # budget - DISPATCH_LATENCY, at least 0
    limit = depth_signal()
    iteration = depth_signal()
    first_started = Signal(bool(0))
    first_taken = Signal(bool(0))
    abandoned = Signal(bool(0))
    last_move = Signal(intbv(0)[6:])
    alpha = value_signal()
    best = Signal(intbv(0)[6:])
    queue_head = Signal(intbv(0)[6:])
    queue_tail = Signal(intbv(0)[6:])
    queued = Signal(intbv(0, min=0, max=3))
    busy = Signal(intbv(0)[2:])                          # per context: a job runs
    waiting = Signal(intbv(0)[2:])                       # per context: a job chosen, not started
    chosen_kind = Signal(intbv(0)[2:])                   # dispatch stage 1: the last clock's choice
    chosen_move = Signal(intbv(0)[6:])
    ready_kind = Signal(intbv(0)[2:])                    # dispatch stage 2: its child, to start
    ready_move = Signal(intbv(0)[6:])
    ready_black = Signal(intbv(0)[SQUARES:])
    ready_white = Signal(intbv(0)[SQUARES:])
    ready_side = Signal(bool(0))
    ready_illegal = Signal(bool(0))
    ready_pv = Signal(intbv(0)[6:])
    ready_pv_valid = Signal(bool(0))
    ctx_kind = [Signal(intbv(0)[2:]) for _ in range(2)]
    ctx_move = [Signal(intbv(0)[6:]) for _ in range(2)]
    ctx_depth = [depth_signal() for _ in range(2)]
    ctx_alpha = [value_signal() for _ in range(2)]       # the window given to the engine
    ctx_beta = [value_signal() for _ in range(2)]
    ctx_root_alpha = [value_signal() for _ in range(2)]  # the root's alpha when it started
    ctx_signature = [Signal(intbv(0)[SQUARES:]) for _ in range(2)]
    reply = [Signal(intbv(0)[6:]) for _ in range(SQUARES)]
    reply_valid = Signal(intbv(0)[SQUARES:])
    node_sum = Signal(intbv(0)[32:])
    signature = Signal(intbv(0)[SQUARES:])
    answer_move = Signal(intbv(0)[6:])
    answer_pass = Signal(bool(0))
    answer_value = value_signal()
    answer_depth = depth_signal()

    # --- this clock's decisions (combinational) ---------------------------------------
    searching = Signal(bool(0))
    active = Signal(bool(0))          # a clock k of the search
    cur_busy = Signal(bool(0))
    other_busy = Signal(bool(0))
    cur_waiting = Signal(bool(0))
    other_waiting = Signal(bool(0))
    cur_kind = Signal(intbv(0)[2:])
    cur_move = Signal(intbv(0)[6:])
    cur_depth = depth_signal()
    cur_alpha = value_signal()
    cur_beta = value_signal()
    cur_root_alpha = value_signal()
    cur_signature = Signal(intbv(0)[SQUARES:])
    want = Signal(bool(0))            # a job is available for a free context
    want_kind = Signal(intbv(0)[2:])
    want_move = Signal(intbv(0)[6:])
    over_budget = Signal(bool(0))
    budget_left = Signal(intbv(0)[32:])
    take = Signal(bool(0))            # step 1: the result is taken
    take_ok = Signal(bool(0))         # ... and it completed its depth
    launch = Signal(bool(0))          # step 2: the job chosen two clocks before starts
    choose = Signal(bool(0))          # step 3: a job is chosen
    give_up = Signal(bool(0))         # step 3: a job would start out of budget
    neg_alpha = value_signal()
    null_alpha = value_signal()
    neg_value = value_signal()
    alpha_after = value_signal()
    best_after = Signal(intbv(0)[6:])
    first_taken_after = Signal(bool(0))
    push = Signal(bool(0))
    running_after = Signal(bool(0))
    abandoned_after = Signal(bool(0))
    complete_after = Signal(bool(0))
    no_move = Signal(bool(0))
    event_word_a = Signal(intbv(0)[SQUARES:])
    event_word_b = Signal(intbv(0)[SQUARES:])
    event_word_c = Signal(intbv(0)[SQUARES:])

    cells = [
        move_checker(root_own, root_opp, root_legal),
        node_order(root_legal_reg, iteration_deep, answer_move, order_first, last_move, order_found,
                   order_move),
        disc_flipper(root_black, root_white, root_white_to_move, flip_move, child_black,
                     child_white, child_illegal),
    ]

    @always_comb
    def root_sides():
        if root_white_to_move:
            root_own.next = root_white
            root_opp.next = root_black
        else:
            root_own.next = root_black
            root_opp.next = root_white

    @always_comb
    def context_view():
        other.next = not turn
        searching.next = phase == phase_t.ALIGN or phase == phase_t.RUN
        active.next = phase == phase_t.RUN or (phase == phase_t.ALIGN and not turn)
        cur_busy.next = busy[int(turn)]
        other_busy.next = busy[int(other)]
        cur_waiting.next = waiting[int(turn)]
        other_waiting.next = waiting[int(other)]
        cur_kind.next = ctx_kind[int(turn)]
        cur_move.next = ctx_move[int(turn)]
        cur_depth.next = ctx_depth[int(turn)]
        cur_alpha.next = ctx_alpha[int(turn)]
        cur_beta.next = ctx_beta[int(turn)]
        cur_root_alpha.next = ctx_root_alpha[int(turn)]
        cur_signature.next = ctx_signature[int(turn)]

    @always_comb
    def availability():
        # the first available job: the iteration's first, the oldest re-search, the next move
        order_first.next = not first_started
        iteration_deep.next = iteration != 1
        no_move.next = root_legal_reg == 0
        want.next = 0
        want_kind.next = KIND_NULL
        want_move.next = order_move
        if not first_started:
            want.next = 1
            if iteration == 1:
                want_kind.next = KIND_ROOT
                want_move.next = 0
            else:
                want_kind.next = KIND_PV
        elif queued != 0:
            want.next = 1
            want_kind.next = KIND_RESEARCH
            want_move.next = queue_head
        elif first_taken and iteration != 1 and order_found:
            want.next = 1

    @always_comb
    def budget_check():
        over_budget.next = iteration != 1 and k >= deadline
        if k < budget_reg:
            budget_left.next = budget_reg - k
        else:
            budget_left.next = 0

    @always_comb
    def steps():
        take.next = active and cur_busy and e_done
        take_ok.next = active and cur_busy and e_done and e_depth >= cur_depth
        launch.next = active and cur_waiting and not abandoned
        choose.next = (active and not cur_busy and not cur_waiting and not abandoned
                       and not no_move and want and not over_budget)
        give_up.next = (active and not cur_busy and not cur_waiting and not abandoned
                        and not no_move and want and over_budget)

    @always_comb
    def windows():
        neg_alpha.next = -alpha
        null_alpha.next = ~alpha            # -alpha - 1
        neg_value.next = -e_value

    @always_comb
    def result_fold():
        # the result applied to the iteration (step 1)
        alpha_after.next = alpha
        best_after.next = best
        first_taken_after.next = first_taken
        push.next = 0
        if take_ok:
            if cur_kind == KIND_ROOT:
                alpha_after.next = e_value
                best_after.next = e_best
                first_taken_after.next = 1
            elif cur_kind == KIND_PV:
                alpha_after.next = neg_value
                best_after.next = cur_move
                first_taken_after.next = 1
            elif cur_kind == KIND_NULL:
                if neg_value > cur_root_alpha:
                    push.next = 1
            elif neg_value > alpha:
                alpha_after.next = neg_value
                best_after.next = cur_move

    @always_comb
    def iteration_end():
        # step 4, on the state after steps 1 to 3: a chosen job counts as running
        running_after.next = (other_busy or other_waiting or (cur_busy and not take) or launch
                              or choose)
        abandoned_after.next = abandoned or give_up or (take and not take_ok)
        complete_after.next = (first_taken_after and queued == 0 and not push
                               and not (iteration != 1 and order_found))

    @always(clk.posedge)
    def dispatch():
        # no reset: a context's ready_* are read only two clocks after it chose, and those
        # two clocks write them
        root_legal_reg.next = root_legal
        chosen_kind.next = want_kind
        chosen_move.next = want_move
        ready_kind.next = chosen_kind
        ready_move.next = chosen_move
        ready_pv.next = reply[int(chosen_move)]
        if chosen_kind == KIND_ROOT:
            ready_black.next = root_black
            ready_white.next = root_white
            ready_side.next = root_white_to_move
            ready_illegal.next = 0
            ready_pv_valid.next = 0
        else:
            ready_black.next = child_black
            ready_white.next = child_white
            ready_side.next = not root_white_to_move
            ready_illegal.next = child_illegal
            ready_pv_valid.next = reply_valid[int(chosen_move)]

    @always_comb
    def engine_inputs():
        e_start.next = launch
        if searching:
            flip_move.next = chosen_move
        else:
            flip_move.next = idle_move
        e_black.next = ready_black
        e_white.next = ready_white
        e_side.next = ready_side
        if ready_kind == KIND_ROOT:
            e_depth_limit.next = 1
        else:
            e_depth_limit.next = iteration - 1
        e_pv.next = ready_pv
        e_pv_valid.next = ready_pv_valid
        e_budget.next = concat(intbv(0)[1:], budget_left[32:1])    # (budget - k) >> 1
        if ready_kind == KIND_NULL:
            e_alpha.next = null_alpha
            e_beta.next = neg_alpha
        elif ready_kind == KIND_RESEARCH:
            e_alpha.next = MINUS_INFINITY
            e_beta.next = neg_alpha
        else:
            e_alpha.next = MINUS_INFINITY
            e_beta.next = MINUS_INFINITY

    @always_comb
    def idle_outputs():
        idle_black.next = child_black
        idle_white.next = child_white
        idle_illegal.next = child_illegal

    @always_comb
    def event_words():
        # a node event folded into 64-bit words, as the one-context processor's trace_words
        event_word_a.next = ev_black ^ ev_white ^ ev_legal
        event_word_b.next = concat(intbv(0)[18:], ev_kind, ev_ply[5:], ev_wtm, ev_stable_own[7:],
                                   ev_stable_opp[7:], ev_value[9:], ev_terminal, ev_stage,
                                   ev_corners_own[3:], ev_corners_opp[3:], ev_xsq_own[3:],
                                   ev_xsq_opp[3:])
        event_word_c.next = concat(intbv(0)[18:], ev_mobility_own[7:], ev_mobility_opp[7:],
                                   ev_discs_own[7:], ev_discs_opp[7:], ev_fixed[9:],
                                   ev_adaptive[9:])

    @always(clk.posedge)
    def context_memories():
        # no reset: every entry is written when its job starts, before it is read
        if launch:
            ctx_kind[int(turn)].next = ready_kind
            ctx_move[int(turn)].next = ready_move
            ctx_depth[int(turn)].next = e_depth_limit
            ctx_alpha[int(turn)].next = e_alpha
            ctx_beta[int(turn)].next = e_beta
            ctx_root_alpha[int(turn)].next = alpha
            ctx_signature[int(turn)].next = 0
        elif ev_node:
            ctx_signature[int(turn)].next = (concat(cur_signature[SQUARES - 1:],
                                                    cur_signature[SQUARES - 1])
                                             ^ event_word_a ^ event_word_b ^ event_word_c)
        if take_ok and cur_kind != KIND_ROOT:
            reply[int(cur_move)].next = e_best

    @always_seq(clk.posedge, reset=rst)
    def control():
        if start:
            phase.next = phase_t.ALIGN
            k.next = 0
            budget_reg.next = budget
            if budget >= DISPATCH_LATENCY:
                deadline.next = budget - DISPATCH_LATENCY
            else:
                deadline.next = 0
            limit.next = depth_limit
            iteration.next = 1
            first_started.next = 0
            first_taken.next = 0
            abandoned.next = 0
            last_move.next = 0
            alpha.next = MINUS_INFINITY
            best.next = 0
            queued.next = 0
            busy.next = 0
            waiting.next = 0
            reply_valid.next = 0
            node_sum.next = 0
            signature.next = 0
            answer_move.next = 0
            answer_pass.next = 0
            answer_value.next = 0
            answer_depth.next = 0
        elif active:
            phase.next = phase_t.RUN
            k.next = k + 1
            if no_move:
                # a pass or a finished game at the root: answered in clock 0
                answer_pass.next = 1
                phase.next = phase_t.FINISHED
            else:
                alpha.next = alpha_after
                best.next = best_after
                first_taken.next = first_taken_after
                abandoned.next = abandoned_after
                if take:
                    busy.next[int(turn)] = 0
                    if cur_kind == KIND_ROOT:
                        node_sum.next = node_sum + e_nodes
                    else:   # a child job's root is a generated node
                        node_sum.next = node_sum + e_nodes + 1
                    signature.next = (concat(signature[SQUARES - 1:], signature[SQUARES - 1])
                                      ^ cur_signature)
                    if take_ok and cur_kind != KIND_ROOT:
                        reply_valid.next[int(cur_move)] = not e_pass
                    if push:
                        if queued == 0:
                            queue_head.next = cur_move
                        else:
                            queue_tail.next = cur_move
                        queued.next = queued + 1
                if cur_waiting:
                    # started, or dropped when the iteration was abandoned meanwhile
                    waiting.next[int(turn)] = 0
                if launch:
                    busy.next[int(turn)] = 1
                if choose:
                    waiting.next[int(turn)] = 1
                    if want_kind == KIND_ROOT or want_kind == KIND_PV:
                        first_started.next = 1
                    if want_kind == KIND_RESEARCH:
                        queue_head.next = queue_tail
                        queued.next = queued - 1
                    else:
                        last_move.next = want_move
                if not running_after:
                    if abandoned_after:
                        phase.next = phase_t.FINISHED
                    elif complete_after:
                        answer_move.next = best_after
                        answer_pass.next = 0
                        answer_value.next = alpha_after
                        answer_depth.next = iteration
                        if iteration == limit:
                            phase.next = phase_t.FINISHED
                        else:
                            iteration.next = iteration + 1
                            first_started.next = 0
                            first_taken.next = 0
                            alpha.next = MINUS_INFINITY

    @always_comb
    def answer_outputs():
        done.next = phase == phase_t.FINISHED
        best_move.next = answer_move
        best_pass.next = answer_pass
        value.next = answer_value
        depth.next = answer_depth
        nodes.next = node_sum
        cycles.next = k
        fault.next = e_fault or (launch and ready_illegal)
        trace_signature.next = signature

    @always_comb
    def job_port():
        job_event.next = EVENT_NONE
        job_context.next = 0
        job_kind.next = 0
        job_move.next = 0
        job_depth.next = 0
        job_alpha.next = 0
        job_beta.next = 0
        job_value.next = 0
        job_nodes.next = 0
        job_signature.next = 0
        if launch:
            job_event.next = EVENT_START
            job_context.next = turn
            job_kind.next = ready_kind
            job_move.next = ready_move
            job_depth.next = e_depth_limit
            job_alpha.next = e_alpha
            job_beta.next = e_beta
        elif take:
            job_event.next = EVENT_RESULT
            job_context.next = turn
            job_kind.next = cur_kind
            job_move.next = cur_move
            job_depth.next = cur_depth
            job_alpha.next = cur_alpha
            job_beta.next = cur_beta
            job_value.next = e_value
            job_nodes.next = e_nodes
            job_signature.next = cur_signature

    return (engine, cells, root_sides, context_view, availability, budget_check, steps, windows,
            result_fold, iteration_end, dispatch, engine_inputs, idle_outputs, event_words,
            context_memories, control, answer_outputs, job_port)
