"""The golden processor (golden/processor.py), the model every simulated processor reply is
checked against: book while in book and no pass happened, else the golden search with the
processor's budget; a pass when nothing is legal."""

from golden.board import start_position
from golden.openings import book_move
from golden.othello import legal_moves, play
from golden.contest.players import RandomPlayer
from golden.processor import BOOK, SEARCH, GoldenProcessor
from golden.contest.referee import play_game
from golden.search import search


def test_opens_from_the_book_and_follows_it():
    processor = GoldenProcessor(budget=256)
    processor.reset("X")
    pos = start_position()
    first = processor.move(pos)
    assert first == book_move([]) and processor.info()["source"] == BOOK
    reply = book_move([first])
    second = processor.move(play(play(pos, first), reply))
    assert second == book_move([first, reply])


def test_leaves_the_book_for_the_search_with_its_budget():
    processor = GoldenProcessor(budget=300)
    processor.reset("X")
    pos = start_position()
    move = processor.move(pos)
    pos = play(pos, move)
    # An opponent move that no book line continues.
    off_book = next(m for m in range(64) if legal_moves(pos.own, pos.opp) >> m & 1
                    and book_move([move, m]) is None)
    pos = play(pos, off_book)
    answer = processor.move(pos)
    expected = search(pos, processor.depth_limit, 300)
    assert answer == expected.best
    assert processor.info() == {"source": SEARCH, "depth": expected.depth, "nodes": expected.nodes,
                                "cycles": expected.cycles, "value": expected.value, "solved": None}


def test_a_pass_is_the_search_answer_and_switches_the_book_off():
    # Seed 171: a game with passes of the processor without the endgame solve (solve_empties 0).
    processor = GoldenProcessor(budget=256)
    plies = []
    play_game(RandomPlayer(171), processor, on_move=lambda p, c, m, info: plies.append((c, m, info)))
    passes = [info for color, move, info in plies if color == "O" and move is None]
    assert passes and all(info["source"] == SEARCH for info in passes)   # the search said pass
    assert processor.passed and processor.book() is None


def test_whole_games_are_legal_and_info_is_consistent():
    for seed in range(3):
        for color in ("black", "white"):
            processor = GoldenProcessor(budget=128)
            black, white = (processor, RandomPlayer(seed)) if color == "black" else (RandomPlayer(seed), processor)
            infos = []
            result = play_game(black, white, on_move=lambda p, c, m, info: infos.append(info))
            assert result.reason == "end of game"
            assert result.black_discs + result.white_discs <= 64
            for info in infos:
                if info.get("source") == SEARCH:
                    assert info["depth"] >= 1 and info["cycles"] >= 1


def test_the_processor_never_has_to_pass_while_in_book():
    """Behind the waiver of rtl/processor.py:361 (``passed.next = 1`` on the processor's own pass
    mutated to 0): passed matters only in book, so that mutant differs only if the processor
    passes while the openings table is still in book. Every state the processor can reach in
    book, the referee trusted as the processor trusts it: the opponent plays any legal move that
    continues a book line (any other leaves the book for good), RR comes at any time once the
    colour is known (the processor does not check it), the processor plays the book move while
    no pass happened and, after one, any legal move (a superset of what a search with any budget
    can choose). In none of them is the processor without a legal move."""
    from golden.board import squares_of
    from golden.openings import book_lines
    from golden.othello import flips

    children = {}
    for line in book_lines():
        for n in range(len(line)):
            children.setdefault(tuple(line[:n]), set()).add(line[n])

    def play_on(own, opp, move):
        flipped = flips(own, opp, move)
        assert flipped
        return own | flipped | 1 << move, opp & ~flipped

    def think(own, opp, history, passed):
        """The processor's decisions here: [(own, opp, history after its move)]."""
        if history not in children:
            return []   # out of book: in book never again in this game
        if not passed:
            move = book_move(list(history))
            return [(*play_on(own, opp, move), history + (move,), False)]
        moves = squares_of(legal_moves(own, opp))
        assert moves, f"the processor must pass in book after {history}"
        return [(*play_on(own, opp, m), history + (m,), True) for m in moves]

    start = start_position()
    todo = think(start.black, start.white, (), False)              # YY: the processor is black
    for move in children[()]:                                      # a move: it is white
        opp, own = play_on(start.black, start.white, move)
        todo += think(own, opp, (move,), False)
    seen = set()
    while todo:
        state = todo.pop()
        if state in seen:
            continue
        seen.add(state)
        own, opp, history, passed = state
        todo += think(own, opp, history, True)                     # RR
        for move in children.get(history, ()):
            if flips(opp, own, move):
                new_opp, new_own = play_on(opp, own, move)
                todo += think(new_own, new_opp, history + (move,), passed)
    assert len(seen) > 500, len(seen)


def endgame_positions(count, empties, seed=1):
    """Positions with ``empties`` empty squares from random games (the side to move has a move)."""
    import random

    from golden.board import popcount
    from golden.othello import pass_move

    rng, found = random.Random(seed), []
    while len(found) < count:
        position = start_position()
        while 64 - popcount(position.black | position.white) > empties:
            moves = legal_moves(position.own, position.opp)
            if not moves:
                if not legal_moves(position.opp, position.own):
                    break
                position = pass_move(position)
                continue
            position = play(position, rng.choice([s for s in range(64) if moves >> s & 1]))
        if 64 - popcount(position.black | position.white) == empties and legal_moves(position.own, position.opp):
            found.append(position)
    return found


def test_an_endgame_is_solved_exactly_and_the_played_value_is_the_golden_solvers():
    from golden.processor import EXACT
    from golden.solve import solve

    for position in endgame_positions(6, 8):
        processor = GoldenProcessor(budget=None, solve_empties=8)
        move = processor.search_position(position)
        oracle = solve(position, scoring="plain")   # an independent solver (golden/solve.py)
        assert (move.solved, move.value) == (EXACT, oracle.score), position.text()
        after = play(position, move.best)       # the move played reaches the solved value
        assert -solve(after, scoring="plain").score == oracle.score
        wld, exact = move.runs
        assert (wld.value > 0) - (wld.value < 0) == (oracle.score > 0) - (oracle.score < 0)
        assert move.cycles == wld.cycles + exact.cycles and move.nodes == wld.nodes + exact.nodes


def test_the_budget_is_shared_by_the_runs_and_an_abandoned_solve_falls_back():
    from golden.processor import WLD

    position = endgame_positions(1, 10, seed=3)[0]
    unlimited = GoldenProcessor(budget=None, solve_empties=10).search_position(position)
    wld_cycles, exact_cycles = (run.cycles for run in unlimited.runs)
    # the exact solve abandoned: the WLD solve's move, its value, the whole budget spent
    budget = wld_cycles + exact_cycles // 2
    move = GoldenProcessor(budget=budget, solve_empties=10).search_position(position)
    assert (move.solved, move.best, move.value) == (WLD, unlimited.runs[0].best, unlimited.runs[0].value)
    assert move.runs[1].aborted and move.cycles == budget
    # the WLD solve abandoned: the midgame search with what is left (here nothing: iteration 1 alone)
    move = GoldenProcessor(budget=wld_cycles - 1, solve_empties=10).search_position(position)
    assert move.solved is None and move.runs[0].aborted and move.runs[1].depth == 1
    assert move.runs[1].cycles == search(position, 16, 0).cycles
    # at E empties or fewer only: a position with more empties is a midgame search
    from golden.processor import MoveSearch
    midgame = GoldenProcessor(budget=None, depth_limit=2, solve_empties=9).search_position(position)
    assert not isinstance(midgame, MoveSearch) and midgame.depth == 2
