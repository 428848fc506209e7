"""The corpus of self-play games (gamechip/train/selfplay.py), played by ``jobs`` workers on the
golden interpreter, and the labelled positions read back from it.

The corpus file is text: a header line naming how it was made, then one game a line in game
order (``game, random plies, solve ply, score, moves``, tab-separated, selfplay.game_line), so
the same seed and settings give the same file whatever ``jobs`` is. Its digest (SHA-256 of the
file) goes into the weight file's header.
"""

from __future__ import annotations

import hashlib
import resource
import subprocess
from dataclasses import dataclass
from pathlib import Path

from gamechip.processes import output_lines
from golden.board import parse_game_record, start_position
from golden.othello import legal_moves, pass_move, play

HEADER_PREFIX = "# gamechip pattern corpus:"


class CorpusError(Exception):
    """A corpus file that cannot be read (one line for the user)."""


@dataclass(frozen=True)
class CorpusSettings:
    seed: int
    games: int
    depth: int
    solve_empties: int

    def header(self) -> str:
        return (f"{HEADER_PREFIX} seed {self.seed} games {self.games} depth {self.depth} "
                f"solve_empties {self.solve_empties}")


def file_digest(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def play_corpus(settings: CorpusSettings, path, jobs: int, python: str, progress=None, played=None) -> float:
    """Play the corpus into ``path`` with ``jobs`` worker processes on ``python``; the CPU seconds
    the workers used. ``progress(done, total)`` after each game. ``played``: the game lines
    (game number -> line) of a smaller corpus with the same seed, depth and solve_empties: its
    first games are this corpus's first games (each game has its own random generator), so only
    the rest are played."""
    from gamechip.processes import ROOT

    cpu_before = sum(resource.getrusage(resource.RUSAGE_CHILDREN)[:2])
    lines = {game: line for game, line in (played or {}).items() if game < settings.games}
    start = len(lines)
    if sorted(lines) != list(range(start)):
        raise CorpusError("the corpus to extend does not hold games 0, 1, ... in order")
    workers = []
    for job in range(jobs):
        count = len(range(start + job, settings.games, jobs))
        if count:
            args = [python, "-m", "gamechip.train.selfplay", str(settings.seed), str(settings.depth),
                    str(settings.solve_empties), str(start + job), str(jobs), str(count)]
            workers.append(subprocess.Popen(args, stdout=subprocess.PIPE, text=True, cwd=ROOT,
                                            env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}))
    for line in output_lines(workers):
        lines[int(line.split("\t", 1)[0])] = line.rstrip("\n")
        if progress:
            progress(len(lines), settings.games)
    for worker in workers:
        status = worker.wait()
        if status:
            raise RuntimeError(f"a self-play worker ({python}) exited with status {status}")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime - cpu_before
    if len(lines) != settings.games:
        raise RuntimeError(f"the workers played {len(lines)} of {settings.games} games")
    text = settings.header() + "\n" + "\n".join(lines[game] for game in range(settings.games)) + "\n"
    Path(path).write_text(text)
    return cpu


def game_lines(path) -> dict:
    """game number -> line of a corpus file (header skipped), for :func:`play_corpus`'s ``played``."""
    return {int(line.split("\t", 1)[0]): line for line in Path(path).read_text().splitlines()[1:] if line}


@dataclass(frozen=True)
class LabelledPosition:
    """A corpus position: the side to move's discs and the other side's, its label (the final
    disc difference from the side to move's view), whether the label is exact (on the perfect
    line, at most ``solve_empties`` empty squares), its game and whether white is to move."""

    own: int
    opp: int
    label: int
    exact: bool
    game: int
    white_to_move: bool


def read_corpus(path):
    """(settings, list of game lines split into fields) of a corpus file."""
    try:
        text = Path(path).read_text()
    except OSError as error:
        raise CorpusError(f"cannot read the corpus {path}: {error.strerror}")
    lines = text.splitlines()
    if not lines or not lines[0].startswith(HEADER_PREFIX):
        raise CorpusError(f"{path} is not a pattern corpus (its first line must start with '{HEADER_PREFIX}')")
    words = lines[0][len(HEADER_PREFIX):].split()
    try:
        fields = dict(zip(words[::2], (int(w) for w in words[1::2])))
        settings = CorpusSettings(fields["seed"], fields["games"], fields["depth"], fields["solve_empties"])
    except (KeyError, ValueError):
        raise CorpusError(f"{path}: a bad corpus header: {lines[0]!r}")
    games = []
    for number, line in enumerate(lines[1:], 2):
        parts = line.split("\t")
        if len(parts) != 5:
            raise CorpusError(f"{path} line {number}: expected 5 tab-separated fields, got {len(parts)}")
        try:
            games.append((int(parts[0]), int(parts[1]), int(parts[2]), int(parts[3]), parse_game_record(parts[4])))
        except ValueError as error:
            raise CorpusError(f"{path} line {number}: {error}")
    if len(games) != settings.games:
        raise CorpusError(f"{path}: the header says {settings.games} games, the file holds {len(games)}")
    return settings, games


def game_positions(game, solve_ply, score, moves):
    """Every position of a game where the side to move has a move or must pass (the finished
    board left out), labelled from its side to move's view."""
    pos = start_position()
    out = []
    ply = 0
    while True:
        own_moves = legal_moves(pos.own, pos.opp)
        if not own_moves and not legal_moves(pos.opp, pos.own):
            break
        label = -score if pos.white_to_move else score
        out.append(LabelledPosition(pos.own, pos.opp, label, ply >= solve_ply, game, pos.white_to_move))
        if not own_moves:
            pos = pass_move(pos)
            continue
        if ply >= len(moves):
            raise CorpusError(f"game {game}: the record ends before the game does")
        pos = play(pos, moves[ply])
        ply += 1
    if ply != len(moves):
        raise CorpusError(f"game {game}: moves left after the game ended")
    final = bin(pos.black).count("1") - bin(pos.white).count("1")
    if final != score:
        raise CorpusError(f"game {game}: the record's score is {score}, its moves give {final}")
    return out
