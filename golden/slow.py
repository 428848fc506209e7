"""Slow, obviously-correct reference for the tests of the golden model.

Everything here works on a 2-D grid of 'X' / 'O' / '-' indexed [row][col]
and walks rays square by square, exactly as the rules are written. It shares
no algorithm with the bitboard model (othello.py, stable.py) or the RTL, so
agreement between them means something. Only tests use it: it is ~100 times
slower than the bitboard model.
"""

from __future__ import annotations

from golden.board import Position

Grid = list[list[str]]

DIRECTIONS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]
# The 4 axes of docs/spec.md §3, each as its two opposite directions.
AXES = [((0, -1), (0, 1)), ((-1, 0), (1, 0)), ((-1, 1), (1, -1)), ((-1, -1), (1, 1))]


def _grid(pos: Position) -> Grid:
    n = pos.size
    grid = []
    for r in range(n):
        row = []
        for c in range(n):
            sq = r * n + c
            row.append("X" if (pos.black >> sq) & 1 else "O" if (pos.white >> sq) & 1 else "-")
        grid.append(row)
    return grid


def _other(colour: str) -> str:
    return "O" if colour == "X" else "X"


def _on_board(n: int, r: int, c: int) -> bool:
    return 0 <= r < n and 0 <= c < n


def _grid_flips(grid: Grid, r: int, c: int, me: str) -> list[tuple[int, int]]:
    """Squares flipped when ``me`` plays at (r, c): walk each of the 8 rays."""
    n = len(grid)
    if grid[r][c] != "-":
        return []
    flipped = []
    for dr, dc in DIRECTIONS:
        run = []
        rr, cc = r + dr, c + dc
        while _on_board(n, rr, cc) and grid[rr][cc] == _other(me):
            run.append((rr, cc))
            rr, cc = rr + dr, cc + dc
        if run and _on_board(n, rr, cc) and grid[rr][cc] == me:
            flipped.extend(run)
    return flipped


def _grid_moves(grid: Grid, me: str) -> list[tuple[int, int]]:
    n = len(grid)
    return [(r, c) for r in range(n) for c in range(n) if _grid_flips(grid, r, c, me)]


def slow_legal_moves(pos: Position) -> set[int]:
    """Squares where the side to move may play."""
    n = pos.size
    return {r * n + c for r, c in _grid_moves(_grid(pos), pos.side)}


def slow_flips(pos: Position, move: int) -> set[int]:
    """Squares flipped by the side to move playing ``move`` (empty if illegal)."""
    n = pos.size
    return {r * n + c for r, c in _grid_flips(_grid(pos), move // n, move % n, pos.side)}


def slow_stable(pos: Position, white: bool) -> set[int]:
    """Stable discs of one colour: the docs/spec.md §3 rule applied literally.

    Every square of the grid is re-evaluated each round from the previous
    round's set, starting from nothing stable, until the set stops changing
    (the least fixed point). Off-board neighbours count as stable.
    """
    n = pos.size
    grid = _grid(pos)
    colour = "O" if white else "X"
    stable: set[tuple[int, int]] = set()
    while True:
        nxt = set()
        for r in range(n):
            for c in range(n):
                if grid[r][c] != colour:
                    continue
                if all(
                    any(not _on_board(n, r + dr, c + dc) or (r + dr, c + dc) in stable for dr, dc in axis)
                    for axis in AXES
                ):
                    nxt.add((r, c))
        if nxt == stable:
            return {r * n + c for r, c in stable}
        stable = nxt


def _grid_perft(grid: Grid, me: str, depth: int) -> int:
    if depth == 0:
        return 1
    moves = _grid_moves(grid, me)
    if not moves:
        if not _grid_moves(grid, _other(me)):
            return 1  # finished game: one leaf whatever depth remains
        return _grid_perft(grid, _other(me), depth - 1)  # forced pass: a node
    total = 0
    for r, c in moves:
        child = [row[:] for row in grid]
        child[r][c] = me
        for rr, cc in _grid_flips(grid, r, c, me):
            child[rr][cc] = me
        total += _grid_perft(child, _other(me), depth - 1)
    return total


def slow_perft(pos: Position, depth: int) -> int:
    """Leaf count with the docs/spec.md §0 convention, by plain recursion."""
    return _grid_perft(_grid(pos), pos.side, depth)


def _grid_final(grid: Grid, me: str, scoring: str) -> int:
    mine = sum(row.count(me) for row in grid)
    theirs = sum(row.count(_other(me)) for row in grid)
    empties = sum(row.count("-") for row in grid)
    if scoring == "winner" and mine != theirs:
        return mine - theirs + (empties if mine > theirs else -empties)
    return mine - theirs


def _grid_solve(grid: Grid, me: str, scoring: str) -> int:
    moves = _grid_moves(grid, me)
    if not moves:
        if not _grid_moves(grid, _other(me)):
            return _grid_final(grid, me, scoring)
        return -_grid_solve(grid, _other(me), scoring)
    best = None
    for r, c in moves:
        child = [row[:] for row in grid]
        for rr, cc in _grid_flips(grid, r, c, me) + [(r, c)]:
            child[rr][cc] = me
        value = -_grid_solve(child, _other(me), scoring)
        best = value if best is None else max(best, value)
    return best


def slow_solve(pos: Position, scoring: str = "plain") -> int:
    """Exact final disc difference for the side to move under perfect play, by exhaustive
    minimax on the grid: ``plain`` counts discs only, ``winner`` gives the empty squares of a
    game that ends early to the winner. The reference of golden/solve.py."""
    return _grid_solve(_grid(pos), pos.side, scoring)


# The pattern evaluator's patterns (golden/patterns.py) drawn as walks on the grid: a start
# (row, col), a step (dr, dc) and a length; the 3x3 corner as its rows of 3.
PATTERN_WALKS = {
    "edge": [((0, 0), (0, 1), 8)],
    "row2": [((1, 0), (0, 1), 8)],
    "row3": [((2, 0), (0, 1), 8)],
    "row4": [((3, 0), (0, 1), 8)],
    "diag8": [((0, 0), (1, 1), 8)],
    "diag7": [((0, 1), (1, 1), 7)],
    "diag6": [((0, 2), (1, 1), 6)],
    "diag5": [((0, 3), (1, 1), 5)],
    "diag4": [((0, 4), (1, 1), 4)],
    "corner3x3": [((0, 0), (0, 1), 3), ((1, 0), (0, 1), 3), ((2, 0), (0, 1), 3)],
}
# The 8 maps of the square on (row, col), written out.
SQUARE_MAPS = [lambda r, c: (r, c), lambda r, c: (c, 7 - r), lambda r, c: (7 - r, 7 - c),
               lambda r, c: (7 - c, r), lambda r, c: (r, 7 - c), lambda r, c: (7 - r, c),
               lambda r, c: (c, r), lambda r, c: (7 - c, 7 - r)]


def slow_pattern_value(pos: Position, weights, pattern_names) -> int:
    """The pattern evaluator's value (golden/patterns.py) of ``pos`` for its side to move, on
    the grid: every image of every pattern walk under the 8 maps, one per set of squares, its
    cells read as a base-3 numeral (the walk's first cell the last digit), the stage's weight
    summed; 4 x the disc difference on a finished board; clamped to -256..255. Meaningful for
    weight tables that give a pattern's symmetric orderings equal weights (any ordering of an
    instance's squares then reads the same weight). ``pattern_names``: the tables' order."""
    grid = _grid(pos)
    me = "O" if pos.white_to_move else "X"
    discs = sum(cell != "-" for row in grid for cell in row)
    mine = sum(cell == me for row in grid for cell in row)
    if not _grid_moves(grid, me) and not _grid_moves(grid, _other(me)):
        return max(-256, min(255, 4 * (mine - (discs - mine))))
    stage = sum(1 for limit in weights.stage_limits if discs > limit)
    total = 0
    for name, walks in PATTERN_WALKS.items():
        cells = [(r0 + k * dr, c0 + k * dc) for (r0, c0), (dr, dc), length in walks for k in range(length)]
        seen = []
        for square_map in SQUARE_MAPS:
            image = [square_map(r, c) for r, c in cells]
            if set(image) in seen:
                continue
            seen.append(set(image))
            numeral = "".join("0" if grid[r][c] == "-" else "1" if grid[r][c] == me else "2" for r, c in image)
            total += weights.tables[stage][pattern_names.index(name)][int(numeral[::-1], 3)]
    return max(-256, min(255, total))
