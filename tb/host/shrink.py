"""Shrinking a failing case: the smallest case the RTL still gets wrong, found by delta debugging.

A fuzzer's failing position typically has 30-60 discs, most of them irrelevant to the bug. The
shrinker removes parts of the case (discs; for node ordering, legal-vector bits and the PV; for
the opening book, moves from the end of the game) while the block still disagrees with the
golden model. Each *round* makes every candidate of the current case at once (remove either
half, any quarter, any eighth, ... any single part; keep only one chunk; and remove at once every
part that some failing candidate of the round before could lose) and checks them all in ONE
simulation through the block's batch harness (``tb/sim/candidates.py``), because a simulator start
costs about a second and a batch of hundreds of vectors costs almost nothing more. The smallest
candidate that still fails becomes the current case; the rounds end when no candidate fails, so
no single part of the result can be removed without losing the failure.

Which mismatch does not matter: the golden model decides each candidate's expected value, and any
disagreement keeps the candidate. The result is checked once more on its own (the replay
test), because a batch runs candidates back to back and a sequential block could depend on the
vector before.
"""

import json
import sys
import tempfile
import time
import uuid
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import chess

from golden.board import Position, popcount, squares_of

CANDIDATES_MODULE = "tb.sim.candidates"


class ShrinkError(Exception):
    """The case could not be shrunk (it passes on its own, the simulation broke, no time left);
    whoever asked keeps the original case."""


# --- how a case gets smaller, per kind of case ----------------------------------------------

def partition_removals(parts):
    """Sets of ``parts`` to remove: for 2, 4, 8, ... chunks down to single parts, everything but
    one chunk and one chunk alone (delta debugging's subsets and complements), no set twice."""
    parts = list(parts)
    removals, seen, chunks = [], set(), 2
    while parts:
        chunks = min(chunks, len(parts))
        bounds = [len(parts) * i // chunks for i in range(chunks + 1)]
        for first, last in zip(bounds, bounds[1:]):
            chunk = frozenset(parts[first:last])
            for removed in (frozenset(parts) - chunk, chunk):
                if removed and removed not in seen:
                    seen.add(removed)
                    removals.append(removed)
        if chunks == len(parts):
            return removals
        chunks *= 2
    return removals


class Reduction:
    """What can be taken out of a case, and what is left. ``unit`` names what ``size`` counts,
    ``short`` is its one-word form for file names."""

    unit = short = "parts"

    def parts(self, case):
        raise NotImplementedError

    def without(self, case, removed):
        raise NotImplementedError

    def size(self, case):
        return len(self.parts(case))

    def candidates(self, case):
        return [self.without(case, removed) for removed in partition_removals(self.parts(case))]

    def combined(self, case, failing):
        """``case`` without every part that some failing candidate of it went without, or None.
        Parts that do not matter can usually all go at once: tried in the next round's batch,
        this saves a round per part when the parts that matter are spread over the board."""
        kept = set(self.parts(case))
        removed = set().union(*(kept - set(self.parts(c)) for c in failing))
        return self.without(case, removed) if removed else None


class DiscRemoval(Reduction):
    """Positions: empty squares. Removing discs never fills a square, so a move onto an empty
    square stays a move onto an empty square; a disc on the moved square itself is kept, so a
    move onto an occupied square stays one (the golden model decides what either should do)."""

    unit = short = "discs"

    def parts(self, case):
        p = case.position
        kept = {case.move} if case.move is not None else set()
        return [s for s in squares_of(p.black | p.white) if s not in kept]

    def without(self, case, removed):
        mask = sum(1 << s for s in removed)
        p = case.position
        return replace(case, position=Position(p.black & ~mask, p.white & ~mask, p.white_to_move, p.size))

    def size(self, case):
        return popcount(case.position.black | case.position.white)


class LegalBitRemoval(Reduction):
    """Node ordering walks a legal vector: clear legal bits and drop the PV, and walk the smaller
    vector. The position is not an input of the block, so candidates carry an empty board: the
    report's diagram then shows the legal squares alone."""

    unit, short = "walk inputs (legal squares and the PV)", "legal"

    def parts(self, case):
        return squares_of(case.legal or 0) + (["pv"] if case.pv is not None else [])

    def without(self, case, removed):
        from tb.checks.node_order import walk_case

        legal = (case.legal or 0) & ~sum(1 << s for s in removed if s != "pv")
        empty = Position(0, 0, case.position.white_to_move, case.position.size)
        return walk_case(empty, case.label, legal, None if "pv" in removed else case.pv)


class MovePrefixes(Reduction):
    """The opening book is fed a game move by move: only a prefix of a game is a game, so the
    candidates are the game's shorter prefixes (all of them in one round)."""

    unit = short = "plies"

    def parts(self, case):
        return list(case.moves)

    def combined(self, case, failing):
        return None  # prefixes: the shortest failing one is already among the candidates

    def candidates(self, case):
        from tb.checks.directed import replay_game

        return [replace(case, position=replay_game(case.moves[:n]), moves=case.moves[:n])
                for n in range(len(case.moves))]


class PieceRemoval(Reduction):
    """Chess positions: remove pieces (never a king) while the position stays valid (or, for a
    case that starts ILLEGAL, stays ILLEGAL); castling rights and the e.p. square that no longer
    fit are dropped. A walk walks the smaller position's own list; random entry points keep the
    moves the smaller position still has."""

    unit, short = "pieces", "pieces"

    def parts(self, case):
        board = case.board
        return [s for s, piece in board.piece_map().items() if piece.piece_type != chess.KING]

    def size(self, case):
        return len(case.board.piece_map())

    def without(self, case, removed):
        from golden.chess.encoding import format_fen
        from golden.chess.movegen import is_illegal, ordered_moves

        board = case.board
        illegal = is_illegal(board)
        for square in removed:
            board.remove_piece_at(square)
        board.castling_rights = board.clean_castling_rights()
        if board.ep_square is not None and not board.is_valid() and not is_illegal(board):
            board.ep_square = None
        if not (is_illegal(board) if illegal else board.is_valid()):
            return None
        if case.kind == "walk":
            moves = () if illegal else tuple(m.uci() for m in ordered_moves(board, case.mode))
        else:   # entry: any move of the whole list may be last_mv (captures-only after a quiet one too); idle steps stay
            from tb.checks.chess_case import IDLE

            listed = {m.uci() for m in ordered_moves(board)}
            moves = tuple(m for m in case.moves if m == IDLE or m in listed)
        return replace(case, fen=format_fen(board), moves=moves)

    def candidates(self, case):
        return [c for c in super().candidates(case) if c is not None]

    def combined(self, case, failing):
        kept = set(self.parts(case))
        removed = set().union(*(kept - set(self.parts(c)) for c in failing))
        return self.without(case, removed) if removed else None


class CommandPrefixes(Reduction):
    """The repetition detector's commands: only a prefix of a walk is a walk (pops must match
    pushes), so the candidates are the shorter prefixes."""

    unit, short = "commands", "commands"

    def parts(self, case):
        return list(case.moves)

    def combined(self, case, failing):
        return None

    def candidates(self, case):
        return [replace(case, moves=case.moves[:n], dbg=case.dbg[:n]) for n in range(1, len(case.moves))]


REDUCTIONS = {"node_order": LegalBitRemoval(), "openings": MovePrefixes(), "chess_movegen": PieceRemoval(),
              "chess_repetition": CommandPrefixes()}


def reduction_for(block, case):
    """Removing discs suits any block whose case is a position; a block whose cases carry a move
    list needs its own reduction, and says so rather than producing a meaningless case."""
    if block in REDUCTIONS:
        return REDUCTIONS[block]
    if not hasattr(case, "position"):
        raise ShrinkError(f"shrinking is not supported for block '{block}': its case is a sequence of bus "
                          f"transactions, not a position")
    if case.moves or case.legal is not None:
        raise ShrinkError(f"shrinking is not supported for block '{block}': its cases are not plain positions "
                          f"(add a reduction to REDUCTIONS in tb/host/shrink.py)")
    return DiscRemoval()


# --- the rounds ---------------------------------------------------------------------------

@dataclass
class Round:
    round: int
    left: int  # size of the current case after the round
    candidates: int  # tried in the round's one simulation
    failing: int  # of them, still mismatching
    seconds: float


@dataclass
class Shrunk:
    record: dict  # a case file: the original's fields with the shrunk case, its values, history
    message: str  # the shrunk case's failure report (from its replay on its own)
    before: int
    after: int
    unit: str
    rounds: list
    stopped: str = ""  # why it stopped before the end, if it did

    @property
    def smaller(self):
        return self.after < self.before

    def summary(self):
        tried = sum(r.candidates for r in self.rounds)
        rounds = f"{len(self.rounds)} round" + ("s" if len(self.rounds) != 1 else "")
        text = f"shrunk from {self.before} to {self.after} {self.unit} in {rounds} ({tried} candidates)"
        return text + (f"; stopped early: {self.stopped}" if self.stopped else "")


def _key(case):
    """Candidates differing only in their label are the same candidate."""
    fields = case.to_dict()
    fields.pop("label")
    return json.dumps(fields, sort_keys=True)


def _untested(candidates, tested, current):
    """``candidates`` without repeats, without those already simulated and (once the case itself
    has been simulated) without the current case."""
    batch = {}
    for candidate in candidates:
        key = _key(candidate)
        if key not in tested and (not tested or key != _key(current)):
            batch.setdefault(key, candidate)
    return list(batch.values())


def run_batch(record, cases, tag, rtl_root=None):
    """One simulation of ``cases`` on the record's design and simulator: a verdict per case
    ({match, expected, actual})."""
    from tb.blocks import DESIGN_BLOCK
    from tb.host.runner import run_design

    design, sim = record["design"], record["sim"]
    with tempfile.TemporaryDirectory(prefix="gamechip-shrink-") as folder:
        cases_file, verdicts_file = Path(folder) / "cases.json", Path(folder) / "verdicts.json"
        cases_file.write_text(json.dumps([case.to_dict() for case in cases]))
        outcome = run_design(design, sim, CANDIDATES_MODULE, ["candidates"], tag=tag, quiet=True, rtl_root=rtl_root,
                             env={"GAMECHIP_BENCH": DESIGN_BLOCK[design].module, "GAMECHIP_CASES": str(cases_file),
                                  "GAMECHIP_VERDICTS": str(verdicts_file), "GAMECHIP_SEED": str(record["seed"])})
        if not verdicts_file.exists():
            raise ShrinkError(f"the candidate run of {design} on {sim} gave no verdicts; "
                              f"log: {outcome.sim_dir / 'gamechip.log'}")
        verdicts = json.loads(verdicts_file.read_text())
    if len(verdicts) != len(cases):
        raise ShrinkError(f"the candidate run of {design} on {sim} judged {len(verdicts)} of {len(cases)} cases")
    return verdicts


def _stderr(line):
    print(line, file=sys.stderr, flush=True)


def shrink_record(record, case, tag="shrink", progress=_stderr, deadline=None, rtl_root=None):
    """Shrink the failing ``case`` of case file ``record``; return a Shrunk. ``deadline`` (a
    ``time.time()``) stops the rounds early with the smallest failing case found so far.
    Raises ShrinkError when there is no smaller failing case to give back."""
    from tb.host.runner import run_case_record

    reduction = reduction_for(record["block"], case)
    unit, before, started = reduction.unit, reduction.size(case), time.monotonic()
    current, current_verdict, tested = case, None, {}
    rounds, stopped, longest, combined = [], "", 0.0, []
    while True:
        # The first round also runs the case itself: it must fail on its own to be shrunk.
        batch = _untested(([] if tested else [case]) + combined + reduction.candidates(current), tested, current)
        if not batch:
            break
        if deadline is not None and time.time() + 2 * longest > deadline:  # this round, then the check alone
            stopped = "out of time"
            break
        round_started = time.monotonic()
        verdicts = run_batch(record, batch, tag, rtl_root)
        for candidate, verdict in zip(batch, verdicts):
            tested[_key(candidate)] = verdict
        if current_verdict is None:
            current_verdict = tested[_key(case)]
            if current_verdict["match"]:
                raise ShrinkError(f"the case does not fail when run on its own on {record['sim']}: nothing to shrink")
        failing = [c for c in batch if not tested[_key(c)]["match"] and _key(c) != _key(current)]
        previous = current
        if failing:
            current = min(failing, key=reduction.size)  # the first of the smallest: the biggest removal
            current_verdict = tested[_key(current)]
        seconds = time.monotonic() - round_started
        longest = max(longest, seconds)
        rounds.append(Round(len(rounds) + 1, reduction.size(current), len(batch), len(failing), round(seconds, 3)))
        progress(f"shrink round {len(rounds)}: {reduction.size(current)} {unit} left, {len(batch)} candidate"
                 f"{'s' if len(batch) != 1 else ''} tried, {len(failing)} still fail ({seconds:.1f} s)")
        if not failing:
            break
        combined = [c for c in [reduction.combined(previous, failing)] if c is not None]
    if current_verdict is None:
        raise ShrinkError("no time left to run even one round of shrinking")
    after = reduction.size(current)
    shrunk_case = replace(current, label=f"{case.label}; shrunk from {before} to {after} {unit}") if after < before \
        else current
    shrunk = _shrunk_record(record, shrunk_case, current_verdict, rounds, unit, before, after, stopped,
                            time.monotonic() - started)
    message = _check_alone(shrunk, tag, rtl_root, run_case_record)
    return Shrunk(shrunk, message, before, after, unit, rounds, stopped)


def _shrunk_record(record, case, verdict, rounds, unit, before, after, stopped, seconds):
    """The original case file with the shrunk case and its values, and where it came from (a
    case shrunk twice keeps the first original and both histories)."""
    earlier = record.get("shrink") or {}
    original = earlier.get("original") or {key: record.get(key) for key in ("case", "expected", "actual")}
    history = earlier.get("rounds", []) + [asdict(r) for r in rounds]
    return {**record, "case": case.to_dict(), "expected": verdict["expected"], "actual": verdict["actual"],
            "shrink": {"unit": unit, "from": earlier.get("from", before), "to": after, "rounds": history,
                       "seconds": round(earlier.get("seconds", 0) + seconds, 3), "stopped": stopped or None,
                       "original": original}}


def _check_alone(record, tag, rtl_root, run_record):
    """The shrunk case through the bench's replay test, alone: it must still fail. Returns the
    failure report."""
    from tb.host.runner import BUILD

    name = f"shrink-{record['design']}-{record['sim']}-{uuid.uuid4().hex[:12]}.json"
    outcome = run_record(record, name, tag, rtl_root=rtl_root)
    (BUILD / "cases" / name).unlink(missing_ok=True)
    if outcome.passed:
        raise ShrinkError("the shrunk case passes when run on its own (the failure needs the vectors run before "
                          "it in a batch)")
    report = outcome.result.get("failure")
    if not report:
        raise ShrinkError(f"the shrunk case's replay failed without a report; log: {outcome.sim_dir / 'gamechip.log'}")
    # Its case file lines name the replay's scratch copy: whoever keeps the shrunk case names its own.
    return "\n".join(line for line in report.splitlines() if not line.startswith(("case file:", "replay it with")))
