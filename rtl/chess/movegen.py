"""The chess move generator (docs/spec-chess.md §2-§5), after the Deep Blue chess chip.

An 8x8 array of cells (``rtl.chess.cells``) with a find-victim and a find-attacker network, and
two distributed arbiters (``rtl.chess.arbiter``): the most valuable victim first (levels
Q R B N P empty, then the lowest square), then that victim's least valuable attacker (levels
P N B R Q K, then the lowest square), promotions Q R B N in a row.

``next`` needs only ``last_mv`` (the chess-chip seed's "modified decoder"): its victim (-V, vsq) and its
attacker (A, from) are read off the held position and become the two arbiters' mask points.
The attacker arbiter runs first on the same victim with the mask; when no attacker is left, the
victim arbiter runs past the last victim, then the attacker arbiter on the new victim unmasked.
A promotion other than the last (N) is answered at once with the next piece.

On ``start`` the position is registered, then the castling squares (e, f, g, d, c on the back
rank) are checked one per cycle with the find-attacker network turned round (the enemy's pieces
attacking, captures only), then find-victim runs: reaching the enemy king means ILLEGAL.

Cycles from the request edge to ``valid``: start 8; next 1 (a promotion's next piece), 2 (the
same victim), 3 (DONE) or 4 (a new victim).
"""

from myhdl import ConcatSignal, Signal, always_comb, always_seq, block, concat, enum, intbv

from rtl.chess.arbiter import arbiter
from rtl.chess.cells import (KNIGHT_JUMPS, ORTHOGONAL, arriving, attacker_receiver, jumps, mask_of, pawn_sources,
                             pawn_targets, planes_of, plane_signals, ray_signals, slider_ray, slider_ray_start,
                             code_tap, square_decoder, victim_ray, victim_ray_start, victim_receiver)
from rtl.geometry import DIRECTIONS, neighbour, opposite
from rtl.rom import rom

MOVE, DONE, ILLEGAL = 0, 1, 2
KING_STEPS = DIRECTIONS
# Castling squares checked on start, one per cycle, as files of the back rank: e f g d c.
CASTLE_FILES = (4, 5, 6, 3, 2, 0, 0, 0)  # indexed by a 3-bit step: padded to 8


@block
def chess_movegen(clk, rst, start, next_req, mode, board, wtm, castle, ep_valid, ep_file, last_mv,
                  valid, status, mv, busy):
    """clk, rst (ResetSignal, synchronous, active high); start, next_req: one-cycle requests
    (ignored while busy); mode: 1 = captures only; board[256], wtm, castle[4] (K Q k q),
    ep_valid, ep_file[3]: the position, sampled on start; last_mv[16]: the move whose successor
    ``next_req`` asks for. valid: one-cycle reply pulse with status (0 MOVE, 1 DONE, 2 ILLEGAL)
    and mv[16] ([5:0] from, [11:6] to, [14:12] promotion type); busy: a request is running."""
    state_t = enum("IDLE", "CHECK_CASTLING", "FIND_VICTIM", "FIND_ATTACKER")
    state = Signal(state_t.IDLE)

    # The position, held from start to start.
    board_r = Signal(intbv(0)[256:])
    wtm_r = Signal(bool(0))
    castle_r = Signal(intbv(0)[4:])
    ep_valid_r = Signal(bool(0))
    ep_file_r = Signal(intbv(0)[3:])
    mode_r = Signal(bool(0))
    first = Signal(bool(0))  # the victim search of a start: ILLEGAL is possible

    # Decoders: one bit per square and piece plane.
    bits = plane_signals()
    planes = planes_of(bits)
    codes = {s: Signal(intbv(0)[4:]) for s in range(64)}
    cells = [code_tap(board_r, s, codes[s]) for s in range(64)]
    cells += [square_decoder(codes[s], wtm_r, *(bits[(name, s)] for name in planes)) for s in range(64)]
    empty, us_pawn, us_knight, us_bishop, us_rook, us_queen, us_king = (
        planes[name] for name in ("empty", "us_pawn", "us_knight", "us_bishop", "us_rook", "us_queen", "us_king"))
    them_pawn, them_knight, them_bishop, them_rook, them_queen, them_king = (
        planes[name] for name in ("them_pawn", "them_knight", "them_bishop", "them_rook", "them_queen", "them_king"))
    us_orthogonal = Signal(intbv(0)[64:])
    us_diagonal = Signal(intbv(0)[64:])
    them = Signal(intbv(0)[64:])
    them_orthogonal = Signal(intbv(0)[64:])
    them_diagonal = Signal(intbv(0)[64:])
    ep_victim = Signal(intbv(0)[64:])
    ep_square = Signal(intbv(0)[6:])
    castle_targets = Signal(intbv(0)[64:])
    castle_origin = Signal(intbv(0)[64:])

    # find-victim: rays from the own sliders, one receiver per square.
    victim_rays = ray_signals()
    target_bits = {s: Signal(bool(0)) for s in range(64)}
    targets = ConcatSignal(*(target_bits[s] for s in reversed(range(64))))
    for (square, direction), ray in victim_rays.items():
        slider = us_orthogonal if direction in ORTHOGONAL else us_diagonal
        behind = neighbour(square, opposite(direction), 8)
        if behind is None:
            cells.append(slider_ray_start(slider, square, ray))
        else:
            cells.append(slider_ray(slider, empty, square, victim_rays[(behind, direction)], ray))
    for square in range(64):
        rays_in, _ = arriving(victim_rays, square)
        cells.append(victim_receiver(
            rays_in, square, mask_of(jumps(square, KNIGHT_JUMPS)), mask_of(jumps(square, KING_STEPS)),
            pawn_sources(square, True), pawn_sources(square, False), mask_of(jumps(square, ((0, -1), (0, 1)))),
            us_knight, us_king, us_pawn, empty, them, ep_victim, castle_targets, wtm_r, target_bits[square]))

    # find-attacker: rays from the victim square, one receiver per square; the attacking side
    # is the side to move, or the enemy while the castling squares are checked.
    victim_onehot = Signal(intbv(0)[64:])
    a_pawn = Signal(intbv(0)[64:])
    a_knight = Signal(intbv(0)[64:])
    a_diagonal = Signal(intbv(0)[64:])
    a_orthogonal = Signal(intbv(0)[64:])
    a_king = Signal(intbv(0)[64:])
    a_white = Signal(bool(0))
    victim_occupied = Signal(bool(0))
    quiet_ok = Signal(bool(0))
    ep_hit = Signal(bool(0))
    attacker_rays = ray_signals()
    attacker_bits = {s: Signal(bool(0)) for s in range(64)}
    attackers = ConcatSignal(*(attacker_bits[s] for s in reversed(range(64))))
    for (square, direction), ray in attacker_rays.items():
        behind = neighbour(square, opposite(direction), 8)
        if behind is None:
            cells.append(victim_ray_start(victim_onehot, square, ray))
        else:
            cells.append(victim_ray(victim_onehot, empty, square, attacker_rays[(behind, direction)], ray))
    for square in range(64):
        rays_in, directions = arriving(attacker_rays, square)
        orthogonal_mask = sum(1 << i for i, d in enumerate(directions) if d in ORTHOGONAL)
        diagonal_mask = sum(1 << i for i, d in enumerate(directions) if d not in ORTHOGONAL)
        cells.append(attacker_receiver(
            rays_in, orthogonal_mask, diagonal_mask, square, mask_of(jumps(square, KNIGHT_JUMPS)),
            mask_of(jumps(square, KING_STEPS)), pawn_targets(square, True), pawn_targets(square, False),
            mask_of(jumps(square, ((0, -1), (0, 1)))), victim_onehot, empty, a_pawn, a_knight, a_diagonal,
            a_orthogonal, a_king, a_white, victim_occupied, quiet_ok, ep_hit, castle_origin, castle_targets,
            attacker_bits[square]))

    # The arbiters.
    victim_candidates = Signal(intbv(0)[64:])
    victim_mask_on = Signal(bool(0))
    victim_mask_level = Signal(intbv(0)[3:])
    victim_mask_square = Signal(intbv(0)[6:])
    victim_found = Signal(bool(0))
    victim_square = Signal(intbv(0)[6:])
    cells.append(arbiter(victim_candidates, them_queen, them_rook, them_bishop,
                         them_knight, them_pawn, empty, victim_mask_on, victim_mask_level,
                         victim_mask_square, victim_found, None, victim_square))
    attacker_mask_on = Signal(bool(0))
    attacker_mask_level = Signal(intbv(0)[3:])
    attacker_mask_square = Signal(intbv(0)[6:])
    attacker_found = Signal(bool(0))
    attacker_level = Signal(intbv(0)[3:])
    attacker_square = Signal(intbv(0)[6:])
    cells.append(arbiter(attackers, us_pawn, us_knight, us_bishop, us_rook,
                         us_queen, us_king, attacker_mask_on, attacker_mask_level,
                         attacker_mask_square, attacker_found, attacker_level, attacker_square))

    illegal = Signal(bool(0))
    victim_r = Signal(intbv(0)[6:])  # the victim whose attackers are searched
    castle_step = Signal(intbv(0)[3:])
    castle_attacked = Signal(intbv(0)[5:])  # e f g d c attacked by the enemy
    castle_square = Signal(intbv(0)[6:])
    castle_file = Signal(intbv(0)[3:])
    cells.append(rom(castle_step, castle_file, CASTLE_FILES))
    castle_oo = Signal(bool(0))
    castle_ooo = Signal(bool(0))
    searched_square = Signal(intbv(0)[6:])

    # What last_mv says (combinational, from the held position): its victim and attacker.
    last_from = Signal(intbv(0)[6:])
    last_to = Signal(intbv(0)[6:])
    last_promotion = Signal(intbv(0)[3:])
    promotion_next = Signal(intbv(0)[3:])
    last_victim_square = Signal(intbv(0)[6:])
    last_victim_level = Signal(intbv(0)[3:])
    last_attacker_level = Signal(intbv(0)[3:])
    reply_to = Signal(intbv(0)[6:])
    reply_promotion = Signal(intbv(0)[3:])

    @always_comb
    def side_planes():
        us_orthogonal.next = us_rook | us_queen
        us_diagonal.next = us_bishop | us_queen
        them.next = (them_pawn | them_knight | them_bishop | them_rook
                     | them_queen | them_king)
        them_orthogonal.next = them_rook | them_queen
        them_diagonal.next = them_bishop | them_queen

    @always_comb
    def ep_pawn_square():
        # the pawn that just made a double step: rank 5 when white is to move, else rank 4
        if wtm_r:
            ep_square.next = concat(intbv(4)[3:], ep_file_r)
        else:
            ep_square.next = concat(intbv(3)[3:], ep_file_r)

    @always_comb
    def special_squares():
        ep = intbv(0)[64:]
        if ep_valid_r:
            ep[ep_square] = 1
        ep_victim.next = ep
        targets_now = intbv(0)[64:]
        origin = intbv(0)[64:]
        if wtm_r:
            targets_now[6] = castle_oo
            targets_now[2] = castle_ooo
            origin[4] = 1
        else:
            targets_now[62] = castle_oo
            targets_now[58] = castle_ooo
            origin[60] = 1
        castle_targets.next = targets_now
        castle_origin.next = origin

    @always_comb
    def castle_rules():
        # Back-rank bits of the side to move: king on e, rook on h / a, squares between empty.
        if wtm_r:
            castle_square.next = concat(intbv(0)[3:], castle_file)
            castle_oo.next = (castle_r[0] and us_king[4] and us_rook[7] and empty[5] and empty[6]
                              and castle_attacked[3:0] == 0)
            castle_ooo.next = (castle_r[1] and us_king[4] and us_rook[0] and empty[1] and empty[2]
                               and empty[3] and not castle_attacked[0] and castle_attacked[5:3] == 0)
        else:
            castle_square.next = concat(intbv(7)[3:], castle_file)
            castle_oo.next = (castle_r[2] and us_king[60] and us_rook[63] and empty[61] and empty[62]
                              and castle_attacked[3:0] == 0)
            castle_ooo.next = (castle_r[3] and us_king[60] and us_rook[56] and empty[57] and empty[58]
                               and empty[59] and not castle_attacked[0] and castle_attacked[5:3] == 0)

    @always_comb
    def attacking_side():
        if state == state_t.CHECK_CASTLING:
            searched_square.next = castle_square
            a_white.next = not wtm_r
            a_pawn.next = them_pawn
            a_knight.next = them_knight
            a_diagonal.next = them_diagonal
            a_orthogonal.next = them_orthogonal
            a_king.next = them_king
            victim_occupied.next = 1
            quiet_ok.next = 0
            ep_hit.next = 0
        else:
            searched_square.next = victim_r
            a_white.next = wtm_r
            a_pawn.next = us_pawn
            a_knight.next = us_knight
            a_diagonal.next = us_diagonal
            a_orthogonal.next = us_orthogonal
            a_king.next = us_king
            victim_occupied.next = not empty[victim_r]
            quiet_ok.next = 1
            ep_hit.next = ep_victim[victim_r]

    @always_comb
    def victim_onehot_drive():
        onehot = intbv(0)[64:]
        onehot[searched_square] = 1
        victim_onehot.next = onehot

    @always_comb
    def victim_choice():
        if mode_r:
            victim_candidates.next = targets & ~them_king & ~empty
        else:
            victim_candidates.next = targets & ~them_king
        illegal.next = (targets & them_king) != 0

    @always_comb
    def decode_last():
        last_from.next = last_mv[6:0]
        last_to.next = last_mv[12:6]
        last_promotion.next = last_mv[15:12]
        if last_mv[15:12] != 0:
            promotion_next.next = last_mv[15:12] - 1
        else:
            promotion_next.next = 0
        ep = us_pawn[last_mv[6:0]] and empty[last_mv[12:6]] and last_mv[3:0] != last_mv[9:6]
        if ep:
            last_victim_level.next = 4
            # the captured pawn stands on rank 5 (white to move) or 4, on the to-square's file
            if wtm_r:
                last_victim_square.next = concat(intbv(4)[3:], last_mv[9:6])
            else:
                last_victim_square.next = concat(intbv(3)[3:], last_mv[9:6])
        else:
            last_victim_square.next = last_mv[12:6]
            if them_queen[last_mv[12:6]]:
                last_victim_level.next = 0
            elif them_rook[last_mv[12:6]]:
                last_victim_level.next = 1
            elif them_bishop[last_mv[12:6]]:
                last_victim_level.next = 2
            elif them_knight[last_mv[12:6]]:
                last_victim_level.next = 3
            elif them_pawn[last_mv[12:6]]:
                last_victim_level.next = 4
            else:
                last_victim_level.next = 5
        if us_pawn[last_mv[6:0]]:
            last_attacker_level.next = 0
        elif us_knight[last_mv[6:0]]:
            last_attacker_level.next = 1
        elif us_bishop[last_mv[6:0]]:
            last_attacker_level.next = 2
        elif us_rook[last_mv[6:0]]:
            last_attacker_level.next = 3
        elif us_queen[last_mv[6:0]]:
            last_attacker_level.next = 4
        else:
            last_attacker_level.next = 5

    @always_comb
    def reply_move():
        # The winning attacker's move: e.p. lands behind the victim, a pawn reaching the last
        # rank promotes (to a queen first).
        if attacker_level == 0 and attacker_square[6:3] == victim_r[6:3]:
            if wtm_r:
                reply_to.next = concat(intbv(5)[3:], victim_r[3:0])
            else:
                reply_to.next = concat(intbv(2)[3:], victim_r[3:0])
        else:
            reply_to.next = victim_r
        if attacker_level == 0 and ((wtm_r and victim_r[6:3] == 7) or (not wtm_r and victim_r[6:3] == 0)):
            reply_promotion.next = 5
        else:
            reply_promotion.next = 0

    @always_seq(clk.posedge, reset=rst)
    def control():
        valid.next = 0
        if state == state_t.IDLE:
            if start:
                board_r.next = board
                wtm_r.next = wtm
                castle_r.next = castle
                ep_valid_r.next = ep_valid
                ep_file_r.next = ep_file
                mode_r.next = mode
                castle_step.next = 0
                castle_attacked.next = 0
                first.next = 1
                victim_mask_on.next = 0
                state.next = state_t.CHECK_CASTLING
                busy.next = 1
            elif next_req:
                mode_r.next = mode
                first.next = 0
                if last_promotion >= 3 and not (mode and last_victim_level == 5):
                    # Q, R, B: the same pawn's next promotion.
                    mv.next = concat(False, promotion_next, last_to, last_from)
                    status.next = MOVE
                    valid.next = 1
                else:
                    victim_r.next = last_victim_square
                    attacker_mask_on.next = 1
                    attacker_mask_level.next = last_attacker_level
                    attacker_mask_square.next = last_from
                    victim_mask_on.next = 1
                    victim_mask_level.next = last_victim_level
                    victim_mask_square.next = last_victim_square
                    if mode and last_victim_level == 5:
                        state.next = state_t.FIND_VICTIM  # a quiet last move: nothing follows it among captures
                    else:
                        state.next = state_t.FIND_ATTACKER
                    busy.next = 1
        elif state == state_t.CHECK_CASTLING:
            castle_attacked.next[castle_step] = attackers != 0
            if castle_step == 4:
                state.next = state_t.FIND_VICTIM
            castle_step.next = castle_step + 1
        elif state == state_t.FIND_VICTIM:
            if first and illegal:
                status.next = ILLEGAL
                mv.next = 0
                valid.next = 1
                busy.next = 0
                state.next = state_t.IDLE
            elif victim_found:
                victim_r.next = victim_square
                attacker_mask_on.next = 0
                state.next = state_t.FIND_ATTACKER
            else:
                status.next = DONE
                mv.next = 0
                valid.next = 1
                busy.next = 0
                state.next = state_t.IDLE
        else:  # ATTACKER
            if attacker_found:
                status.next = MOVE
                mv.next = concat(False, reply_promotion, reply_to, attacker_square)
                valid.next = 1
                busy.next = 0
                state.next = state_t.IDLE
            else:
                state.next = state_t.FIND_VICTIM

    return cells, side_planes, ep_pawn_square, special_squares, castle_rules, attacking_side, victim_onehot_drive, \
        victim_choice, decode_last, reply_move, control
