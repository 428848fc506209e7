"""A saved failing case read back for pictures: expected and actual as values, the vector and
cycle of the case where they first differ, and a board picture of each.

The case file is what tb/sim/batch.py ``save_failure`` wrote (block, design, sim, seed, case fields,
``repr`` of expected and actual). Each block's answer has its own shape (a legal-move vector, a
new board, per-cycle stable sets, evaluation terms, a walk, book answers), so each block has one
small function here that says where the answers first differ and what to draw; a block without
one (or an answer of an unexpected shape) still gets the position and the values as text.
"""

import ast
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from gamechip.views.boards import BoardPicture
from golden.board import START, format_game_record, parse_board, square_name, squares_of


class CaseError(ValueError):
    """A case file that cannot be read: one line for the user."""


def read_case(path):
    """The JSON record of a case file, checked for the fields every tool here needs."""
    try:
        record = json.loads(Path(path).read_text())
        record["block"], record["design"], record["sim"], record["case"]["board"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise CaseError(f"cannot read case file {path}: {error}")
    return record


def case_value(text):
    """A ``repr`` from the case file back to the value (ints, tuples, lists, X strings)."""
    if not isinstance(text, str):
        return text
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text


@dataclass
class Failure:
    record: dict

    def __post_init__(self):
        case = self.record["case"]
        self.block, self.design, self.sim = self.record["block"], self.record["design"], self.record["sim"]
        self.size = case.get("size", 8)
        self.position = parse_board(case["board"], self.size)
        self.expected, self.actual = case_value(self.record.get("expected")), case_value(self.record.get("actual"))

    @property
    def case(self):
        return self.record["case"]

    def picture(self, title, **answer):
        """A picture of the case's position (or ``black``/``white`` given) with an answer drawn on it."""
        answer.setdefault("black", self.position.black)
        answer.setdefault("white", self.position.white)
        return BoardPicture(title, self.size, **answer)


@dataclass
class FailureView:
    vector: Optional[int]  # the vector of the case (step of a walk, move of a game) where the answers first
    # differ; None: unknown (no view of this block's answers)
    cycle: Optional[int]  # its clock cycle (start/done blocks); None: its last cycle, or combinational
    summary: str  # one line: what differs, where
    expected: BoardPicture
    actual: BoardPicture
    # what the golden model says the block's outputs are at that vector and cycle, by port name
    # (signed ports as signed numbers); the signal window shows them beside the dumped values
    expected_outputs: dict = field(default_factory=dict)


def _is_int(*values):
    return all(isinstance(v, int) and not isinstance(v, bool) for v in values)


def _names(bits, size):
    if not _is_int(bits):
        return f"unknown bits {bits}"
    return " ".join(square_name(s, size) for s in squares_of(bits) if s < size * size) or "none"


def _on_board(bits, size):
    return bits & ((1 << (size * size)) - 1) if _is_int(bits) else 0


def first_difference(expected, actual):
    """Index of the first differing element of two sequences (the shorter length if one is a
    prefix of the other)."""
    for index, (want, got) in enumerate(zip(expected, actual)):
        if want != got:
            return index
    return min(len(expected), len(actual))


# --- one function per block --------------------------------------------------------------------

def _move_checker(f):
    side, e, a = f.position.side, f.expected, f.actual
    differs = _on_board(e ^ a, f.size) if _is_int(e, a) else 0
    expected = f.picture("expected legal moves", dots=_on_board(e, f.size), differs=differs,
                         caption=[f"legal moves for {side}: {_names(e, f.size)}"])
    actual = f.picture("actual legal moves", dots=_on_board(a, f.size), differs=differs,
                       caption=[f"legal moves for {side}: {_names(a, f.size)}"]
                       + ([f"missing: {_names(e & ~a, f.size)}", f"extra: {_names(a & ~e, f.size)}"] if differs else []))
    return FailureView(0, None, f"legal-move vector differs at {_names(differs, f.size)}", expected, actual,
                       {"legal": e})


def _disc_flipper(f):
    (eb, ew, e_illegal), (ab, aw, a_illegal) = f.expected, f.actual
    move = f.case.get("move")
    move_name = square_name(move, f.size) if _is_int(move) and 0 <= move < f.size ** 2 else f"{move} (off the board)"
    differs = _on_board((eb ^ ab) | (ew ^ aw), f.size) if _is_int(eb, ab, ew, aw) else 0
    before = f"{f.position.side} plays {move_name}"

    def side(title, black, white, illegal):
        return f.picture(title, black=_on_board(black, f.size), white=_on_board(white, f.size),
                         move=move if _is_int(move) and 0 <= move < f.size ** 2 else None, differs=differs,
                         caption=[before, f"illegal={illegal}; board after the move (blue: the move)"])

    summary = f"new board differs at {_names(differs, f.size)}" if differs else (
        f"illegal flag differs (expected {e_illegal}, actual {a_illegal})")
    return FailureView(0, None, summary, side("expected board after the move", eb, ew, e_illegal),
                       side("actual board after the move", ab, aw, a_illegal),
                       {"new_black": eb, "new_white": ew, "illegal": e_illegal})


def _stable_discs(f):
    e, a, colour = f.expected, f.actual, f.case.get("color")
    cycle = first_difference(e, a)
    want, got = e[min(cycle, len(e) - 1)], a[min(cycle, len(a) - 1)] if a else (cycle, "?", "?", 0)
    differs = _on_board(want[3] ^ got[3], f.size) if _is_int(want[3], got[3]) else 0

    def side(title, entry, length):
        _, done, count, stable = entry
        return f.picture(title, shade=_on_board(stable, f.size), differs=differs,
                         caption=[f"{colour}'s stable discs in cycle {entry[0]}: count {count}, done {done}",
                                  f"done in cycle {length - 1}" if length else "no cycle",
                                  "light squares: the stable set; red: differs"])

    outputs = dict(zip(("done", "count", "stable"), want[1:])) if cycle < len(e) else {}
    return FailureView(0, cycle, f"stable set differs in cycle {cycle} at {_names(differs, f.size)}",
                       side("expected stable discs", want, len(e)), side("actual stable discs", got, len(a)), outputs)


EVALUATOR_PORTS = {"xsquares_own": "xsq_own", "xsquares_opp": "xsq_opp", "fixed": "fixed_value",
                   "adaptive": "adaptive_value"}  # the bench's field names that are not the port's


def _evaluator(f):
    from tb.checks.evaluator import FIELDS

    e, a = f.expected, f.actual
    differing = [name for name, want, got in zip(FIELDS, e, a) if want != got]
    expected_done, actual_done = e[0], a[0]
    if expected_done != actual_done:  # a done too early shows first; a missing done at the expected cycle
        cycle = expected_done if not _is_int(actual_done) or actual_done < 0 else min(expected_done, actual_done)
    else:
        cycle = expected_done
    caption = [f"{f.position.side} to move; red rows differ"]

    def side(title, values):
        return f.picture(title, caption=caption,
                         table=[(name, value, name in differing) for name, value in zip(FIELDS, values)])

    if cycle == expected_done:  # the terms are outputs in the done cycle; before it, done is 0
        outputs = {"done": 1, **{EVALUATOR_PORTS.get(name, name): value for name, value in zip(FIELDS[1:], e[1:])}}
    else:
        outputs = {"done": 0}
    return FailureView(0, cycle, f"evaluation differs in {', '.join(differing) or 'length'} (cycle {cycle})",
                       side("expected evaluation", e), side("actual evaluation", a), outputs)


def _walk_labels(answers):
    return {move: str(step + 1) for step, (found, move) in enumerate(answers) if found == 1 and _is_int(move)}


def _answer_name(answer, size, none="end"):
    found, move = answer
    if found == 1 and _is_int(move):
        return square_name(move, size)
    return none if found == 0 else f"{found} {move}"


def _node_order(f):
    e, a = f.expected, f.actual
    step = first_difference(e, a)
    want = e[step] if step < len(e) else (0, 0)
    got = a[step] if step < len(a) else (0, 0)
    named = [answer[1] for answer in (want, got) if answer[0] == 1 and _is_int(answer[1])]
    differs = 0 if want == got else sum(1 << square for square in set(named))
    legal, pv = f.case.get("legal") or 0, f.case.get("pv")
    caption = [f"step {step}: expected {_answer_name(want, f.size)}, actual {_answer_name(got, f.size)}",
               "numbers: the walk; dots: legal squares it did not reach"
               + (f"; blue: pv {square_name(pv, f.size)}" if _is_int(pv) else "")]

    def side(title, answers):
        return f.picture(title, dots=_on_board(legal, f.size), labels=_walk_labels(answers),
                         move=pv if _is_int(pv) else None, differs=differs, caption=caption)

    return FailureView(step, None, f"walk differs at step {step}", side("expected walk", e), side("actual walk", a),
                       dict(zip(("found", "next_move"), want)))


def _openings(f):
    from golden.othello import play

    e, a, moves = f.expected, f.actual, list(f.case.get("moves", ()))
    step = first_difference(e, a)
    want = e[step] if step < len(e) else (0, 0)
    got = a[step] if step < len(a) else (0, 0)
    position = START
    for move in moves[:step]:
        position = play(position, move)
    dots_want = 1 << want[1] if want[0] == 1 and _is_int(want[1]) else 0
    dots_got = 1 << got[1] if got[0] == 1 and _is_int(got[1]) else 0
    game = format_game_record(moves[:step]) or "no move"
    caption = [f"after {game} ({step} plies): book move expected {_answer_name(want, f.size, 'out of book')}, "
               f"actual {_answer_name(got, f.size, 'out of book')}", "dot: the book move; blue: the last move played"]

    def side(title, dots):
        return f.picture(title, black=position.black, white=position.white, dots=dots, differs=dots_want ^ dots_got,
                         move=moves[step - 1] if step else None, caption=caption)

    return FailureView(step, None, f"book answer differs after {step} plies",
                       side("expected book move", dots_want), side("actual book move", dots_got),
                       {"done": 1, "in_book": want[0], "book_move": want[1]})


BLOCK_VIEWS = {"move_checker": _move_checker, "disc_flipper": _disc_flipper, "stable_discs": _stable_discs,
               "evaluator": _evaluator, "node_order": _node_order, "openings": _openings}


# --- answers as text: sets of squares in hex with their names, never a decimal integer -------

def squares_text(bits, size):
    """A set of squares as the failure views give it: hex, one digit per four squares (as the
    signal window and GTKWave show a board-sized bus), then the squares by name."""
    if not _is_int(bits):
        return repr(bits)
    return f"0x{bits:0{(size * size + 3) // 4}x} ({_names(bits, size)})"


def _flipper_answer(value, size):
    black, white, illegal = value
    return f"black {squares_text(black, size)}, white {squares_text(white, size)}, illegal {illegal}"


def _stable_answer(value, size):
    return "; ".join(f"cycle {cycle}: done {done}, count {count}, stable {squares_text(stable, size)}"
                     for cycle, done, count, stable in value)


def _walk_answer(value, size):
    return " ".join(_answer_name(answer, size) for answer in value) or "no answer"


def _book_answer(value, size):
    return " ".join(_answer_name(answer, size, "out-of-book") for answer in value) or "no answer"


ANSWER_TEXTS = {"move_checker": squares_text, "disc_flipper": _flipper_answer, "stable_discs": _stable_answer,
                "node_order": _walk_answer, "openings": _book_answer}


def answer_text(failure, value):
    """An answer of ``failure``'s block (``failure.expected`` or ``failure.actual``) as text:
    its sets of squares in hex with their names, its moves by square name; a block without a
    form here, or an answer of an unexpected shape, as the value's text."""
    make = ANSWER_TEXTS.get(failure.block)
    if make is not None:
        try:
            return make(value, failure.size)
        except (TypeError, ValueError):
            pass
    return value if isinstance(value, str) else repr(value)


def _clip(value, limit=90):
    text = repr(value) if not isinstance(value, str) else value
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _plain_view(f, why):
    """The position and the values as text: for blocks without a view, or answers of an
    unexpected shape (e.g. X bits where numbers were expected)."""
    def side(title, value):
        return f.picture(title, caption=[_clip(value), why])

    return FailureView(None, None, why, side("expected", f.expected), side("actual", f.actual))


def failure_view(failure):
    """The FailureView of ``failure`` (a Failure)."""
    make = BLOCK_VIEWS.get(failure.block)
    if make is None:
        return _plain_view(failure, f"no board view for block {failure.block}: values as text")
    try:
        return make(failure)
    except (TypeError, ValueError, IndexError, KeyError) as error:
        return _plain_view(failure, f"answer of an unexpected shape ({type(error).__name__}: {error})")
