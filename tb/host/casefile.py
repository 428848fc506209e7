"""Case files: the JSON that tb/sim/batch.py's ``save_failure`` writes for a failing case (block,
design, simulator, seed, case, expected, actual), read back by the shrinker, the corpus and the
CLI. Reading checks every field it needs, so a bad file is one line naming the file and what is
wrong, never a traceback from deep inside a simulation.
"""

import json
import os
from pathlib import Path

from golden.board import BoardError
from golden.chess.encoding import ChessInputError


class CaseFileError(Exception):
    """A missing or malformed case file; the message names the file."""


def read_case_file(path):
    """(record, Case) of the case file at ``path``; raise CaseFileError when it is unusable."""
    path = Path(path)
    try:
        record = json.loads(path.read_text())
    except OSError as error:
        raise CaseFileError(f"cannot read case file {path}: {error.strerror or error}")
    except (ValueError, UnicodeDecodeError) as error:
        raise CaseFileError(f"case file {path} is not JSON: {error}")
    return record, parse_case_record(record, f"case file {path}")


def parse_case_record(record, source):
    """The case of case-file data ``record`` (a tb.sim.batch.Case, or a tb.test_search.SearchCase
    for the search engine); CaseFileError (starting with ``source``) when a field it needs is
    missing or wrong. Every value is checked against what the block's ports can carry, so a
    hand-edited file never reaches a simulator (where a move 99 would wrap to D5)."""
    from tb.blocks import DESIGN_BLOCK, unknown
    from tb.host.runner import SIMULATORS

    if not isinstance(record, dict):
        raise CaseFileError(f"{source} holds a JSON {type(record).__name__}, not a case object")
    for field in ("block", "design", "sim", "seed", "case"):
        if field not in record:
            raise CaseFileError(f"{source} has no '{field}' field")
    if record["sim"] not in SIMULATORS:
        raise CaseFileError(f"{source}: {unknown('simulator', record['sim'], SIMULATORS)}")
    if not _whole(record["seed"]):
        raise CaseFileError(f"{source}: seed must be a whole number, got {record['seed']!r}")
    for field in ("rtl_root", "rtl_digest"):
        if record.get(field) is not None and not isinstance(record[field], str):
            raise CaseFileError(f"{source}: {field} must be a string, got {record[field]!r}")
    if not isinstance(record["case"], dict):
        raise CaseFileError(f"{source}: 'case' must be an object, got {record['case']!r}")
    if record["block"] == "search" or record["design"] == "search":
        return _search_case(record, source)
    if record["block"] == "evaluator_axi" or record["design"] == "evaluator_axi":
        return _bus_case(record, source)
    if record["design"] not in DESIGN_BLOCK:
        raise CaseFileError(f"{source}: {unknown('design', record['design'], list(DESIGN_BLOCK) + ['search'])}")
    if DESIGN_BLOCK[record["design"]].name != record["block"]:
        raise CaseFileError(f"{source}: design '{record['design']}' belongs to block "
                            f"'{DESIGN_BLOCK[record['design']].name}', not '{record['block']}'")
    return _block_case(record, source)


def _whole(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _square_field(case, field, limit, source, optional=True):
    value = case.get(field)
    if value is None and optional:
        return
    if not _whole(value) or not 0 <= value < limit:
        raise CaseFileError(f"{source}: '{field}' must be a square index 0..{limit - 1}, got {value!r}")


def _chess_case(record, source):
    import chess

    from tb.checks.chess_case import IDLE, ChessCase

    case = record["case"]
    kind = case.get("kind", "walk")
    if kind not in ("walk", "entry", "repetition"):
        raise CaseFileError(f"{source}: 'kind' must be walk, entry or repetition, got {kind!r}")
    if case.get("mode", 0) not in (0, 1):
        raise CaseFileError(f"{source}: 'mode' must be 0 (all moves) or 1 (captures only), got {case['mode']!r}")
    moves = case.get("moves", [])
    if not isinstance(moves, list):
        raise CaseFileError(f"{source}: 'moves' must be a list, got {moves!r}")
    for move in moves:
        if kind == "repetition" and move in ("init", "pop", IDLE):
            continue
        if kind == "entry" and move == IDLE:
            continue
        try:
            chess.Move.from_uci(move)
        except (ValueError, TypeError):
            raise CaseFileError(f"{source}: {move!r} is not a move in UCI form (e2e4, e7e8q)"
                                + (f" or {IDLE!r}" if kind == "entry" else
                                   f", 'init', 'pop' or {IDLE!r}" if kind == "repetition" else ""))
    dbg = case.get("dbg", [])
    if not isinstance(dbg, list) or not all(_whole(k) and 0 <= k < 64 for k in dbg):
        raise CaseFileError(f"{source}: 'dbg' must be a list of distances 0..63, got {dbg!r}")
    if kind == "repetition" and (not moves or moves[0] != "init"):
        # docs/spec-chess.md §6 says nothing of the detector before its first init, so the bench checks from there
        raise CaseFileError(f"{source}: a repetition case starts with 'init', got {moves[:1]!r}")
    if kind == "repetition" and len(dbg) != len(moves):
        raise CaseFileError(f"{source}: 'dbg' needs one rd_dbg_k per command: {len(moves)} commands, {len(dbg)} values")
    try:
        return ChessCase.from_dict(case)
    except KeyError as error:
        raise CaseFileError(f"{source}: the case has no {error} field")
    except (ChessInputError, TypeError, ValueError) as error:
        raise CaseFileError(f"{source}: bad case: {error}")


def _block_case(record, source):
    from golden.othello import IllegalMove, play
    from tb.checks.combinational import Case
    from rtl.designs import SIZE

    case, block = record["case"], record["block"]
    if "fen" in case:
        return _chess_case(record, source)
    size = SIZE[record["design"]]
    if case.get("size", size) != size:
        raise CaseFileError(f"{source}: design {record['design']} is {size}x{size}, the case says size {case['size']!r}")
    if not isinstance(case.get("label", ""), str):
        raise CaseFileError(f"{source}: 'label' must be a string, got {case['label']!r}")
    squares = size * size
    # The flipper's move port also carries values past the last square (off-board moves on 6x6).
    _square_field(case, "move", 1 << max(1, (squares - 1).bit_length()), source, optional=block != "disc_flipper")
    if block == "stable_discs" and case.get("color") not in ("X", "O"):
        raise CaseFileError(f"{source}: 'color' must be 'X' or 'O' (whose stable discs), got {case.get('color')!r}")
    legal = case.get("legal")
    if legal is not None and (not _whole(legal) or not 0 <= legal < 1 << squares):
        raise CaseFileError(f"{source}: 'legal' must be a {squares}-bit vector, got {legal!r}")
    if block == "node_order" and legal is None:
        raise CaseFileError(f"{source}: a node-ordering case needs its 'legal' vector")
    _square_field(case, "pv", squares, source)
    moves = case.get("moves", [])
    if not isinstance(moves, list) or not all(_whole(m) and 0 <= m < squares for m in moves):
        raise CaseFileError(f"{source}: 'moves' must be a list of square indexes 0..{squares - 1}, got {moves!r}")
    try:
        parsed = Case.from_dict(case)
    except KeyError as error:
        raise CaseFileError(f"{source}: the case has no {error} field")
    except (BoardError, TypeError, AttributeError, ValueError) as error:
        raise CaseFileError(f"{source}: bad case: {error}")
    if block == "openings":
        from golden.board import START, square_name

        position = START
        for ply, move in enumerate(moves, 1):
            try:
                position = play(position, move)
            except IllegalMove:
                raise CaseFileError(f"{source}: move {ply} of the game, {square_name(move)}, is not legal there")
    return parsed


def _search_case(record, source):
    from golden.search import MAX_DEPTH
    from tb.checks.search import SearchCase

    case = record["case"]
    if record["block"] != "search" or record["design"] != "search":
        raise CaseFileError(f"{source}: the search engine's block and design are both 'search', got "
                            f"{record['block']!r} and {record['design']!r}")
    if not _whole(case.get("depth")) or not 1 <= case["depth"] <= MAX_DEPTH:
        raise CaseFileError(f"{source}: 'depth' must be 1..{MAX_DEPTH}, got {case.get('depth')!r}")
    budget = case.get("budget")
    if budget is not None and (not _whole(budget) or not 0 <= budget < 1 << 32):
        raise CaseFileError(f"{source}: 'budget' must be a cycle count 0..2**32-1 or null, got {budget!r}")
    if not isinstance(case.get("exact", False), bool):
        raise CaseFileError(f"{source}: 'exact' must be true or false, got {case['exact']!r}")
    alpha, beta = case.get("alpha", -256), case.get("beta", 256)
    if not (_whole(alpha) and _whole(beta) and -256 <= alpha < beta <= 256):
        raise CaseFileError(f"{source}: the root window must be whole numbers -256 <= alpha < beta <= 256, "
                            f"got ({alpha!r}, {beta!r})")
    try:
        return SearchCase.from_dict(case)
    except KeyError as error:
        raise CaseFileError(f"{source}: the case has no {error} field")
    except (BoardError, TypeError, ValueError) as error:
        raise CaseFileError(f"{source}: bad case: {error}")


def _bus_case(record, source):
    """The peripheral's case (tb/test_evaluator_axi.py): a test of its bench, run again whole
    (its transactions follow from the seed), or for the streamed bench a stream file of bus
    transactions; returned as its dict."""
    from tb.host.evaluator_axi_bench import DESIGN, STREAMED, TESTS

    case = record["case"]
    if record["block"] != DESIGN or record["design"] != DESIGN:
        raise CaseFileError(f"{source}: the peripheral's block and design are both '{DESIGN}', got "
                            f"{record['block']!r} and {record['design']!r}")
    if case.get("test") not in (*TESTS, STREAMED):
        raise CaseFileError(f"{source}: 'test' must be one of {', '.join((*TESTS, STREAMED))}, got {case.get('test')!r}")
    if case["test"] == STREAMED:
        if not isinstance(case.get("stream"), str) or not Path(case["stream"]).is_file():
            raise CaseFileError(f"{source}: the stream file {case.get('stream')!r} it replays does not exist")
        if not isinstance(case.get("stalls", False), bool):
            raise CaseFileError(f"{source}: 'stalls' must be true or false, got {case['stalls']!r}")
    return case


def write_case_file(path, record):
    """Write ``record`` whole or not at all (a reader never sees half a case)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(record, indent=2) + "\n")
    os.replace(tmp, path)
    return path
