"""The pattern evaluator's training (gamechip/train): a tiny corpus played twice, with one and
with two processes, is the same file; fitted twice, the same weight file; the corpus's labels
are the games' results from each side to move's view."""

import json

import pytest

from gamechip.train.corpus import CorpusError, CorpusSettings, game_lines, game_positions, play_corpus, read_corpus
from gamechip.train.main import main as train_main
from golden.board import Position
from golden.patterns import check_symmetric, read_weights
from golden.solve import solve
from tb.checks.search import golden_python

TINY = CorpusSettings(seed=5, games=4, depth=1, solve_empties=6)


@pytest.fixture(scope="module")
def tiny_corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("corpus")
    play_corpus(TINY, folder / "one.txt", 1, golden_python())
    play_corpus(TINY, folder / "two.txt", 2, golden_python())
    return folder


def test_the_corpus_does_not_depend_on_the_processes(tiny_corpus):
    one, two = (tiny_corpus / "one.txt").read_text(), (tiny_corpus / "two.txt").read_text()
    assert one == two and one.startswith(TINY.header())


@pytest.mark.full
def test_a_corpus_extends_a_smaller_one_to_the_same_file(tiny_corpus):
    from dataclasses import replace

    smaller = tiny_corpus / "smaller.txt"
    play_corpus(replace(TINY, games=2), smaller, 2, golden_python())
    play_corpus(TINY, tiny_corpus / "extended.txt", 2, golden_python(), played=game_lines(smaller))
    assert (tiny_corpus / "extended.txt").read_text() == (tiny_corpus / "one.txt").read_text()


def test_labels_are_exact_from_the_solve_point(tiny_corpus):
    """Positions from the solve point on lie on a perfect line: the exact solver gives each of
    them its label (an independent check of the worker's perfect play)."""
    _, games = read_corpus(tiny_corpus / "one.txt")
    checked = 0
    for game, _, solve_ply, score, moves in games:
        positions = game_positions(game, solve_ply, score, moves)
        assert all(abs(p.label) == abs(score) for p in positions)
        for position in positions:
            if position.exact:
                board = Position(position.own, position.opp, False)
                assert solve(board).score == position.label
                checked += 1
    assert checked >= len(games)


def test_the_same_corpus_fits_the_same_file(tiny_corpus, tmp_path):
    corpus = tiny_corpus / "one.txt"
    for name in ("a.txt", "b.txt"):
        assert train_main(["--games", "4", "--seed", "5", "--depth", "1", "--solve-empties", "6",
                           "--corpus", str(corpus), "--weights", str(tmp_path / name)]) == 0
    assert (tmp_path / "a.txt").read_text() == (tmp_path / "b.txt").read_text()
    weights = read_weights(tmp_path / "a.txt")
    assert check_symmetric(weights) == []
    assert any("sha256" in line for line in weights.provenance)


def test_a_bad_corpus_is_one_line(tmp_path, capsys):
    bad = tmp_path / "corpus.txt"
    bad.write_text(TINY.header() + "\n0\t4\t5\t3\tf5zz\n1\t2\t3\t4\tf5\n2\t1\t1\t1\tf5\n3\t1\t1\t1\tf5\n")
    with pytest.raises(CorpusError):
        read_corpus(bad)
    assert train_main(["--games", "4", "--seed", "5", "--depth", "1", "--solve-empties", "6",
                       "--corpus", str(bad), "--weights", str(tmp_path / "w.txt")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("python -m gamechip.train: ") and "line 2" in err[-1]


@pytest.mark.full
def test_strength_games_are_legal_and_counted(tmp_path, capsys):
    """One opening, both colours, depth 1: every game replays legally to its recorded discs, and
    the summary counts what the records say."""
    from gamechip.train.strength import main as strength_main
    from golden.board import parse_game_record, popcount, start_position
    from golden.othello import legal_moves, pass_move, play

    openings = tmp_path / "openings.txt"
    openings.write_text("f5d6c3d3c4f4  # one opening\n")
    out = tmp_path / "strength.json"
    assert strength_main(["--depth", "1", "--jobs", "2", "--openings", str(openings), "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert [(g["black"], g["white"]) for g in report["games"]] == [("pattern", "seed"), ("seed", "pattern")]
    wins = 0
    for game in report["games"]:
        pos = start_position()
        for move in parse_game_record(game["opening"] + game["moves"]):
            if not legal_moves(pos.own, pos.opp):
                pos = pass_move(pos)
            pos = play(pos, move)
        assert not legal_moves(pos.own, pos.opp) and not legal_moves(pos.opp, pos.own)
        assert (popcount(pos.black), popcount(pos.white)) == (game["black_discs"], game["white_discs"])
        wins += game["winner"] is not None and game[game["winner"]] == "pattern"
    assert report["summary"]["wins"] == wins and report["summary"]["games"] == 2
    assert "won " in capsys.readouterr().out


def test_bootstrapped_labels_follow_the_game(tiny_corpus):
    """gamechip.train.fit.bootstrap_labels, held against a plain walk along each game: exact
    labels stay; a position with no position ``width`` discs later in its game, or whose later
    position lies on the perfect line, keeps the game's result; the others are taught (with
    blend 0 they are the result again)."""
    from gamechip.train.fit import PatternSystem, bootstrap_labels

    _, games = read_corpus(tiny_corpus / "one.txt")
    positions = [p for game in games for p in game_positions(game[0], game[2], game[3], game[4])]
    discs = [bin(p.own | p.opp).count("1") for p in positions]
    columns = ([p.label for p in positions], [p.exact for p in positions], discs, [p.game for p in positions],
               [p.white_to_move for p in positions], [True] * len(positions))
    system = PatternSystem([p.own for p in positions], [p.opp for p in positions])
    width = 4
    taught = bootstrap_labels(system, *columns, width, 1.0, 4.0)
    assert list(bootstrap_labels(system, *columns, width, 0.0, 4.0)) == columns[0]
    kept = changed = 0
    for number, position in enumerate(positions):
        later = next((j for j in range(number + 1, len(positions))
                      if positions[j].game == position.game and discs[j] >= discs[number] + width), None)
        if position.exact or later is None or positions[later].exact:
            assert taught[number] == position.label, (number, position)
            kept += 1
        else:
            changed += taught[number] != position.label
    assert kept and changed
