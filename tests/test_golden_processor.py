"""The golden processor (golden/processor.py), the model every simulated processor reply is
checked against: book while in book and no pass happened, else the golden search with the
processor's budget; a pass when nothing is legal."""

from golden.board import start_position
from golden.openings import book_move
from golden.othello import legal_moves, play
from golden.players import RandomPlayer
from golden.processor import BOOK, SEARCH, GoldenProcessor
from golden.referee import play_game
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
                                "cycles": expected.cycles, "value": expected.value}


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
