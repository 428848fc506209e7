"""The exact endgame solver of the golden side: the final disc difference of a position under
perfect play by both sides (exact), or only its sign (win/loss/draw, WLD), with the best move
and the number of nodes visited.

It shares nothing with the search engine (golden/search.py and the RTL): no evaluator, no depth
limit, no cycle schedule. A fail-soft negamax alpha-beta over a list of empty squares:

- **Scoring.** ``plain`` counts discs only (own - opp, empty squares not counted): the
  processor's final value. ``winner`` gives the empty squares of a game that ends early to the
  winner, as the FFO test, Edax and Zebra score (a draw stays 0).
- **Passes.** A side without a move passes (the position with the other side to move is a node
  of its own); the game ends when neither side can move, with empty squares or without.
- **Move ordering** (:data:`ORDERINGS`): ``none`` tries the empty squares in index order A1..H8;
  ``static`` in the engine's static order (golden.ordering: corners first, X-squares last);
  ``parity`` as static, but the squares of quadrants with an odd number of empties first;
  ``fastest`` the move leaving the opponent the fewest replies first, at every node of three
  empties or more (fastest-first); ``mobility`` as fastest, a corner reply counted twice
  (weighted mobility, as Edax weighs it); ``fastest+parity`` and ``mobility+parity`` (the
  default) order so at :data:`FASTEST_MIN_EMPTIES` empties or more and by parity below. NegaScout (a null window for
  every move after the first, searched again when it fails high) goes with fastest-first
  (``negascout=False``: plain alpha-beta there too).
- **The last empties** (``last``): 2 (the default) solves a position with two empty squares in
  one step that counts flips, 1 one empty square, 0 visits every position down to the full
  board. A node is a position the solver visits; the positions such a step only counts are
  not nodes, which is what the hardware's dedicated step would save.

WLD searches the null window around 0 (alpha -1, beta 1): the value's sign is exact there.

Bitboards are the golden model's (A1 bit 0 .. H8 bit 63). Under PyPy the bit operations run on
signed machine words (golden.words), as the search does: once the JIT has warmed up (a few
CPU seconds) the solver visits about ten times as many nodes a second as under CPython.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from golden import ordering, words
from golden.board import BoardError, Position, square_name
from golden.othello import flips_8x8_unchecked, legal_moves_8x8

if words.NATIVE:
    legal_moves, flips, popcount = words.legal_moves, words.flips, words.popcount
    to_bits = words.to_word
    BIT = tuple(words.bit(square) for square in range(64))
else:
    legal_moves, flips = legal_moves_8x8, flips_8x8_unchecked

    def popcount(bitboard: int) -> int:
        return bin(bitboard).count("1")

    def to_bits(bitboard: int) -> int:
        return bitboard

    BIT = tuple(1 << square for square in range(64))

SCORINGS = ("plain", "winner")
ORDERINGS = ("none", "static", "parity", "fastest", "mobility", "fastest+parity", "mobility+parity")
MOBILITY_ORDERINGS = ("fastest", "mobility", "fastest+parity", "mobility+parity")   # fastest-first and NegaScout
CORNER_BITS = to_bits(ordering.CORNER_MASK)
DEFAULT_ORDERING = "mobility+parity"
FASTEST_MIN_EMPTIES = 6   # fastest-first at this many empties or more, parity below (measured: docs/solve.md)
# quadrant of each square: bit 0 a1-d4, bit 1 e1-h4, bit 2 a5-d8, bit 3 e5-h8
QUADRANT = tuple(1 << ((square // 8 >= 4) * 2 + (square % 8 >= 4)) for square in range(64))
INFINITY = 65


@dataclass(frozen=True)
class Solution:
    """A solved position: ``score`` the exact disc difference for the side to move (or -1/0/1
    for WLD), ``best`` the best move (None when the side to move must pass or the game is over),
    ``nodes`` the positions visited, ``replies_counted`` the children whose replies fastest-first
    counted to order their moves (the ordering's own cost: one mobility count each)."""

    score: int
    best: Optional[int]
    nodes: int
    empties: int
    wld: bool
    scoring: str
    replies_counted: int = 0
    score_is_final: bool = False   # no move for either side: best_name "--" rather than "PASS"

    @property
    def best_name(self) -> str:
        """The best move as the FFO files write it (``G8``), ``PASS`` or ``--`` (game over)."""
        if self.best is None:
            return "--" if self.score_is_final else "PASS"
        return square_name(self.best)


def final_score(own_count: int, opp_count: int, scoring: str) -> int:
    """The value of a finished game for the side owning ``own_count`` discs."""
    difference = own_count - opp_count
    if scoring == "plain" or difference == 0:
        return difference
    empties = 64 - own_count - opp_count
    return difference + empties if difference > 0 else difference - empties


def make_search(scoring: str = "plain", order: str = DEFAULT_ORDERING, last: int = 2,
                fastest_min: int = FASTEST_MIN_EMPTIES, negascout: bool = True):
    """The solver's recursive search for one configuration: ``search(own, opp, empties, alpha,
    beta, parity)`` -> value (fail-soft), and ``counter``, [nodes visited, children whose replies
    fastest-first counted].
    ``empties`` is the list of empty squares in the ordering's static order, ``parity`` the
    quadrants (QUADRANT bits) with an odd number of them."""
    if scoring not in SCORINGS:
        raise BoardError(f"scoring must be one of {', '.join(SCORINGS)}, got {scoring!r}")
    if order not in ORDERINGS:
        raise BoardError(f"ordering must be one of {', '.join(ORDERINGS)}, got {order!r}")
    if last not in (0, 1, 2):
        raise BoardError(f"last must be 0, 1 or 2, got {last!r}")
    if not isinstance(fastest_min, int) or not 3 <= fastest_min <= 65:
        raise BoardError(f"fastest_min must be 3..65 empties, got {fastest_min!r}")
    use_parity = order.endswith("parity")
    if order in ("fastest", "mobility"):
        fastest_min = 3
    elif order not in MOBILITY_ORDERINGS:
        fastest_min = 65
    weighted = order.startswith("mobility")
    counter = [0, 0]
    quadrant = QUADRANT

    def final(own, opp):
        return final_score(popcount(own), popcount(opp), scoring)

    def last_one(own, opp, square):
        """The exact value of a position with one empty square: flips counted, no node visited."""
        move = BIT[square]
        flipped = flips(own, opp, move)
        if flipped:
            return popcount(own) - popcount(opp) + 1 + 2 * popcount(flipped)
        flipped = flips(opp, own, move)
        if flipped:
            return popcount(own) - popcount(opp) - 1 - 2 * popcount(flipped)
        return final(own, opp)

    def last_two(own, opp, first, second, alpha, beta):
        """A position with two empty squares (one node): each move answered by last_one."""
        best = -INFINITY
        for square, other in ((first, second), (second, first)):
            move = BIT[square]
            flipped = flips(own, opp, move)
            if flipped:
                value = -last_one(opp & ~flipped, own | flipped | move, other)
                if value > best:
                    best = value
                    if value >= beta:
                        return value
        if best > -INFINITY:
            return best
        for square, other in ((first, second), (second, first)):   # a pass: the opponent's moves
            move = BIT[square]
            flipped = flips(opp, own, move)
            if flipped:
                value = last_one(own & ~flipped, opp | flipped | move, other)
                if value < best or best == -INFINITY:
                    best = value
                    if value <= alpha:
                        return value
        return final(own, opp) if best == -INFINITY else best

    def search(own, opp, empties, alpha, beta, parity):
        counter[0] += 1
        count = len(empties)
        if count <= last:
            if count == 2:
                return last_two(own, opp, empties[0], empties[1], alpha, beta)
            if count == 1:
                return last_one(own, opp, empties[0])
        if count == 0:
            return final(own, opp)
        if count >= fastest_min:
            return search_fastest(own, opp, empties, alpha, beta, parity)
        best = -INFINITY
        if use_parity and parity:
            walk = [s for s in empties if quadrant[s] & parity] + [s for s in empties if not quadrant[s] & parity]
        else:
            walk = empties
        for square in walk:
            move = BIT[square]
            flipped = flips(own, opp, move)
            if not flipped:
                continue
            value = -search(opp & ~flipped, own | flipped | move, [s for s in empties if s != square],
                            -beta, -alpha, parity ^ quadrant[square])
            if value > best:
                best = value
                if value > alpha:
                    if value >= beta:
                        return value
                    alpha = value
        if best == -INFINITY:
            if legal_moves(opp, own):
                return -search(opp, own, empties, -beta, -alpha, parity)
            return final(own, opp)
        return best

    def search_fastest(own, opp, empties, alpha, beta, parity):
        moves = legal_moves(own, opp)
        if not moves:
            if legal_moves(opp, own):
                return -search(opp, own, empties, -beta, -alpha, parity)
            return final(own, opp)
        children = []
        for index, square in enumerate(empties):
            move = BIT[square]
            if moves & move:
                flipped = flips(own, opp, move)
                child_own, child_opp = opp & ~flipped, own | flipped | move
                replies = legal_moves(child_own, child_opp)
                key = popcount(replies) + popcount(replies & CORNER_BITS) if weighted else popcount(replies)
                children.append((key, index, square, child_own, child_opp))
        counter[1] += len(children)
        children.sort()
        best = -INFINITY
        for replies, index, square, child_own, child_opp in children:
            rest = empties[:index] + empties[index + 1:]
            child_parity = parity ^ quadrant[square]
            if best == -INFINITY or not negascout:
                value = -search(child_own, child_opp, rest, -beta, -alpha, child_parity)
            else:   # NegaScout: prove the move no better than alpha with a null window first
                value = -search(child_own, child_opp, rest, -alpha - 1, -alpha, child_parity)
                if alpha < value < beta:
                    value = -search(child_own, child_opp, rest, -beta, -value, child_parity)
            if value > best:
                best = value
                if value > alpha:
                    if value >= beta:
                        return value
                    alpha = value
        return best

    return search, counter


def empties_in_order(empty: int, order: str) -> list:
    """The empty squares of bitboard ``empty`` in the static order the ordering starts from."""
    sequence = range(64) if order == "none" else ordering.STATIC_ORDER
    return [square for square in sequence if empty >> square & 1]


def solve(pos: Position, wld: bool = False, scoring: str = "plain", order: str = DEFAULT_ORDERING,
          last: int = 2, fastest_min: int = FASTEST_MIN_EMPTIES, negascout: bool = True,
          on_root_move=None) -> Solution:
    """Solve ``pos`` (8x8): exact, or with ``wld`` win/loss/draw (score -1, 0 or 1).
    ``on_root_move(done, total, best, nodes)``, when given, is called after each root move is
    searched (``best`` the best root move so far): the progress of a long solve."""
    if pos.size != 8:
        raise BoardError(f"the solver plays the 8x8 board, got {pos.size}x{pos.size}")
    search, counter = make_search(scoring, order, last, fastest_min, negascout)
    empties = empties_in_order(pos.empty, order)
    parity = 0
    for square in empties:
        parity ^= QUADRANT[square]
    own, opp = to_bits(pos.own), to_bits(pos.opp)
    alpha, beta = (-1, 1) if wld else (-INFINITY, INFINITY)
    counter[0] = 1   # the root
    moves = legal_moves(own, opp)
    fastest = order in MOBILITY_ORDERINGS   # as below the root: NegaScout too
    weighted = order.startswith("mobility")
    best_move = None
    if not moves:
        over = not legal_moves(opp, own)
        value = (final_score(popcount(own), popcount(opp), scoring) if over
                 else -search(opp, own, empties, -beta, -alpha, parity))
        return Solution(sign(value) if wld else value, None, counter[0], len(empties), wld, scoring,
                        counter[1], score_is_final=over)
    children = []
    for index, square in enumerate(empties):
        move = BIT[square]
        if moves & move:
            flipped = flips(own, opp, move)
            child_own, child_opp = opp & ~flipped, own | flipped | move
            if fastest:
                replies = legal_moves(child_own, child_opp)
                key = popcount(replies) + (popcount(replies & CORNER_BITS) if weighted else 0)
                counter[1] += 1
            else:
                key = 0 if order.endswith("parity") and QUADRANT[square] & parity else 1
            children.append((key, index, square, child_own, child_opp))
    children.sort()
    best = -INFINITY
    for done, (replies, index, square, child_own, child_opp) in enumerate(children, 1):
        rest = empties[:index] + empties[index + 1:]
        child_parity = parity ^ QUADRANT[square]
        if best == -INFINITY or not (fastest and negascout):
            value = -search(child_own, child_opp, rest, -beta, -alpha, child_parity)
        else:
            value = -search(child_own, child_opp, rest, -alpha - 1, -alpha, child_parity)
            if alpha < value < beta:
                value = -search(child_own, child_opp, rest, -beta, -value, child_parity)
        if value > best:
            best, best_move = value, square
        if on_root_move:
            on_root_move(done, len(children), best_move, counter[0])
        if value > alpha:
            if value >= beta:
                break
            alpha = value
    return Solution(sign(best) if wld else best, best_move, counter[0], len(empties), wld, scoring, counter[1])


def sign(value: int) -> int:
    """1, 0 or -1: the win/loss/draw of a score."""
    return (value > 0) - (value < 0)


def solve_request(request: dict, on_root_move=None) -> dict:
    """One request of :func:`main`: {"board", "wld", "scoring", "ordering", "last", "fastest_min",
    "negascout"} -> the solution as a JSON-ready dict, with the CPU seconds it took."""
    import time

    from golden.board import parse_board

    position = parse_board(request["board"])
    started = time.process_time()
    solution = solve(position, request.get("wld", False), request.get("scoring", "plain"),
                     request.get("ordering", DEFAULT_ORDERING), request.get("last", 2),
                     request.get("fastest_min", FASTEST_MIN_EMPTIES), request.get("negascout", True),
                     on_root_move)
    return {"score": solution.score, "best": solution.best_name, "nodes": solution.nodes,
            "replies_counted": solution.replies_counted,
            "empties": solution.empties, "seconds": round(time.process_time() - started, 3)}


def main() -> int:
    """``python -m golden.solve``: one JSON request a line on stdin (:func:`solve_request`), one
    JSON answer a line on stdout, in order, each after a line {"progress": [done, total, best,
    nodes]} per root move searched; a bad request answers {"error": ...}. gamechip solve runs it
    under PyPy when installed (tb.checks.search.golden_python)."""
    import json
    import platform
    import sys

    def progress(done, total, best, nodes):
        print(json.dumps({"progress": [done, total, square_name(best), nodes]}), flush=True)

    for line in sys.stdin:
        try:
            answer = solve_request(json.loads(line), progress)
        except (BoardError, KeyError, TypeError, ValueError) as error:
            answer = {"error": f"{type(error).__name__}: {error}"}
        answer["interpreter"] = platform.python_implementation()
        print(json.dumps(answer), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
