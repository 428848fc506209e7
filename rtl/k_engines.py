"""The K-engine splitter (docs/k-engines.md): one search of a move on K engines of one context.

The root split of docs/root-split.md, generalised from the two contexts of one engine to K
engines, each the search engine (rtl/search.py) with one context in single-iteration mode,
instantiated unchanged. The contract, clock by clock, is docs/k-engines.md; its golden twin is
golden/root_split.py (``root_split(..., engines=K, contexts=1)``). Here it is a controller beside
the engines:

* **Clocks.** ``k`` counts clocks from the first clock after ``start``; clock ``k`` *serves*
  engine ``serve = k mod K``: it takes that engine's result when its ``done`` is visible, else
  starts the job it chose, else chooses its next job; then the iteration ends when no engine has
  a job running or chosen. The served engine's outputs reach the controller through a chain of
  ``served_cell`` multiplexers; its ``start`` is the launch strobe gated by ``serve``.
* **Root and dispatch.** As in the two-context splitter: a move checker gives the root's legal
  moves (registered), node ordering with the previous iteration's best move as PV gives the
  iteration's first move and the move after the last one handed out, and a disc flipper plays the
  job's move on the root. A job chosen in clock ``k`` (``chosen_*``) has its child flipped in
  ``k + 1`` and written into its engine's entry of the ready memories (``ready_*``), and starts in
  that engine's next clock, ``k + K`` (K >= 2, so at least ``k + DISPATCH_LATENCY``). While no
  search runs the flipper serves the processor (``idle_*``).
* **Per engine** (K-entry memories addressed by ``serve``): the job's kind, root move, depth, the
  window given to the engine, the root's alpha when it started; each engine folds its own node
  events into its job's signature (``node_event_fold``).
* **Per root move** (64 entries, valid bits cleared when a search starts): the best reply that
  the latest completed job of that move found, the next job's ``root_pv``.
* **Re-search queue**: K entries suffice. A move is queued when an engine's null-window result
  is taken (one a clock), and the queue's head leaves whenever a free engine is served; between
  two clocks of one engine at most K results are taken.

Interface (``k_splitter``): the two-context splitter's (rtl/root_split.py), with

    engines:          K, 2..MAX_ENGINES (elaboration time).
    budget:           Signal(intbv[32]) clocks: no job of iteration >= 2 is chosen that would
                      start in a clock >= budget; each engine's budget is budget - k at its
                      start (in, start edge).
    job_engine:       Signal(intbv(min=0, max=K)), Signal(bool) for K = 2: the engine of a job
                      event (out), in place of ``job_context``.
"""

from myhdl import Signal, always, always_comb, always_seq, block, concat, enum, intbv

from rtl.disc_flipper import disc_flipper
from rtl.move_checker import move_checker
from rtl.node_order import node_order
from rtl.root_split import EVENT_NONE, EVENT_RESULT, EVENT_START, KIND_NULL, KIND_PV, KIND_RESEARCH, KIND_ROOT, \
    depth_signal
from rtl.search import MINUS_INFINITY, SQUARES, search, value_signal

MAX_ENGINES = 16
QUEUE_BITS = 5            # the re-search queue's count, 0..MAX_ENGINES


def engine_signal(engines):
    """An engine number 0..K-1."""
    return Signal(intbv(0, min=0, max=engines))


@block
def node_event_fold(clk, rst, clear, node_event, event_kind, event_ply, event_black, event_white,
                    event_white_to_move, event_legal, event_stable_own, event_stable_opp, event_value,
                    event_terminal, event_stage, event_corners_own, event_corners_opp, event_xsq_own,
                    event_xsq_opp, event_mobility_own, event_mobility_opp, event_discs_own,
                    event_discs_opp, event_fixed, event_adaptive, signature):
    """The signature of an engine's node events since ``clear``: each event's fields in three
    64-bit words, XORed into the signature rotated left by one (as the two-context splitter's job
    signature). clear (in) wins over an event in the same clock; event ports: the engine's trace
    port (in); signature: Signal(intbv[64]) (out)."""
    word_a = Signal(intbv(0)[SQUARES:])
    word_b = Signal(intbv(0)[SQUARES:])
    word_c = Signal(intbv(0)[SQUARES:])

    @always_comb
    def words():
        word_a.next = event_black ^ event_white ^ event_legal
        word_b.next = concat(intbv(0)[18:], event_kind, event_ply[5:], event_white_to_move, event_stable_own[7:],
                             event_stable_opp[7:], event_value[9:], event_terminal, event_stage,
                             event_corners_own[3:], event_corners_opp[3:], event_xsq_own[3:], event_xsq_opp[3:])
        word_c.next = concat(intbv(0)[18:], event_mobility_own[7:], event_mobility_opp[7:],
                             event_discs_own[7:], event_discs_opp[7:], event_fixed[9:], event_adaptive[9:])

    @always_seq(clk.posedge, reset=rst)
    def fold():
        if clear:
            signature.next = 0
        elif node_event:
            signature.next = concat(signature[SQUARES - 1:], signature[SQUARES - 1]) ^ word_a ^ word_b ^ word_c

    return words, fold


@block
def engine_slot(clk, rst, start, root_black, root_white, root_white_to_move, depth_limit, budget,
                root_alpha, root_beta, root_pv, root_pv_valid, done, best_move, best_pass, value, depth,
                nodes, fault, signature):
    """One engine of the splitter: the search engine, one context, single-iteration mode, and the
    signature of its node events since its last start. Ports: the engine's (rtl/search.py) of the
    same names; signature: Signal(intbv[64]) (out)."""
    cycles = Signal(intbv(0)[32:])     # unread: the splitter counts its own clocks
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
    engine = search(clk, rst, start, root_black, root_white, root_white_to_move, depth_limit, budget,
                    root_alpha, root_beta, done, best_move, best_pass, value, depth, nodes, cycles,
                    ev_node, ev_kind, ev_ply, ev_black, ev_white, ev_wtm, ev_legal,
                    ev_stable_own, ev_stable_opp, ev_value, ev_terminal, ev_stage,
                    ev_corners_own, ev_corners_opp, ev_xsq_own, ev_xsq_opp, ev_mobility_own,
                    ev_mobility_opp, ev_discs_own, ev_discs_opp, ev_fixed, ev_adaptive, fault,
                    root_pv=root_pv, root_pv_valid=root_pv_valid)
    events = node_event_fold(clk, rst, start, ev_node, ev_kind, ev_ply, ev_black, ev_white, ev_wtm, ev_legal,
                             ev_stable_own, ev_stable_opp, ev_value, ev_terminal, ev_stage, ev_corners_own,
                             ev_corners_opp, ev_xsq_own, ev_xsq_opp, ev_mobility_own, ev_mobility_opp,
                             ev_discs_own, ev_discs_opp, ev_fixed, ev_adaptive, signature)
    return engine, events


@block
def launch_cell(launch, serve, index, start):
    """start = launch while engine ``index`` (elaboration time) is served (in: launch, serve)."""

    @always_comb
    def gate():
        start.next = launch and serve == index

    return gate


@block
def served_cell(serve, index, done_in, best_in, pass_in, value_in, depth_in, nodes_in, signature_in, fault_in,
                done_prev, best_prev, pass_prev, value_prev, depth_prev, nodes_prev, signature_prev, fault_prev,
                done_out, best_out, pass_out, value_out, depth_out, nodes_out, signature_out, fault_out):
    """One link of the chain that brings the served engine's outputs to the controller: engine
    ``index``'s (``*_in``) while it is served, else the chain's so far (``*_prev``); fault_out
    is every engine's fault so far, served or not."""

    @always_comb
    def select():
        fault_out.next = fault_in or fault_prev
        if serve == index:
            done_out.next = done_in
            best_out.next = best_in
            pass_out.next = pass_in
            value_out.next = value_in
            depth_out.next = depth_in
            nodes_out.next = nodes_in
            signature_out.next = signature_in
        else:
            done_out.next = done_prev
            best_out.next = best_prev
            pass_out.next = pass_prev
            value_out.next = value_prev
            depth_out.next = depth_prev
            nodes_out.next = nodes_prev
            signature_out.next = signature_prev

    return select


def engine_outputs():
    """The signals of one engine's outputs as the chain carries them."""
    return dict(done=Signal(bool(0)), best=Signal(intbv(0)[6:]), best_pass=Signal(bool(0)), value=value_signal(),
                depth=depth_signal(), nodes=Signal(intbv(0)[32:]), signature=Signal(intbv(0)[SQUARES:]),
                fault=Signal(bool(0)))


OUTPUT_NAMES = ("done", "best", "best_pass", "value", "depth", "nodes", "signature", "fault")


@block
def k_splitter(clk, rst, start, root_black, root_white, root_white_to_move, depth_limit, budget,
               done, best_move, best_pass, value, depth, nodes, cycles, fault,
               idle_move, idle_black, idle_white, idle_illegal,
               job_event, job_engine, job_kind, job_move, job_depth, job_alpha, job_beta,
               job_value, job_nodes, job_signature, trace_signature, engines=2):
    """The K-engine splitter (see the module docstring for the ports)."""
    if not isinstance(engines, int) or not 2 <= engines <= MAX_ENGINES:
        raise ValueError(f"engines must be 2..{MAX_ENGINES}, got {engines!r}")
    phase_t = enum("IDLE", "RUN", "FINISHED")
    phase = Signal(phase_t.IDLE)
    last_engine = engines - 1

    # --- the engines' shared inputs, and the served engine's outputs ------------------
    launch = Signal(bool(0))          # step 2: the served engine's chosen job starts
    serve = engine_signal(engines)
    e_black = Signal(intbv(0)[SQUARES:])
    e_white = Signal(intbv(0)[SQUARES:])
    e_side = Signal(bool(0))
    e_depth_limit = depth_signal()
    e_budget = Signal(intbv(0)[32:])
    e_alpha = value_signal()
    e_beta = value_signal()
    e_pv = Signal(intbv(0)[6:])
    e_pv_valid = Signal(bool(0))
    slots, gates, links = [], [], []
    chain = None                                  # engine 0's outputs, then each link's
    for index in range(engines):
        own = engine_outputs()
        engine_start = Signal(bool(0))
        gates.append(launch_cell(launch, serve, index, engine_start))
        slots.append(engine_slot(clk, rst, engine_start, e_black, e_white, e_side, e_depth_limit, e_budget,
                                 e_alpha, e_beta, e_pv, e_pv_valid, own["done"], own["best"], own["best_pass"],
                                 own["value"], own["depth"], own["nodes"], own["fault"], own["signature"]))
        if chain is None:
            chain = own
            continue
        after = engine_outputs()
        links.append(served_cell(serve, index, *(own[name] for name in OUTPUT_NAMES),
                                 *(chain[name] for name in OUTPUT_NAMES), *(after[name] for name in OUTPUT_NAMES)))
        chain = after
    e_done, e_best, e_pass, e_value = chain["done"], chain["best"], chain["best_pass"], chain["value"]
    e_depth, e_nodes, cur_signature, e_fault = chain["depth"], chain["nodes"], chain["signature"], chain["fault"]

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
    deadline = Signal(intbv(0)[32:])    # budget - K, at least 0: a job chosen at k >= deadline would start late
    limit = depth_signal()
    iteration = depth_signal()
    first_started = Signal(bool(0))
    first_taken = Signal(bool(0))
    abandoned = Signal(bool(0))
    last_move = Signal(intbv(0)[6:])
    alpha = value_signal()
    best = Signal(intbv(0)[6:])
    queue = [Signal(intbv(0)[6:]) for _ in range(engines)]   # re-search queue, a ring
    queue_head = engine_signal(engines)
    queue_tail = engine_signal(engines)
    queued = Signal(intbv(0, min=0, max=MAX_ENGINES + 1))
    busy = Signal(intbv(0)[engines:])                    # per engine: a job runs
    waiting = Signal(intbv(0)[engines:])                 # per engine: a job chosen, not started
    chosen_valid = Signal(bool(0))                       # dispatch stage 1: the last clock's choice
    chosen_kind = Signal(intbv(0)[2:])
    chosen_move = Signal(intbv(0)[6:])
    chosen_engine = engine_signal(engines)
    ready_kind = [Signal(intbv(0)[2:]) for _ in range(engines)]   # dispatch stage 2: the child, per engine
    ready_move = [Signal(intbv(0)[6:]) for _ in range(engines)]
    ready_black = [Signal(intbv(0)[SQUARES:]) for _ in range(engines)]
    ready_white = [Signal(intbv(0)[SQUARES:]) for _ in range(engines)]
    ready_side = [Signal(bool(0)) for _ in range(engines)]
    ready_illegal = [Signal(bool(0)) for _ in range(engines)]
    ready_pv = [Signal(intbv(0)[6:]) for _ in range(engines)]
    ready_pv_valid = [Signal(bool(0)) for _ in range(engines)]
    job_kinds = [Signal(intbv(0)[2:]) for _ in range(engines)]
    job_moves = [Signal(intbv(0)[6:]) for _ in range(engines)]
    job_depths = [depth_signal() for _ in range(engines)]
    job_alphas = [value_signal() for _ in range(engines)]      # the window given to the engine
    job_betas = [value_signal() for _ in range(engines)]
    job_root_alphas = [value_signal() for _ in range(engines)]  # the root's alpha when it started
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
    cur_waiting = Signal(bool(0))
    others_running = Signal(bool(0))  # another engine has a job running or chosen
    cur_kind = Signal(intbv(0)[2:])
    cur_move = Signal(intbv(0)[6:])
    cur_depth = depth_signal()
    cur_alpha = value_signal()
    cur_beta = value_signal()
    cur_root_alpha = value_signal()
    launch_kind = Signal(intbv(0)[2:])
    launch_move = Signal(intbv(0)[6:])
    launch_illegal = Signal(bool(0))
    queue_first = Signal(intbv(0)[6:])
    want = Signal(bool(0))            # a job is available for a free engine
    want_kind = Signal(intbv(0)[2:])
    want_move = Signal(intbv(0)[6:])
    over_budget = Signal(bool(0))
    budget_left = Signal(intbv(0)[32:])
    take = Signal(bool(0))            # step 1: the result is taken
    take_ok = Signal(bool(0))         # ... and it completed its depth
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
    def engine_view():
        searching.next = phase == phase_t.RUN
        active.next = phase == phase_t.RUN
        cur_busy.next = busy[int(serve)]
        cur_waiting.next = waiting[int(serve)]
        cur_kind.next = job_kinds[int(serve)]
        cur_move.next = job_moves[int(serve)]
        cur_depth.next = job_depths[int(serve)]
        cur_alpha.next = job_alphas[int(serve)]
        cur_beta.next = job_betas[int(serve)]
        cur_root_alpha.next = job_root_alphas[int(serve)]
        launch_kind.next = ready_kind[int(serve)]
        launch_move.next = ready_move[int(serve)]
        launch_illegal.next = ready_illegal[int(serve)]
        queue_first.next = queue[int(queue_head)]

    @always_comb
    def other_engines():
        mine = intbv(0)[engines:]
        mine[:] = 0
        mine[int(serve)] = 1
        others_running.next = ((busy | waiting) & ~mine) != 0

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
            want_move.next = queue_first
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
        running_after.next = others_running or (cur_busy and not take) or launch or choose
        abandoned_after.next = abandoned or give_up or (take and not take_ok)
        complete_after.next = (first_taken_after and queued == 0 and not push
                               and not (iteration != 1 and order_found))

    @always(clk.posedge)
    def dispatch():
        # no reset: an engine's ready_* entry is read only in its clock after its choice, and
        # the clock after the choice writes it
        root_legal_reg.next = root_legal
        chosen_valid.next = choose
        chosen_kind.next = want_kind
        chosen_move.next = want_move
        chosen_engine.next = serve
        if chosen_valid:
            ready_kind[int(chosen_engine)].next = chosen_kind
            ready_move[int(chosen_engine)].next = chosen_move
            ready_pv[int(chosen_engine)].next = reply[int(chosen_move)]
            if chosen_kind == KIND_ROOT:
                ready_black[int(chosen_engine)].next = root_black
                ready_white[int(chosen_engine)].next = root_white
                ready_side[int(chosen_engine)].next = root_white_to_move
                ready_illegal[int(chosen_engine)].next = 0
                ready_pv_valid[int(chosen_engine)].next = 0
            else:
                ready_black[int(chosen_engine)].next = child_black
                ready_white[int(chosen_engine)].next = child_white
                ready_side[int(chosen_engine)].next = not root_white_to_move
                ready_illegal[int(chosen_engine)].next = child_illegal
                ready_pv_valid[int(chosen_engine)].next = reply_valid[int(chosen_move)]

    @always_comb
    def engine_inputs():
        if searching:
            flip_move.next = chosen_move
        else:
            flip_move.next = idle_move
        e_black.next = ready_black[int(serve)]
        e_white.next = ready_white[int(serve)]
        e_side.next = ready_side[int(serve)]
        if launch_kind == KIND_ROOT:
            e_depth_limit.next = 1
        else:
            e_depth_limit.next = iteration - 1
        e_pv.next = ready_pv[int(serve)]
        e_pv_valid.next = ready_pv_valid[int(serve)]
        e_budget.next = budget_left
        if launch_kind == KIND_NULL:
            e_alpha.next = null_alpha
            e_beta.next = neg_alpha
        elif launch_kind == KIND_RESEARCH:
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

    @always(clk.posedge)
    def engine_memories():
        # no reset: every entry is written when its job starts, before it is read
        if launch:
            job_kinds[int(serve)].next = launch_kind
            job_moves[int(serve)].next = launch_move
            job_depths[int(serve)].next = e_depth_limit
            job_alphas[int(serve)].next = e_alpha
            job_betas[int(serve)].next = e_beta
            job_root_alphas[int(serve)].next = alpha
        if take_ok and cur_kind != KIND_ROOT:
            reply[int(cur_move)].next = e_best
        if push:
            queue[int(queue_tail)].next = cur_move

    @always_seq(clk.posedge, reset=rst)
    def control():
        if start:
            phase.next = phase_t.RUN
            k.next = 0
            serve.next = 0
            budget_reg.next = budget
            if budget >= engines:
                deadline.next = budget - engines
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
            queue_head.next = 0
            queue_tail.next = 0
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
            k.next = k + 1
            if serve == last_engine:
                serve.next = 0
            else:
                serve.next = serve + 1
            if no_move:
                # a pass or a finished game at the root: answered in clock 0
                answer_pass.next = 1
                phase.next = phase_t.FINISHED
            else:
                alpha.next = alpha_after
                best.next = best_after
                first_taken.next = first_taken_after
                abandoned.next = abandoned_after
                queued_next = intbv(0, min=0, max=MAX_ENGINES + 1)
                queued_next[:] = queued
                if take:
                    busy.next[int(serve)] = 0
                    if cur_kind == KIND_ROOT:
                        node_sum.next = node_sum + e_nodes
                    else:   # a child job's root is a generated node
                        node_sum.next = node_sum + e_nodes + 1
                    signature.next = (concat(signature[SQUARES - 1:], signature[SQUARES - 1])
                                      ^ cur_signature)
                    if take_ok and cur_kind != KIND_ROOT:
                        reply_valid.next[int(cur_move)] = not e_pass
                    if push:
                        queued_next[:] = queued_next + 1
                        if queue_tail == last_engine:
                            queue_tail.next = 0
                        else:
                            queue_tail.next = queue_tail + 1
                if cur_waiting:
                    # started, or dropped when the iteration was abandoned meanwhile
                    waiting.next[int(serve)] = 0
                if launch:
                    busy.next[int(serve)] = 1
                if choose:
                    waiting.next[int(serve)] = 1
                    if want_kind == KIND_ROOT or want_kind == KIND_PV:
                        first_started.next = 1
                    if want_kind == KIND_RESEARCH:
                        queued_next[:] = queued_next - 1
                        if queue_head == last_engine:
                            queue_head.next = 0
                        else:
                            queue_head.next = queue_head + 1
                    else:
                        last_move.next = want_move
                queued.next = queued_next
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
        fault.next = e_fault or (launch and launch_illegal)
        trace_signature.next = signature

    @always_comb
    def job_port():
        job_event.next = EVENT_NONE
        job_engine.next = 0
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
            job_engine.next = serve
            job_kind.next = launch_kind
            job_move.next = launch_move
            job_depth.next = e_depth_limit
            job_alpha.next = e_alpha
            job_beta.next = e_beta
        elif take:
            job_event.next = EVENT_RESULT
            job_engine.next = serve
            job_kind.next = cur_kind
            job_move.next = cur_move
            job_depth.next = cur_depth
            job_alpha.next = cur_alpha
            job_beta.next = cur_beta
            job_value.next = e_value
            job_nodes.next = e_nodes
            job_signature.next = cur_signature

    return (slots, gates, links, cells, root_sides, engine_view, other_engines, availability, budget_check, steps,
            windows, result_fold, iteration_end, dispatch, engine_inputs, idle_outputs, engine_memories, control,
            answer_outputs, job_port)
