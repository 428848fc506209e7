"""The repetition detector (docs/spec-chess.md §6).

Storage: the last 32 plies (from, to, piece code, irrev), kept by age (age 1 = the newest): a
push shifts every entry one age older (the oldest is lost), a pop one age younger. That is the
circular buffer of docs/spec-chess.md §6 addressed by age, so the CAM below has fixed wiring.

For every k = 1..32 the detector keeps four counters about P(n-k), the position k plies back:
D_k (pieces now on a square whose code differs in P(n-k)), the sum of those squares (now), the
sum of the squares those pieces came from (then), and how many of them are black. When
D_k = 1 the two sums are the displaced piece's square now and then (the near candidate).

A push of piece p from f to t makes the counters of k+1 from those of k (docs/spec-chess.md §6):
D += [P[t] != p] - [P[f] != p], where P(n-k)[q] comes from a CAM chain over ages 1..k: the
oldest move among them that touches q (its piece if it leaves q, empty if it lands on q), or the
position now if none (p on f, t empty). A pop undoes the same update with the popped entry and
the entries left. Captures, castling and pawn moves are irreversible: counters behind them are
never shown (the window W stops there), only kept exact for the pops that bring them back.

Outputs are combinational from the registers: valid one cycle after a command (``rd_valid``).
"""

from myhdl import ConcatSignal, Signal, always_comb, always_seq, block, intbv

DEPTH = 32
NEAR_DEPTH = 31
OUTSIDE = 63


@block
def entry_cell(clk, rst, rd_init, rd_push, rd_pop, new_from, new_to, new_piece, new_irrev,
               younger_from, younger_to, younger_piece, younger_irrev,
               older_from, older_to, older_piece, older_irrev, from_sq, to_sq, piece, irrev):
    """One age of the buffer: a push takes the younger entry (or the new move), a pop the older."""

    @always_seq(clk.posedge, reset=rst)
    def shift():
        if rd_init:
            from_sq.next = 0
            to_sq.next = 0
            piece.next = 0
            irrev.next = 0
        elif rd_push:
            from_sq.next = younger_from
            to_sq.next = younger_to
            piece.next = younger_piece
            irrev.next = younger_irrev
        elif rd_pop:
            from_sq.next = older_from
            to_sq.next = older_to
            piece.next = older_piece
            irrev.next = older_irrev

    return shift


@block
def cam_cell(ref_from, ref_to, ref_piece, move_from, move_to, from_before, to_before, from_then, to_then):
    """P(n-k)[f] and P(n-k)[t] from P(n-k+1)'s: the entry of age k decides if it touches the square."""

    @always_comb
    def look_up():
        if ref_from == move_from:
            from_then.next = ref_piece
        elif ref_to == move_from:
            from_then.next = 0
        else:
            from_then.next = from_before
        if ref_from == move_to:
            to_then.next = ref_piece
        elif ref_to == move_to:
            to_then.next = 0
        else:
            to_then.next = to_before

    return look_up


@block
def count_cell(from_then, to_then, move_piece, move_from, move_to, d, now_sum, then_sum, black,
               new_d, new_now, new_then, new_black, undo):
    """One ply's change of the counters: push (``undo`` False) gives those of k+1 from those
    of k, pop (``undo`` True) those of k from those of k+1. Sums are modulo 64 without negative
    intermediates: minus x is plus (64 - x)."""
    if not undo:
        @always_comb
        def push_update():
            lands = to_then != move_piece  # the piece now on t is displaced
            leaves = from_then != move_piece  # the piece on f was displaced
            d_sum = intbv(0)[8:]
            now = intbv(0)[8:]
            then_acc = intbv(0)[8:]
            blk = intbv(0)[8:]
            d_sum[:] = d
            now[:] = now_sum
            then_acc[:] = then_sum
            blk[:] = black
            if lands:
                d_sum[:] = d_sum + 1
                now[:] = now + move_to
                if move_piece[3]:
                    blk[:] = blk + 1
            else:
                then_acc[:] = then_acc + 64 - move_to
            if leaves:
                d_sum[:] = d_sum + 63
                now[:] = now + 64 - move_from
                if move_piece[3]:
                    blk[:] = blk + 63
            else:
                then_acc[:] = then_acc + move_from
            new_d.next = d_sum[6:]
            new_now.next = now[6:]
            new_then.next = then_acc[6:]
            new_black.next = blk[6:]

        return push_update

    @always_comb
    def pop_update():
        lands = to_then != move_piece
        leaves = from_then != move_piece
        d_sum = intbv(0)[8:]
        now = intbv(0)[8:]
        then_acc = intbv(0)[8:]
        blk = intbv(0)[8:]
        d_sum[:] = d
        now[:] = now_sum
        then_acc[:] = then_sum
        blk[:] = black
        if lands:
            d_sum[:] = d_sum + 63
            now[:] = now + 64 - move_to
            if move_piece[3]:
                blk[:] = blk + 63
        else:
            then_acc[:] = then_acc + move_to
        if leaves:
            d_sum[:] = d_sum + 1
            now[:] = now + move_from
            if move_piece[3]:
                blk[:] = blk + 1
        else:
            then_acc[:] = then_acc + 64 - move_from
        new_d.next = d_sum[6:]
        new_now.next = now[6:]
        new_then.next = then_acc[6:]
        new_black.next = blk[6:]

    return pop_update


@block
def reference_cell(rd_pop, from_k, to_k, piece_k, from_older, to_older, piece_older, ref_from, ref_to, ref_piece):
    """The entry the CAM's stage k looks at: age k for a push, age k+1 for a pop."""

    @always_comb
    def choose():
        if rd_pop:
            ref_from.next = from_older
            ref_to.next = to_older
            ref_piece.next = piece_older
        else:
            ref_from.next = from_k
            ref_to.next = to_k
            ref_piece.next = piece_k

    return choose


@block
def counter_cell(clk, rst, rd_init, rd_push, rd_pop, push_d, push_now, push_then, push_black,
                 pop_d, pop_now, pop_then, pop_black, d, now_sum, then_sum, black):
    """The counters of one k."""

    @always_seq(clk.posedge, reset=rst)
    def keep():
        if rd_init:
            d.next = 0
            now_sum.next = 0
            then_sum.next = 0
            black.next = 0
        elif rd_push:
            d.next = push_d
            now_sum.next = push_now
            then_sum.next = push_then
            black.next = push_black
        elif rd_pop:
            d.next = pop_d
            now_sum.next = pop_now
            then_sum.next = pop_then
            black.next = pop_black

    return keep


@block
def window_cell(k, count, irrev, inside_before, inside):
    """k is in the window: k entries stored, none of ages 1..k irreversible."""

    @always_comb
    def extend():
        inside.next = inside_before and count >= k and not irrev

    return extend


@block
def chess_repetition(clk, rst, rd_init, rd_push, rd_pop, rd_wtm, rd_from, rd_to, rd_piece, rd_irrev,
                     rd_dbg_k, rd_valid, rep, rep_dist, near, near_from, near_to, rd_dbg_d):
    """clk, rst (synchronous, active high); rd_init (with rd_wtm), rd_push (rd_from, rd_to,
    rd_piece, rd_irrev), rd_pop: one-cycle commands; rd_dbg_k: which D_k rd_dbg_d shows (63
    outside the window). rd_valid: pulse, the outputs show the command's result."""
    names = ("d", "now", "then", "black")
    fields = {(name, a): Signal(intbv(0)[width:]) for a in range(1, DEPTH + 1)
              for name, width in (("from", 6), ("to", 6), ("piece", 4))}
    irrevs = {a: Signal(bool(0)) for a in range(1, DEPTH + 1)}
    zero6, zero4, zero_bit = Signal(intbv(0)[6:]), Signal(intbv(0)[4:]), Signal(bool(0))
    count = Signal(intbv(0, min=0, max=DEPTH + 1))
    wtm = Signal(bool(0))
    cells = []
    for a in range(1, DEPTH + 1):
        younger = (rd_from, rd_to, rd_piece, rd_irrev) if a == 1 else (
            fields[("from", a - 1)], fields[("to", a - 1)], fields[("piece", a - 1)], irrevs[a - 1])
        older = (zero6, zero6, zero4, zero_bit) if a == DEPTH else (
            fields[("from", a + 1)], fields[("to", a + 1)], fields[("piece", a + 1)], irrevs[a + 1])
        cells.append(entry_cell(clk, rst, rd_init, rd_push, rd_pop, rd_from, rd_to, rd_piece, rd_irrev,
                                *younger, *older, fields[("from", a)], fields[("to", a)], fields[("piece", a)],
                                irrevs[a]))

    # The move: the one pushed, or the popped newest entry.
    move_from = Signal(intbv(0)[6:])
    move_to = Signal(intbv(0)[6:])
    move_piece = Signal(intbv(0)[4:])
    newest_from, newest_to, newest_piece = fields[("from", 1)], fields[("to", 1)], fields[("piece", 1)]

    # The CAM chain: P(n-k)[f] and P(n-k)[t] for k = 0..31 (k = 0: the position now).
    from_then = {k: Signal(intbv(0)[4:]) for k in range(DEPTH)}
    to_then = {k: Signal(intbv(0)[4:]) for k in range(DEPTH)}
    from_now, to_now = from_then[0], to_then[0]
    for k in range(1, DEPTH):
        refs = (Signal(intbv(0)[6:]), Signal(intbv(0)[6:]), Signal(intbv(0)[4:]))
        cells.append(reference_cell(rd_pop, fields[("from", k)], fields[("to", k)], fields[("piece", k)],
                                    fields[("from", k + 1)], fields[("to", k + 1)], fields[("piece", k + 1)],
                                    *refs))
        cells.append(cam_cell(*refs, move_from, move_to, from_then[k - 1], to_then[k - 1],
                              from_then[k], to_then[k]))

    # Counters of k = 1..32 (k = 0: all zero), their pushed and popped values.
    counters = {(n, k): Signal(intbv(0)[6:]) for k in range(1, DEPTH + 1) for n in names}
    pushed = {(n, k): Signal(intbv(0)[6:]) for k in range(1, DEPTH + 1) for n in names}
    popped = {(n, k): Signal(intbv(0)[6:]) for k in range(1, DEPTH) for n in names}
    for k in range(DEPTH):
        here = [zero6] * 4 if k == 0 else [counters[(n, k)] for n in names]
        cells.append(count_cell(from_then[k], to_then[k], move_piece, move_from, move_to, *here,
                                *(pushed[(n, k + 1)] for n in names), undo=False))
        if k > 0:
            cells.append(count_cell(from_then[k], to_then[k], move_piece, move_from, move_to,
                                    *(counters[(n, k + 1)] for n in names), *(popped[(n, k)] for n in names),
                                    undo=True))
    for k in range(1, DEPTH + 1):
        back = [zero6] * 4 if k == DEPTH else [popped[(n, k)] for n in names]
        cells.append(counter_cell(clk, rst, rd_init, rd_push, rd_pop, *(pushed[(n, k)] for n in names), *back,
                                  *(counters[(n, k)] for n in names)))

    # The window: k = 1.. while stored and reversible.
    inside = {k: Signal(bool(k == 0)) for k in range(0, DEPTH + 1)}  # k = 0: a constant 1
    for k in range(1, DEPTH + 1):
        cells.append(window_cell(k, count, irrevs[k], inside[k - 1], inside[k]))
    # rep: the least even k in W with D_k = 0; near: the least odd k <= 31 in W with D_k = 1 and
    # the displaced piece of the side to move; rd_dbg_d: D at rd_dbg_k. Chains from the far end.
    outside = Signal(intbv(OUTSIDE)[6:])
    dist_before, near_before, debug_before = zero6, (zero_bit, zero6, zero6), outside
    for k in range(DEPTH, 0, -1):
        debug_here = Signal(intbv(0)[6:])
        cells.append(debug_link(k, rd_dbg_k, inside[k], counters[("d", k)], debug_before, debug_here))
        debug_before = debug_here
        if k % 2 == 0:
            dist_here = Signal(intbv(0)[6:])
            cells.append(repetition_link(k, inside[k], counters[("d", k)], dist_before, dist_here))
            dist_before = dist_here
        if k % 2 == 1 and k <= NEAR_DEPTH:
            near_here = (Signal(bool(0)), Signal(intbv(0)[6:]), Signal(intbv(0)[6:]))
            cells.append(near_link(inside[k], counters[("d", k)], counters[("black", k)], wtm,
                                   counters[("now", k)], counters[("then", k)], *near_before, *near_here))
            near_before = near_here
    final_dist, (final_found, final_at, final_then), final_debug = dist_before, near_before, debug_before

    @always_comb
    def the_move():
        if rd_pop:
            move_from.next = newest_from
            move_to.next = newest_to
            move_piece.next = newest_piece
        else:
            move_from.next = rd_from
            move_to.next = rd_to
            move_piece.next = rd_piece

    @always_comb
    def position_now():
        # with nothing between, P(n) holds the moving piece on f and nothing on t
        from_now.next = move_piece
        to_now.next = 0

    @always_comb
    def outputs():
        rep.next = final_dist != 0
        rep_dist.next = final_dist
        near.next = final_found
        near_from.next = final_at
        near_to.next = final_then
        rd_dbg_d.next = final_debug

    @always_seq(clk.posedge, reset=rst)
    def control():
        rd_valid.next = rd_init or rd_push or rd_pop
        if rd_init:
            count.next = 0
            wtm.next = rd_wtm
        elif rd_push:
            if count < DEPTH:
                count.next = count + 1
            wtm.next = not wtm
        elif rd_pop:
            if count > 0:
                count.next = count - 1
            wtm.next = not wtm

    return cells, the_move, position_now, outputs, control


@block
def debug_link(k, rd_dbg_k, inside, d, debug_in, debug_out):
    @always_comb
    def link():
        if rd_dbg_k == k and inside:
            debug_out.next = d
        else:
            debug_out.next = debug_in

    return link


@block
def repetition_link(k, inside, d, dist_in, dist_out):
    @always_comb
    def link():
        if inside and d == 0:
            dist_out.next = k
        else:
            dist_out.next = dist_in

    return link


@block
def near_link(inside, d, black, wtm, now_sum, then_sum, found_in, at_in, then_in, found_out, at_out, then_out):
    """The displaced piece must belong to the side to move (black count 1 when black is)."""

    @always_comb
    def link():
        if inside and d == 1 and black[0] != wtm:
            found_out.next = 1
            at_out.next = now_sum
            then_out.next = then_sum
        else:
            found_out.next = found_in
            at_out.next = at_in
            then_out.next = then_in

    return link
