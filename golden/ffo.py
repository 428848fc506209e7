"""The FFO endgame test as data: positions #1-#79 and their published exact scores
(golden/ffo.obf, from Edax's problem files; its header says where they come from).

Each line is an OBF position followed by move scores (``G8:+18;``): the exact final disc
difference for the side to move after that move, the empty squares of a game that ends early
given to the winner (``winner`` scoring of golden.solve). The position's score is the highest
of them and its best moves are those that reach it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from golden.board import BoardError, Position, parse_square, square_name
from golden.contest.ggf import parse_obf
from golden.solve import sign

FFO_PATH = Path(__file__).with_name("ffo.obf")
FFO_COUNT = 79
MOVE_SCORE = re.compile(r"^([A-Ha-h][1-8])\s*:\s*([+-]?\d+)$")
NUMBER = re.compile(r"FFO #(\d+)")


@dataclass(frozen=True)
class ObfProblem:
    """One OBF line: the position, the published score of each move listed (square -> score),
    and the FFO number from the line's comment (None when it has none)."""

    position: Position
    move_scores: dict
    number: int | None = None

    @property
    def score(self) -> int | None:
        """The position's exact score: the best move's; None when the line lists no move."""
        return max(self.move_scores.values()) if self.move_scores else None

    @property
    def best_moves(self) -> tuple:
        """Every listed move that reaches the score, as square indices."""
        return tuple(sorted(s for s, v in self.move_scores.items() if v == self.score))

    def best_names(self) -> str:
        return "/".join(square_name(s) for s in self.best_moves) or "-"


def parse_obf_problem(line: str, where: str = "OBF") -> ObfProblem:
    """An OBF line with its move scores (the position read by golden.contest.ggf.parse_obf);
    BoardError naming ``where`` for a malformed line."""
    body, _, comment = line.partition("%")
    fields = [field.strip() for field in body.split(";")]
    try:
        position = parse_obf(line)
    except BoardError as error:
        raise BoardError(f"{where}: {error}")
    scores = {}
    for field in fields[1:]:
        if not field:
            continue
        match = MOVE_SCORE.match(field)
        if not match:
            raise BoardError(f"{where}: a move score is SQUARE:SCORE (e.g. G8:+18), got {field!r}")
        square = parse_square(match.group(1))
        if square in scores:
            raise BoardError(f"{where}: move {match.group(1).upper()} scored twice")
        if position.empty >> square & 1 == 0:
            raise BoardError(f"{where}: move {match.group(1).upper()} is on an occupied square")
        scores[square] = int(match.group(2))
    number = NUMBER.search(comment)
    return ObfProblem(position, scores, int(number.group(1)) if number else None)


def published_check(problem, answer, wld, scoring):
    """(agrees, what was expected) of a solved position, ``answer`` {"score", "best": a square
    name}, against ``problem``'s published move scores; agrees None when it has none. Exact ``winner`` scores compare exactly and the best move must
    be one of the published best; WLD and ``plain`` scores (the published ones give the empties to
    the winner) compare the sign, and the best move must reach it."""
    if problem.score is None:
        return None, "no published score"
    exact = not wld and scoring == "winner"
    expected = problem.score if exact else sign(problem.score)
    actual = answer["score"] if exact or wld else sign(answer["score"])
    what = f"{expected:+d}" if exact else f"the sign of {problem.score:+d}"
    try:
        best_score = problem.move_scores.get(parse_square(answer["best"]))
    except BoardError:
        best_score = None
    best_ok = best_score is not None and (best_score == problem.score if exact else sign(best_score) == expected)
    return actual == expected and best_ok, f"{what}, best {problem.best_names()}"


def read_obf(path) -> list:
    """Every position line of an OBF file (blank lines and ``%`` comment lines skipped), as
    ObfProblem; BoardError naming the file and line for a bad one."""
    problems = []
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        if line.split("%", 1)[0].strip():
            problems.append(parse_obf_problem(line, f"{path}:{number}"))
    return problems


def ffo_problems(path=FFO_PATH) -> dict:
    """FFO number -> ObfProblem, #1-#79 from golden/ffo.obf."""
    problems = {p.number: p for p in read_obf(path)}
    if sorted(problems) != list(range(1, FFO_COUNT + 1)):
        raise BoardError(f"{path}: expected FFO #1-#{FFO_COUNT}, one line each")
    return problems


def parse_ffo_range(text: str) -> list:
    """FFO numbers from ``1-19``, ``40``, or a comma list of both (``1-3,5``), each 1..79."""
    numbers = []
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        try:
            low, high = int(first), int(last) if dash else int(first)
        except ValueError:
            raise BoardError(f"an FFO range is N or N-M (e.g. 1-19 or 40), comma-separated; got {text!r}")
        if not 1 <= low <= high <= FFO_COUNT:
            raise BoardError(f"FFO positions are #1-#{FFO_COUNT} (N-M with N <= M); got {part.strip()!r}")
        numbers.extend(n for n in range(low, high + 1) if n not in numbers)
    return numbers
