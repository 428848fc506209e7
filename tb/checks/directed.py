"""Directed positions that every bench runs before random ones: the places where board logic
breaks (edges, corners, row wrap-around of index arithmetic, longest lines, all directions).

Positions are built from (row, col) coordinates so that the same generator serves every board
size; each comes with a label that names it in a failure message.
"""

from golden.board import START, Position, square_name, start_position
from golden.othello import play
from golden.positions import random_game_positions, random_occupancy
from tb.checks.aimed import aimed_positions

DIRECTIONS = {
    "north": (1, 0), "south": (-1, 0), "east": (0, 1), "west": (0, -1),
    "north-east": (1, 1), "north-west": (1, -1), "south-east": (-1, 1), "south-west": (-1, -1),
}


def _bits(squares):
    return sum(1 << s for s in set(squares))


def _position(own, opp, size, white_to_move=False):
    return Position.from_own_opp(_bits(own), _bits(opp) & ~_bits(own), white_to_move, size)


def _ray(row, col, direction, size):
    dr, dc = DIRECTIONS[direction]
    squares = []
    row, col = row + dr, col + dc
    while 0 <= row < size and 0 <= col < size:
        squares.append(row * size + col)
        row, col = row + dr, col + dc
    return squares


def _longest_ray_start(direction, size):
    """The square from which ``direction`` has the longest ray (a corner or edge)."""
    dr, dc = DIRECTIONS[direction]
    return (0 if dr >= 0 else size - 1, 0 if dc >= 0 else size - 1)


def directed_positions(size=8):
    """[(label, Position)]: the directed set for a board of ``size``."""
    n2 = size * size
    every = range(n2)
    cases = [
        ("start position", start_position(size)),
        ("start position, white to move", start_position(size).swap_side()),
        ("empty board", _position([], [], size)),
        ("full board, all own", _position(every, [], size)),
        ("full board, all opponent", _position([], every, size)),
        ("full board, checkerboard", _position([s for s in every if (s // size + s) % 2], every, size)),
        ("full board but one corner, opponent around it", _position([n2 - 1 - size - 1], set(every) - {0, n2 - 1 - size - 1}, size)),
    ]
    for side in range(2, size):
        # Stable discs grow inward one square per cycle here; the 3x3 block ends with a single
        # flip-flop changing in the last iteration, the case an early ``done`` gets wrong.
        block = [r * size + c for r in range(side) for c in range(side)]
        cases.append((f"own {side}x{side} block in corner A1", _position(block, [], size)))
    for corner in (0, size - 1, n2 - size, n2 - 1):
        cases.append((f"single own disc on corner {square_name(corner, size)}", _position([corner], [], size)))
        cases.append((f"single opponent disc on corner {square_name(corner, size)}", _position([], [corner], size)))
    for name in DIRECTIONS:
        row, col = _longest_ray_start(name, size)
        ray = _ray(row, col, name, size)
        target = row * size + col
        cases.append((f"longest flip line {name} from {square_name(target, size)}", _position([ray[-1]], ray[:-1], size)))
        cases.append((f"opponent line {name} from {square_name(target, size)} runs off the board", _position([], ray, size)))
        cases.append((f"opponent line {name} from {square_name(target, size)} ends on an empty square", _position([], ray[:-2], size)))
        cases.append((f"one-disc flip {name} from {square_name(target, size)}", _position([ray[1]], [ray[0]], size)))
        for length in range(2, len(ray) - 1):   # every run length between one and the longest
            cases.append((f"{length}-disc flip {name} from {square_name(target, size)}",
                          _position([ray[length]], ray[:length], size)))
        cases.append((f"own disc adjacent {name} of {square_name(target, size)}: nothing to flip", _position([ray[0]], [], size)))
    centre = size // 2 - 1
    own, opp = [], []
    for name in DIRECTIONS:
        ray = _ray(centre, centre, name, size)
        if len(ray) >= 2:
            opp.append(ray[0])
            own.append(ray[1])
    cases.append((f"flips in {len(own)} directions at once around {square_name(centre * size + centre, size)}", _position(own, opp, size)))
    cases.append(("same, with every other square own", _position(set(own) | set(every) - set(opp) - {square_name(centre * size + centre, size)}, opp, size)))
    cases += _wrap_traps(size)
    cases += aimed_positions(size)   # test-plan bins random play rarely reaches (tb/testplans)
    return cases


def _wrap_traps(size):
    """An opponent line that runs off the side of the board, with an own disc where flat index
    arithmetic (square + k*step, no edge mask) would land next: legal only if rows wrap."""
    cases = []
    n2 = size * size
    for target in range(n2):
        row, col = divmod(target, size)
        for name, (dr, dc) in DIRECTIONS.items():
            if dc == 0:
                continue
            ray = _ray(row, col, name, size)
            wrapped = target + (len(ray) + 1) * (dr * size + dc)
            if ray and 0 <= wrapped < n2:
                cases.append((f"row wrap-around trap {name} from {square_name(target, size)}", _position([wrapped], ray, size)))
    return cases


def random_positions(kind, rng, count, size=8):
    """[(label, Position)] of one random kind: 'occupancy' or 'played'."""
    if kind == "occupancy":
        return [(f"random_occupancy #{i}", random_occupancy(rng, size)) for i in range(count)]
    out = []
    while len(out) < count:
        game = len(out)
        out += [(f"random_played game@{game} ply {ply}", p) for ply, p in enumerate(random_game_positions(rng, size))]
    return out[:count]


def mixed_positions(rng, count, size=8, first=0):
    """Fuzz stimulus: both random kinds in turn, numbered from ``first``, reproducible from ``rng``."""
    out = []
    while len(out) < count:
        out += [("random_occupancy", random_occupancy(rng, size)) for _ in range(64)]
        out += [("random_played", p) for p in random_game_positions(rng, size)]
    return [(f"fuzz #{first + i} ({kind})", p) for i, (kind, p) in enumerate(out[:count])]


def replay_game(moves):
    """The position after ``moves`` (squares) played from the start: a game the opening book is fed."""
    position = START
    for move in moves:
        position = play(position, move)
    return position
