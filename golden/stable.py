"""Stable discs (docs/spec.md §3), as the Stable Discs Evaluator computes them.

A disc of colour c is stable when on each of the 4 axes at least one of its
two neighbours is a stable disc of colour c, off-board neighbours counting
as stable; the stable set is the least fixed point of that rule. It depends
only on the discs of colour c, so every function takes just ``own``.

The hardware computes the border combinationally and the inner squares with
one flip-flop each, updated once per cycle. :func:`stable_iterations` gives
the same sequence so the test bench can compare the flip-flops every cycle
and the cycle of ``done``. The RTL uses a per-square cell network; here each
step is a handful of whole-bitboard shifts.
"""

from __future__ import annotations

from golden.othello import Geometry, geometry


def _neighbour_on_every_axis(stable: int, g: Geometry) -> int:
    """Squares that, on each of the 4 axes, have at least one neighbour in ``stable``.

    Each axis is the OR of ``stable`` shifted one step in its two directions;
    discs on the file a step would leave the board from are dropped before
    that step, so nothing wraps to the other side of the board.
    """
    n = g.size
    can_go_east = stable & ~g.last_file
    can_go_west = stable & ~g.first_file
    horizontal = (can_go_east << 1) | (can_go_west >> 1)
    vertical = (stable << n) | (stable >> n)
    diagonal = (can_go_east << (n + 1)) | (can_go_west >> (n + 1))      # A1-H8 direction
    anti_diagonal = (can_go_west << (n - 1)) | (can_go_east >> (n - 1))  # A8-H1 direction
    return horizontal & vertical & diagonal & anti_diagonal & g.full


def edge_stable(own: int, size: int = 8) -> int:
    """Stable discs of ``own`` on the border squares.

    On a border square every axis that crosses the edge has an off-board
    (stable) neighbour, so only the axis along the edge constrains it: a
    corner disc is stable, and so is an edge disc next to a stable disc on
    the same edge. The fixed point therefore grows from the own corners along
    the edges, one step per iteration, and never depends on inner squares.
    """
    g = geometry(size)
    on_edge_ranks = own & g.edge_ranks
    on_edge_files = own & g.edge_files
    stable = own & g.corners
    while True:
        along_rank = ((stable & ~g.last_file) << 1) | ((stable & ~g.first_file) >> 1)
        along_file = (stable << size) | (stable >> size)
        grown = stable | (on_edge_ranks & along_rank) | (on_edge_files & along_file)
        if grown == stable:
            return stable
        stable = grown


def stable_iterations(own: int, size: int = 8) -> list[int]:
    """Stable set after each hardware cycle, ending with the fixed point.

    Element 0 is :func:`edge_stable` (inner flip-flops cleared); element k+1
    adds every inner own disc whose 4 axes each have a neighbour in element
    k. The rule is monotone, so the sequence only grows, and starting below
    the least fixed point it stops exactly there. The list ends at the first
    element equal to its successor (the successor is not repeated), so
    ``len(result) - 1`` is the number of updates that changed a flip-flop.
    With no own corner nothing is stable and the result is ``[0]``.
    """
    g = geometry(size)
    edge = edge_stable(own, size)
    inner_own = own & g.inner
    sequence = [edge]
    while True:
        nxt = edge | (inner_own & _neighbour_on_every_axis(sequence[-1], g))
        if nxt == sequence[-1]:
            return sequence
        sequence.append(nxt)


def stable_discs(own: int, size: int = 8) -> int:
    """Stable discs of ``own`` (the least fixed point of the docs/spec.md §3 rule)."""
    return stable_iterations(own, size)[-1]
