"""The 8x8 cell array of the chess move generator, generated at elaboration time.

Every square gets a decoder (its 4-bit code -> one bit per own and enemy piece type, and empty),
and for each of the two searches a ray cell per flow direction that has a neighbour, plus a
receiver:

* find-victim: every own slider transmits along its directions; a ray passes on through empty
  squares. A square's receiver combines the rays arriving at it with the knight, king and pawn
  patterns of the own pieces around it (fixed wiring: constant masks), e.p. and castling:
  ``target`` = some own piece moves to this square.
* find-attacker: the chosen victim square transmits along all 8 directions; a ray passes on
  through empty squares. A square's receiver answers whether the attacking side's piece on it
  reaches the victim: a matching slider on an arriving ray, or the knight, king or pawn pattern
  around it.

Networks live in dicts keyed by (square, direction): a Signal may belong to one Python list
only, and a list of Signals would be converted to a memory.
"""

from myhdl import ConcatSignal, Signal, always_comb, block

from rtl.geometry import DIRECTIONS, neighbour, opposite

KNIGHT_JUMPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
ORTHOGONAL = tuple(d for d in DIRECTIONS if 0 in d)
PLANE_NAMES = ("us_pawn", "us_knight", "us_bishop", "us_rook", "us_queen", "us_king",
               "them_pawn", "them_knight", "them_bishop", "them_rook", "them_queen", "them_king", "empty")


def mask_of(squares):
    """A 64-bit constant with the given squares set (None entries ignored). A plain int: MyHDL
    writes it with its own width, and the AND with a 64-bit plane zero-extends it."""
    return sum(1 << s for s in squares if s is not None)


def jumps(square, steps):
    return [neighbour(square, step, 8) for step in steps]


def pawn_sources(square, white):
    """Constant masks of the squares a pawn of that colour moves to ``square`` from:
    (captures, single step, double step, the square the double step passes)."""
    forward = 1 if white else -1
    home = 1 if white else 6
    captures = mask_of(jumps(square, ((-forward, -1), (-forward, 1))))
    single = mask_of(jumps(square, ((-forward, 0),)))
    behind = neighbour(square, (-forward, 0), 8)
    double_from = neighbour(square, (-2 * forward, 0), 8)
    if double_from is not None and double_from // 8 == home:
        return captures, single, mask_of([double_from]), mask_of([behind])
    return captures, single, mask_of([]), mask_of([])


def pawn_targets(square, white):
    """Constant masks of where a pawn of that colour on ``square`` moves:
    (captures, single step, double step, the square the double step passes)."""
    forward = 1 if white else -1
    home = 1 if white else 6
    captures = mask_of(jumps(square, ((forward, -1), (forward, 1))))
    single = mask_of(jumps(square, ((forward, 0),)))
    if square // 8 == home:
        return captures, single, mask_of([square + 16 * forward]), mask_of([square + 8 * forward])
    return captures, single, mask_of([]), mask_of([])


def plane_signals():
    """One bit per square and plane: ``{(plane, square): Signal(bool)}``."""
    return {(name, square): Signal(bool(0)) for name in PLANE_NAMES for square in range(64)}


def planes_of(bits):
    """The 64-bit plane signals ``{plane: ConcatSignal}`` of the decoders' bits."""
    return {name: ConcatSignal(*(bits[(name, s)] for s in reversed(range(64)))) for name in PLANE_NAMES}


@block
def code_tap(board, square, code):
    """The 4-bit code of ``square`` (a constant) out of the 256-bit board word."""

    @always_comb
    def tap():
        code.next = board[4 * square + 4:4 * square]

    return tap


@block
def square_decoder(code, wtm, us_pawn, us_knight, us_bishop, us_rook, us_queen, us_king,
                   them_pawn, them_knight, them_bishop, them_rook, them_queen, them_king, empty):
    """One square's 4-bit code (bit 3 black, bits 2..0 the type) -> one bit per own and enemy
    piece type and empty. ``wtm``: white to move (so white pieces are own)."""

    @always_comb
    def decode():
        mine = code[3] != wtm
        theirs = code[3] == wtm
        us_pawn.next = mine and code[3:0] == 1
        us_knight.next = mine and code[3:0] == 2
        us_bishop.next = mine and code[3:0] == 3
        us_rook.next = mine and code[3:0] == 4
        us_queen.next = mine and code[3:0] == 5
        us_king.next = mine and code[3:0] == 6
        them_pawn.next = theirs and code[3:0] == 1
        them_knight.next = theirs and code[3:0] == 2
        them_bishop.next = theirs and code[3:0] == 3
        them_rook.next = theirs and code[3:0] == 4
        them_queen.next = theirs and code[3:0] == 5
        them_king.next = theirs and code[3:0] == 6
        empty.next = code == 0

    return decode


def ray_signals():
    """``{(square, direction): Signal(bool)}`` for every direction with a neighbour ahead."""
    return {(s, d): Signal(bool(0)) for s in range(64) for d in DIRECTIONS if neighbour(s, d, 8) is not None}


def arriving(rays, square):
    """The rays arriving at ``square`` as one ConcatSignal (bit i: direction ``directions[i]``)
    and those directions, lowest bit first."""
    directions = [d for d in DIRECTIONS if neighbour(square, opposite(d), 8) is not None]
    signals = [rays[(neighbour(square, opposite(d), 8), d)] for d in directions]
    return ConcatSignal(*reversed(signals)), directions


@block
def slider_ray_start(slider, square, ray):
    """find-victim ray cell with nothing behind it: a slider here starts the ray."""

    @always_comb
    def start_ray():
        ray.next = slider[square]

    return start_ray


@block
def slider_ray(slider, empty, square, incoming, ray):
    """find-victim ray cell: a slider here starts the ray, an empty square passes it on."""

    @always_comb
    def pass_ray():
        ray.next = slider[square] or (empty[square] and incoming)

    return pass_ray


@block
def victim_ray_start(victim, square, ray):
    """find-attacker ray cell with nothing behind it: the victim here starts the ray."""

    @always_comb
    def start_ray():
        ray.next = victim[square]

    return start_ray


@block
def victim_ray(victim, empty, square, incoming, ray):
    """find-attacker ray cell: the victim here starts the ray, an empty square passes it on."""

    @always_comb
    def pass_ray():
        ray.next = victim[square] or (empty[square] and incoming)

    return pass_ray


@block
def victim_receiver(rays_in, square, knight_mask, king_mask, white_masks, black_masks, beside_mask,
                    us_knight, us_king, us_pawn, empty, them, ep_victim, castle_targets, wtm, target):
    """find-victim receiver of ``square``: ``target`` = some own piece moves here (an empty or
    enemy square). ``white_masks`` / ``black_masks``: the pawn source masks of ``pawn_sources``."""
    w_capture, w_single, w_double, w_passed = white_masks
    b_capture, b_single, b_double, b_passed = black_masks

    @always_comb
    def receive():
        pieces = (rays_in != 0 or (us_knight & knight_mask) != 0 or (us_king & king_mask) != 0)
        capture = False
        single = False
        double = False
        if wtm:
            capture = (us_pawn & w_capture) != 0
            single = (us_pawn & w_single) != 0
            double = (us_pawn & w_double) != 0 and (empty & w_passed) != 0
        else:
            capture = (us_pawn & b_capture) != 0
            single = (us_pawn & b_single) != 0
            double = (us_pawn & b_double) != 0 and (empty & b_passed) != 0
        en_passant = ep_victim[square] and (us_pawn & beside_mask) != 0
        if them[square]:
            target.next = pieces or capture or en_passant
        elif empty[square]:
            target.next = pieces or single or double or castle_targets[square]
        else:
            target.next = 0

    return receive


@block
def attacker_receiver(rays_in, orthogonal_mask, diagonal_mask, square, knight_mask, king_mask,
                      white_masks, black_masks, beside_mask, victim, empty, a_pawn, a_knight,
                      a_diagonal, a_orthogonal, a_king, a_white, victim_occupied, quiet_ok, ep_hit,
                      castle_origin, castle_targets, attacker):
    """find-attacker receiver of ``square``: ``attacker`` = the attacking side's piece here moves
    to the victim. ``white_masks`` / ``black_masks``: the pawn target masks of ``pawn_targets``."""
    w_capture, w_single, w_double, w_passed = white_masks
    b_capture, b_single, b_double, b_passed = black_masks

    @always_comb
    def receive():
        capture = False
        single = False
        double = False
        pawn = False
        if a_white:
            capture = (victim & w_capture) != 0
            single = (victim & w_single) != 0
            double = (victim & w_double) != 0 and (empty & w_passed) != 0
        else:
            capture = (victim & b_capture) != 0
            single = (victim & b_single) != 0
            double = (victim & b_double) != 0 and (empty & b_passed) != 0
        if victim_occupied:
            pawn = capture or (ep_hit and (victim & beside_mask) != 0)
        else:
            pawn = quiet_ok and (single or double)
        attacker.next = ((a_orthogonal[square] and (rays_in & orthogonal_mask) != 0)
                         or (a_diagonal[square] and (rays_in & diagonal_mask) != 0)
                         or (a_knight[square] and (victim & knight_mask) != 0)
                         or (a_king[square] and ((victim & king_mask) != 0
                                                 or (castle_origin[square] and (victim & castle_targets) != 0)))
                         or (a_pawn[square] and pawn))

    return receive
