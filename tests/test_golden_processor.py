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
    # Seed 171: the game of tb/test_processor.py's processor_pass test, which has passes.
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
