"""The searches the search benches run: directed cases (root windows, budgets that stop inside an
iteration, passes, finished games, and the corners the mutation score found), random midgames,
searches with a pass and a finished game inside the horizon, and endgames searched to the end,
in sizes from ``tiny`` to ``huge`` (SCALES)."""

import random

from golden.board import parse_board, popcount, start_position
from golden.othello import legal_moves
from golden.positions import random_game_positions
from golden.patterns import VALUE_MAX, VALUE_MIN, pattern_evaluate
from golden.search import LEAF, MINUS_INFINITY, PLUS_INFINITY, SCORINGS, TERMINAL, search
from tb.checks.search import WLD_WINDOW, SearchCase

SCALES = {
    # depth and number of random-play searches, searches with a budget that stops inside an
    # iteration, searches with a pass and a finished game inside the horizon, endgames
    # (number, empties) searched to the end, solves (number, empties: solve_cases), and long searches of the depth limit 16 with a budget
    # of ``long_budget`` cycles (deep iterations, killers of many plies)
    "tiny": {"windows": 0, "depth": 2, "random": 1, "budgeted": 1, "passes": 1, "endgames": 1, "empties": 3, "solves": 2, "solve_empties": 4, "long": 0},
    "small": {"windows": 1, "depth": 3, "random": 3, "budgeted": 2, "passes": 2, "endgames": 2, "empties": 5, "solves": 3, "solve_empties": 5, "long": 0},
    "medium": {"windows": 2, "depth": 4, "random": 6, "budgeted": 3, "passes": 3, "endgames": 3, "empties": 7, "solves": 4, "solve_empties": 7, "long": 0},
    "large": {"windows": 4, "depth": 5, "random": 12, "budgeted": 6, "passes": 6, "endgames": 6, "empties": 8, "solves": 8, "solve_empties": 10, "long": 4,
              "long_budget": 250_000},
    # the default regression's Verilator set: large's with a third of its random depth-5 searches
    # and one of its long ones (a long search's 250k cycles of nodes, each checked, are most of large's time)
    "regression": {"windows": 2, "depth": 5, "random": 4, "budgeted": 6, "passes": 6, "endgames": 6, "empties": 8, "solves": 8, "solve_empties": 10, "long": 1,
                   "long_budget": 250_000},
    "huge": {"depth": 6, "random": 12, "budgeted": 6, "passes": 6, "endgames": 6, "empties": 10, "solves": 8, "solve_empties": 12, "long": 10,
             "long_budget": 1_000_000},
}


def random_midgames(rng, count, low=8, high=40):
    """Positions from random games, ``low``..``high`` discs, with a legal move."""
    out = []
    while len(out) < count:
        game = random_game_positions(rng)
        candidates = [p for p in game if low <= popcount(p.black | p.white) <= high
                      and legal_moves(p.own, p.opp)]
        if candidates:
            out.append(rng.choice(candidates))
    return out


def endgames(rng, count, empties):
    """Positions from random games with exactly ``empties`` empty squares, game not over."""
    out = []
    while len(out) < count:
        for p in random_game_positions(rng):
            if 64 - popcount(p.black | p.white) == empties and (
                    legal_moves(p.own, p.opp) or legal_moves(p.opp, p.own)):
                out.append(p)
                break
    return out


def finished(node):
    """A node of the trace whose game is over (searched as terminal, or a leaf at the end)."""
    pos = node.position
    return not legal_moves(pos.own, pos.opp) and not legal_moves(pos.opp, pos.own)


def with_pass_or_end(rng, count, depth):
    """Random-game positions whose depth-``depth`` tree holds both a pass and a finished game."""
    out = []
    while len(out) < count:
        for p in random_game_positions(rng)[-14:]:
            if finished_position(p):
                continue
            trace = search(p, depth).trace
            if any(n.ply > 0 and n.move is None for n in trace) and any(finished(n) for n in trace):
                out.append(p)
                break
    return out


def finished_position(p):
    return not legal_moves(p.own, p.opp) and not legal_moves(p.opp, p.own)


def budget_in_terminal_evaluation(position, depth, weights=None):
    """A search of ``position`` whose budget expires while a finished game inside the tree (a
    terminal node of iteration 2 or later) is being evaluated: the engine waits for its own
    evaluator then, the one control state no other budget stops it in. ``weights``: the pattern
    evaluator's (the engine search_pattern), or None for the seed's."""
    node = next(n for n in search(position, depth, pattern=weights).trace
                if n.kind == TERMINAL and n.ply and n.iteration > 1)
    budget = node.generated + 2   # the node is visited in the cycle after it is generated and answers later
    return SearchCase(position, depth, budget, f"budget {budget} expires while a finished game at ply "
                                               f"{node.ply} is evaluated (iteration {node.iteration})",
                      evaluator="seed" if weights is None else "pattern")


# A root whose child H2 ends the game (directed_cases: the terminal child ties or cuts the root)
GAME_ENDING_CHILD = "OOOOOOO-OOXXXXX-OOOOOOXOOOOOOXXOOOOOOOXOOOOXXXXOOOOOOOOOOOOOOOOO O"


def directed_cases():
    black_start = start_position()
    cases = [SearchCase(black_start, d, None, f"start position, depth {d}") for d in (1, 2, 3)]
    # Depth 1 prefers C4, which is not the first legal move in the static order: iteration 2
    # must start from it (the PV), then E6 wins at depth 3.
    pv_not_first = parse_board("---------O---O---XOX-O-----OXO-----XOX-------OX----------------- X")
    cases.append(SearchCase(pv_not_first, 3, None, "PV move is not the first in static order"))
    cases.append(SearchCase(black_start, 6, 200, "start position, depth 6, budget 200 (stops in iteration 4)"))
    cases.append(SearchCase(black_start, 6, 30, "start position, budget 30 (stops in iteration 3)"))
    # A budget that runs out inside iteration 2 (every other budgeted search stops in iteration 3
    # or later, so only this one catches an engine that does not stop iteration 2), and one
    # smaller than iteration 1, which must complete anyway (only this one catches an engine that
    # applies the budget to iteration 1).
    cases.append(SearchCase(black_start, 6, 12, "start position, budget 12 (stops in iteration 2)"))
    cases.append(SearchCase(black_start, 6, 2, "start position, budget 2 (iteration 1 completes anyway)"))
    # The side to move cannot move and the opponent's one move is A1 (square 0, the legal
    # vector 1): a pass, then a single move, then the end of the game. Nothing else gives a
    # legal vector of exactly 1, so only this case catches an engine that tests "!= 1" for "any move".
    only_a1 = parse_board("-XOOOOOO" + "-" * 56 + " X")
    cases.append(SearchCase(only_a1, 3, None, "root must pass, the opponent's one move is A1"))
    # The root's pass as the answer of iteration 1 (the pass leaf raises the root's alpha), as
    # the leaf that cuts the root off in iteration 1, as the child whose value cuts it off in a
    # later iteration, and as the root's only move when it fails low: the four ways the
    # answer's pass flag is made, each checked by one case.
    cases.append(SearchCase(only_a1, 1, None, "root must pass, depth 1"))
    cases.append(SearchCase(only_a1, 1, None, "root must pass, depth 1, the pass leaf cuts the root off",
                            alpha=-20, beta=-13))
    cases.append(SearchCase(only_a1, 3, None, "root must pass, the pass child cuts the root off in iteration 2",
                            alpha=-20, beta=-10))
    cases.append(SearchCase(only_a1, 2, None, "root must pass, and the pass fails low", alpha=-5, beta=0))
    # A root child that ends the game (H2) and whose value ties the root's alpha exactly: only a
    # terminal child's value is not held inside its window, so only it can tie; with the null
    # window (51, 52) nothing raises the root's alpha and the first move, H1, stays the answer.
    tie = parse_board(GAME_ENDING_CHILD)
    cases.append(SearchCase(tie, 2, None, "a game-ending root child ties the root's alpha", alpha=51, beta=52))
    # The same child, reached second in iteration 2 (the PV H1 fails low), now over the root's
    # beta (45, 50): a terminal node at level 1 whose own value cuts the root off, the one
    # return whose cut-off compares the evaluator's value (rtl/search.py leaving_fold).
    cases.append(SearchCase(tie, 2, None, "a game-ending root child cuts the root off", alpha=45, beta=50))
    cases.append(budget_in_terminal_evaluation(tie, 3))
    # Passes and killer moves: at depth 4 from this endgame passes cut nodes off (a pass leaf
    # at the frontier, and a pass child's returned value above it) at levels whose killer is
    # set, and later nodes of those levels have the killer legal: a pass is never a killer, so
    # the killer must stay. An engine that stores the pass's square (A1) as the killer there
    # tries the moves in another order.
    pass_killers = parse_board("--X-XXX--X--XXX-XXXXXOXXXX-XXOXX-XXXXXOX--XXXXXXOOXOXXXXOOOXXX-O O")
    cases.append(SearchCase(pass_killers, 4, None, "a pass cuts off its parent where a killer is set"))
    # A level-3 node that returns to level 2 without a cut-off, as the last child of a level-2
    # node that then returns to level 1, under a root whose alpha is set: level 1 must keep its
    # beta (minus the root's alpha, from the stack) for its next children, which cut on it. An
    # engine that loses the root's alpha there searches every other case the same.
    keeps_beta = parse_board("XXXXXXX-XXOOXX-XXXOXXXOX-XOXXXXXXXOXOOOOOXXXOXOXOXXXOOXXOOOOO-XX X")
    cases.append(SearchCase(keeps_beta, 4, None, "level 1 keeps its beta after a level-3 return"))
    # A pass at the root: white cannot move, black can.
    root_pass = parse_board("XXXXXXXX" * 7 + "XXXXXO-- O")
    cases.append(SearchCase(root_pass, 4, None, "root must pass", exact=True))
    over = parse_board("X" * 63 + "- X")
    cases.append(SearchCase(over, 2, None, "game over at the root", exact=True))
    return cases + window_cases(black_start, 3) + window_cases(pv_not_first, 4)


def window_cases(position, depth, label=""):
    """The root windows a host hands an engine (docs/spec.md §12) around the position's true value v:
    null windows just below, at and above v (fail high, exact boundary, fail low), a narrow
    window holding v, one wholly above (every move fails low) and one wholly below (the first
    move cuts the root off)."""
    v = search(position, depth).value
    windows = [(v - 1, v), (v, v + 1), (v - 2, v + 2), (v + 1, v + 9), (v - 9, v - 1), (MINUS_INFINITY, v),
               (v, PLUS_INFINITY)]
    return [SearchCase(position, depth, None, f"{label or 'root window'} ({a}, {b}) around the value {v}",
                       alpha=a, beta=b)
            for a, b in windows if MINUS_INFINITY <= a < b <= PLUS_INFINITY]


def random_cases(seed, scale):
    rng = random.Random(seed)
    size = SCALES[scale]
    cases = [SearchCase(p, size["depth"], None, f"random play #{i} (seed {seed}), depth {size['depth']}")
             for i, p in enumerate(random_midgames(rng, size["random"]))]
    cases += [SearchCase(p, size["depth"] + 2, 300 + 200 * i,
                         f"random play #{i} (seed {seed}), budget {300 + 200 * i} cycles")
              for i, p in enumerate(random_midgames(rng, size["budgeted"]))]
    cases += [SearchCase(p, 4, None, f"pass and game over within the horizon #{i} (seed {seed})")
              for i, p in enumerate(with_pass_or_end(rng, size["passes"], 4))]
    cases += [SearchCase(p, 16, size["long_budget"], f"random play #{i} (seed {seed}), "
                         f"budget {size['long_budget']:,} cycles")
              for i, p in enumerate(random_midgames(rng, size["long"], low=20))]
    for i, p in enumerate(random_midgames(rng, size.get("windows", 0))):
        cases += window_cases(p, size["depth"], f"random play #{i} (seed {seed}), root window")
    return cases


AIMED_RANDOM_ROOTS = 16   # random occupancies among the aimed searches


def aimed_cases(seed):
    """Searches of boards no game reaches, aimed at cells of the engine that game positions leave
    idle (docs/spec.md §7: the root is any board). For every square and capture length, black to
    move capturing that many discs (as many as the ray allows) in every direction from the square,
    searched to depth 1: the flipper relays every count across every cell of every ray, and the
    centre squares, never empty in a game, are empty and legal; the same boards with white to move,
    whose opponent has those captures. Then random occupancies to depth 2, whose leaves show the
    move checkers and the evaluator empty centres and long lines."""
    from tb.checks.aimed import every_direction_capture_positions
    from tb.checks.directed import random_positions

    cases = [SearchCase(board, 1, None, name) for label, position in every_direction_capture_positions(8)
             for name, board in ((label, position), (f"{label}, white to move", position.swap_side()))]
    rng = random.Random(seed + 2000)
    roots = [p for _, p in random_positions("occupancy", rng, 4 * AIMED_RANDOM_ROOTS)
             if legal_moves(p.own, p.opp)][:AIMED_RANDOM_ROOTS]
    return cases + [SearchCase(p, 2, None, f"aimed: random occupancy #{i} (seed {seed}), depth 2")
                    for i, p in enumerate(roots)]


def deep_cases():
    """A narrow endgame searched to the depth limit 16: black has the moves and white mostly
    passes, so the tree reaches ply 16 in 13,198 nodes (47,262 cycles) and the stack's levels 12 to
    15 are pushed and left, which the regression's searches never do (their deepest iterations
    stop at 11)."""
    return [SearchCase(parse_board(NARROW_ENDGAME), 16, None, "aimed: a narrow endgame reaching ply 16")]


# Ten empties and three white discs: found by a random search for boards whose depth-16 tree
# reaches ply 16 in few nodes (aimed_cases).
NARROW_ENDGAME = "XXX-XXXXXXXXXXXXXXX-XO-XXXX--XXXOX-OXXXXXXXXXXXXXXXXXX-X-XXX-X-X X"


def endgame_cases(seed, scale):
    rng = random.Random(seed + 1000)
    empties = SCALES[scale]["empties"]
    return [SearchCase(p, min(16, 2 * empties), None,
                       f"endgame #{i} with {empties} empties (seed {seed}), searched to the end",
                       exact=True)
            for i, p in enumerate(endgames(rng, SCALES[scale]["endgames"], empties))]


def solve_case(position, label, scoring="plain", wld=False, budget=None):
    """A solve of the engine's solve mode, checked also against golden/solve.py (``exact``)."""
    alpha, beta = WLD_WINDOW if wld else (MINUS_INFINITY, PLUS_INFINITY)
    return SearchCase(position, 1, budget, label, exact=True, alpha=alpha, beta=beta, solve=scoring)


def with_pass_and_early_end(rng, count, empties):
    """Endgames of ``empties`` empties whose solve tree holds a pass and a game that ends with
    empty squares (where the two scorings differ)."""
    out = []
    while len(out) < count:
        for p in endgames(rng, 1, empties):
            trace = search(p, 1, solve="plain").trace
            if any(n.ply and n.move is None for n in trace) and any(
                    n.kind == TERMINAL and n.position.black | n.position.white != (1 << 64) - 1 for n in trace):
                out.append(p)
    return out


# Finished games at the root, each solved in both scorings (search.toml's solve_final_count at the
# root): over with 48 empties, the rows too far apart for a capture (+1 plain, +50 to the winner, and
# from the other side -1 and -50); the same with 7 discs each (a draw with empties: 0 in both
# scorings); a full board 32-32 (a draw) and 33-31.
FINISHED_GAMES = {"game over with empties, won": "OOOOOOO-" + "-" * 48 + "XXXXXXXX X",
                  "game over with empties, lost": "OOOOOOO-" + "-" * 48 + "XXXXXXXX O",
                  "game over with empties, drawn": "OOOOOOO-" + "-" * 48 + "XXXXXXX- X",
                  "full board, drawn": "XO" * 32 + " X",
                  "full board, won": "X" * 33 + "O" * 31 + " X",
                  "full board, lost": "X" * 33 + "O" * 31 + " O"}
# Three empties: after H1 and F2 white cannot take the last empty, G1, which black then takes (a
# pass at the last empty square, ply 3 of the solve's first line). Found by a random search of
# 3-empty endgames for a pass at one empty below the root.
LAST_EMPTY_PASS = "XXXOOO--XXXXO-OXXOXXXOXXXXXXXXXXXXXXXOXOXXOXOXOOXXOOXOOOXXXXOOOO O"
WLD_OUTCOMES = ("win_cut_at_first_move", "win_cut_at_later_move", "draw", "loss")


def wld_outcome(position):
    """How a WLD solve of ``position`` ends at its root (search.toml's solve_wld_root), or None: a
    win cut off at the root's first move or at a later one (a root of two moves or more), a draw, a
    loss."""
    result = search(position, 1, alpha=WLD_WINDOW[0], beta=WLD_WINDOW[1], solve="plain")
    if result.value < 0:
        return "loss"
    if result.value == 0:
        return "draw"
    if bin(legal_moves(position.own, position.opp)).count("1") < 2:
        return None
    return f"win_cut_at_{'first' if sum(n.ply == 1 for n in result.trace) == 1 else 'later'}_move"


def wld_outcome_cases(rng, empties=4):
    """WLD solves of endgames of ``empties`` empties, one for each root outcome (WLD_OUTCOMES), in
    alternating scorings (the sign, and so the outcome, is the same in both)."""
    found = {}
    while len(found) < len(WLD_OUTCOMES):
        for p in endgames(rng, 1, empties):
            outcome = wld_outcome(p)
            if outcome is not None and outcome not in found:
                found[outcome] = p
    return [solve_case(found[outcome], f"solve: WLD, {empties} empties, the root's outcome {outcome.replace('_', ' ')}",
                       SCORINGS[i % 2], wld=True) for i, outcome in enumerate(WLD_OUTCOMES)]


def solve_directed_cases(seed):
    """The engine's solve mode (docs/spec.md §7), aimed at search.toml's solve points: finished games
    at the root (both scorings, full boards and games over with empties, won, lost and drawn), a
    pass at the root and one at the last empty square, budgets that abandon a solve (at once, and
    inside it), a solve abandoned at the deepest stack level (the start position: its first line
    reaches ply 31), and WLD solves of every root outcome."""
    early_end = parse_board(FINISHED_GAMES["game over with empties, won"])
    only_a1 = parse_board("-XOOOOOO" + "-" * 56 + " X")
    cases = [solve_case(parse_board(board), f"solve: {what} at the root", scoring)
             for what, board in FINISHED_GAMES.items() for scoring in SCORINGS]
    cases += [solve_case(only_a1, "solve: root must pass, the opponent's one move is A1", "winner"),
              solve_case(parse_board(LAST_EMPTY_PASS), "solve: a pass at the last empty square, 3 empties"),
              solve_case(only_a1, "solve: budget 0 abandons the solve", budget=0),
              solve_case(early_end, "solve: budget 0 abandons even a finished game", budget=0),
              solve_case(start_position(), "solve: the start position, abandoned at the deepest stack level")]
    first = with_pass_and_early_end(random.Random(seed + 3200), 1, 4)[0]
    cases.append(solve_case(first, "solve: budget 9 abandons the solve inside the tree", budget=9))
    return cases + wld_outcome_cases(random.Random(seed + 3100))


def solve_cases(seed, scale):
    """The engine's solve mode (docs/spec.md §7): endgames of the scale's empties with a pass and an
    early end in their trees, in both scorings, exact and win/loss/draw."""
    rng = random.Random(seed + 3000)
    size = SCALES[scale]
    cases = []
    for i, p in enumerate(with_pass_and_early_end(rng, size["solves"], size["solve_empties"])):
        scoring, wld = SCORINGS[i % 2], bool(i // 2 % 2)
        cases.append(solve_case(p, f"solve #{i} (seed {seed}), {size['solve_empties']} empties, a pass and an "
                                   f"early end in the tree, {scoring} scoring{', WLD' if wld else ''}", scoring, wld))
    return cases


def deep_solve_cases():
    """Solves whose stack goes below level 16, which no depth-limited search reaches: the narrow
    endgame (deep_cases), both scorings, exact and WLD."""
    return [solve_case(parse_board(NARROW_ENDGAME), f"solve: the narrow endgame, {scoring}{', WLD' if wld else ''}",
                       scoring, wld) for scoring in SCORINGS for wld in (False, True)]


def pattern_directed_cases(seed, weights):
    """The engine with the pattern evaluator (design search_pattern), aimed at search_pattern.toml
    with any weight file ``weights`` (golden.patterns.PatternWeights): depth-1 searches, whose root
    children are all leaves, of roots one disc below each stage limit and at it (leaves at both
    sides of the limit) and of the game positions before boards whose pattern sum leaves
    -256..255 each way (a saturated leaf); finished boards of 64 discs of either side at the root
    (4 x the disc difference at both ends of the range); and budgets that expire while a finished
    game inside the tree is evaluated and in each of the two cycles a leaf's evaluation is awaited
    (docs/pattern-evaluator.md, "The schedule")."""
    rng = random.Random(seed + 4600)
    cases = []
    wanted = {discs: limit for limit in weights.stage_limits for discs in (limit - 1, limit)}
    saturating = {}
    for _ in range(400):
        game = random_game_positions(rng)
        for before, position in zip(game, game[1:]):
            discs = popcount(before.black | before.white)
            if discs in wanted and legal_moves(before.own, before.opp):
                limit = wanted.pop(discs)
                side = "at" if discs < limit else "above"
                cases.append(SearchCase(before, 1, None, f"pattern: leaves {side} the stage limit {limit} "
                                                         f"({discs + 1} discs), depth 1", evaluator="pattern"))
            if finished_position(position):
                continue
            raw = pattern_evaluate(position, weights).raw
            for sign, beyond in (("+", raw > VALUE_MAX), ("-", raw < VALUE_MIN)):
                if beyond and sign not in saturating:
                    saturating[sign] = SearchCase(before, 1, None, f"pattern: a leaf whose sum {raw} saturates "
                                                                   f"{sign}, depth 1", evaluator="pattern")
        if not wanted and len(saturating) == 2:
            break
    cases += saturating.values()
    cases += [SearchCase(parse_board("X" * 64 + f" {side}"), 1, None, f"pattern: 64 black discs at the root, "
                         f"{'black' if side == 'X' else 'white'} to move", evaluator="pattern") for side in "XO"]
    cases.append(budget_in_terminal_evaluation(parse_board(GAME_ENDING_CHILD), 3, weights))
    start = start_position()
    leaf = next(n for n in search(start, 3, pattern=weights).trace if n.kind == LEAF and n.iteration > 1)
    cases += [SearchCase(start, 3, leaf.generated + wait, f"pattern: budget {leaf.generated + wait} expires in "
                                                          f"cycle {wait} of a leaf's evaluation", evaluator="pattern")
              for wait in (1, 2)]
    return cases
