"""Positions aimed at test-plan bins that random play reaches rarely or never (tb/testplans/*.toml
names, per point, the generator that covers it): every total number of flips of one move up to
the largest the board allows, captures in every number of directions at once, and stable sets
that take every number of cycles an aimed search found, a board of high mobility. The directed set (tb.checks.directed)
includes them, so every bench that runs it checks them. Not among them: every capture run from every square
(capture_run_positions, every_direction_capture_positions) and full boards split between the colours
(split_board_positions), which serve the benches of their own (the AXI evaluator's stream, the search bench's code
coverage runs).
"""

from golden.board import Position, square_name
from tb.checks.coverage_samplers import DIRECTIONS


def _ray(square, dr, dc, size):
    row, col = divmod(square, size)
    out = []
    while True:
        row, col = row + dr, col + dc
        if not (0 <= row < size and 0 <= col < size):
            return out
        out.append(row * size + col)


def _capacity(square, size):
    """The most discs a move on ``square`` can flip in each direction: its ray's length less one."""
    return [max(0, len(_ray(square, dr, dc, size)) - 1) for _, dr, dc in DIRECTIONS]


def largest_flip_total(size):
    """The most discs one move can flip on a ``size`` board (19 on 8x8, 12 on 6x6, 6 on 4x4)."""
    return max(sum(_capacity(square, size)) for square in range(size * size))


def runs_position(square, runs, size, label):
    """Black to move on ``square`` capturing ``runs[d]`` discs in direction d (0: the neighbour
    that way stays empty); every other square empty."""
    own = opp = 0
    for (_, dr, dc), run in zip(DIRECTIONS, runs):
        if run:
            ray = _ray(square, dr, dc, size)
            opp |= sum(1 << s for s in ray[:run])
            own |= 1 << ray[run]
    return label, Position.from_own_opp(own, opp, False, size)


def flip_total_positions(size):
    """For every total t from 1 to largest_flip_total: a move flipping exactly t discs, on the
    square that allows the most, the runs filled direction by direction."""
    square = max(range(size * size), key=lambda s: sum(_capacity(s, size)))
    capacity = _capacity(square, size)
    out = []
    for total in range(1, sum(capacity) + 1):
        runs, left = [], total
        for most in capacity:
            runs.append(min(most, left))
            left -= runs[-1]
        out.append(runs_position(square, runs, size, f"aimed: {total} flips by a move on {square_name(square, size)}"))
    return out


def direction_count_positions(size):
    """For every k up to the most directions one square can capture in: a move capturing one disc
    in each of k directions (8 on 8x8 and 6x6, 3 on 4x4)."""
    def usable(square):
        return [d for d, most in enumerate(_capacity(square, size)) if most]

    square = max(range(size * size), key=lambda s: len(usable(s)))
    directions = usable(square)
    return [runs_position(square, [1 if d in directions[:k] else 0 for d in range(8)], size,
                          f"aimed: captures in {k} directions by a move on {square_name(square, size)}")
            for k in range(1, len(directions) + 1)]


# Own discs (black's bitboard) whose stable set takes n cycles of the network, for n = 1..21: the
# first board of each length a hill climb met (random boards with the four corners own, one
# square flipped at a time, a flip kept when the cycles do not drop; 200 restarts of 4000 steps,
# seed 5). Random boards give at most 8 cycles; the climb found none longer than 21.
STABLE_CYCLE_BOARDS = (
    0xc164d8399f767cc5, 0xcafcc4339d10be38, 0xfee410b2dd449e78, 0xfdf4875998369113, 0xfdfd0759dc369312,
    0xf8fce6ef093bc823, 0xfdfbf8f970460ce1, 0xfffef9f02cd34673, 0xfefefafee2665fa7, 0xfefef8fee2c677b5,
    0xfffffdfcfcf43f5e, 0xfffffcf9f0e1da4d, 0xfffffefcfff1ee15, 0xfffffffffe6777ff, 0xfffffffffe4f576f,
    0xfffffffffe5f37ff, 0xfffffffffe3f37af, 0xfffffffffe7f373f, 0xfffffffffe7fe7ef, 0xfffffffffe7ff7ef,
    0xfddfeffffffffffe,
)


def stable_cycle_positions(size=8):
    """Black's discs of STABLE_CYCLE_BOARDS, white's none (8x8 only)."""
    if size != 8:
        return []
    return [(f"aimed: stable set in {cycles} cycles", Position(board, 0, False, 8))
            for cycles, board in enumerate(STABLE_CYCLE_BOARDS, start=1)]


# (own, opp) with 33 legal moves for the side to move: a hill climb over random boards (one square
# set to empty, own or opponent at a time, kept when the mobility does not drop; seed 11). Random
# boards have 20 or more legal moves about once in 1,300.
HIGH_MOBILITY = (0x684ec8300020831, 0x4a004c01007648)


def mobility_positions(size=8):
    """The HIGH_MOBILITY board with either side to move: 33 legal moves for the side to move, and
    for the opponent (8x8 only)."""
    if size != 8:
        return []
    position = Position.from_own_opp(*HIGH_MOBILITY, False, 8)
    return [("aimed: 33 legal moves for the side to move", position),
            ("aimed: 33 legal moves for the opponent", position.swap_side())]


def capture_run_positions(size=8):
    """For every square, direction and capture length the ray allows: black to move there capturing
    that many discs that way (nothing else on the board), and the same board with white to move.
    Each pattern cell then sees every run that can reach it, for the side to move and for its
    opponent: long runs random and played positions rarely make, which the move checkers inside the
    evaluator are built for. Not in aimed_positions: the batch benches reach them with their random
    sets."""
    out = []
    for square in range(size * size):
        for direction, capacity in enumerate(_capacity(square, size)):
            for length in range(1, capacity + 1):
                runs = [length if d == direction else 0 for d in range(len(DIRECTIONS))]
                label, position = runs_position(square, runs, size, f"aimed: {square_name(square, size)} captures "
                                                f"{length} towards {DIRECTIONS[direction][0]}")
                out += [(label, position), (f"{label}, white to move", position.swap_side())]
    return out


def every_direction_capture_positions(size=8):
    """For every square and capture length: black to move on the square capturing that many discs
    (as many as the ray allows) in every direction at once, nothing else on the board; a board
    already made for a shorter length is not repeated. Not in aimed_positions (as above)."""
    boards = {}
    for square in range(size * size):
        capacity = _capacity(square, size)
        for length in range(1, max(capacity) + 1):
            label, position = runs_position(square, [min(length, c) for c in capacity], size,
                                            f"aimed: {square_name(square, size)} captures up to {length} "
                                            f"in every direction")
            boards.setdefault((position.black, position.white), (label, position))
    return list(boards.values())


def _span(first, last):
    return first if first == last else f"{first}-{last}"


def split_board_positions(size=8):
    """Full boards cut in two by a boundary between two rows (or two columns): one colour up to the
    boundary, the other beyond it, for every boundary, both ways round, each with either side to
    move. A full board ends the game, so a search's root is its one terminal node, which the
    evaluator reads as it reads a leaf at the end of a game. Every line that crosses the boundary
    holds a disc of one colour followed by a run of the other as long as the line allows: the row
    boundaries give every pattern cell of both move checkers (the side to move's and its
    opponent's) every run that can reach it in the six directions with a row step, the column
    boundaries in the two without. Not in aimed_positions (as above)."""
    full = (1 << size * size) - 1
    out = []
    for axis, names in ((0, [str(row + 1) for row in range(size)]), (1, "ABCDEFGH"[:size])):
        kind = "rows" if axis == 0 else "columns"
        for boundary in range(size - 1):
            low = sum(1 << square for square in range(size * size) if divmod(square, size)[axis] <= boundary)
            for low_colour, high_colour, black in (("black", "white", low), ("white", "black", full & ~low)):
                label = (f"aimed: full board, {low_colour} on {kind} {_span(names[0], names[boundary])}, "
                         f"{high_colour} on {_span(names[boundary + 1], names[-1])}")
                position = Position(black, full & ~black, False, size)
                out += [(f"{label}, black to move", position), (f"{label}, white to move", position.swap_side())]
    return out


def aimed_positions(size=8):
    """[(label, Position)]: every aimed generator's positions for a board of ``size``."""
    return (flip_total_positions(size) + direction_count_positions(size) + stable_cycle_positions(size)
            + mobility_positions(size))
