"""Planted bugs: copies of the ``rtl`` package with one deliberate, documented bug each.

``PLANTED_BUGS`` names each bug by what it does and says how to make it: the design whose bench
must catch it, the file in ``rtl/`` and the text edits. tests/test_mutants.py runs each through
its block's bench (a bug the bench does not catch is a gap in the bench); the cases of the
regression corpus (``tb/cases/``) were found by fuzzing such copies, and each says which bug in
its ``why`` as ``planted bug 'NAME'``. ``gamechip plant`` writes the copy of a corpus case's bug,
so that the failure workflow (fuzz, shrink, replay, corpus) can be tried on a real failure, and
gamechip/formal plants its proofs' bugs with ``copy_with_edits`` too.
"""

import re
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# how a corpus case's ``why`` names the planted bug that produced it
CORPUS_CITATION = re.compile(r"planted bug '([^']+)'")


class PlantError(ValueError):
    """A bug that cannot be planted: unknown, or its text is no longer in the RTL."""


# name: (design, file in rtl/, text to replace, replacement[, more text, its replacement ...])
PLANTED_BUGS = {
    "move_checker drops one direction": (
        "move_checker", "move_checker.py",
        "arriving = list(arriving_patterns(patterns, square, size).values())",
        "arriving = list(arriving_patterns(patterns, square, size).values())[1:]"),
    "move_checker capture mask also accepts a lone own disc": (
        "move_checker", "move_checker.py",
        "capture_field = (1 << pattern_bits) - 2",
        "capture_field = (1 << pattern_bits) - 1"),
    "disc_flipper flip count never decrements": (
        "disc_flipper", "disc_flipper.py",
        "flip.next = predecessor[int(incoming)]",
        "flip.next = incoming"),
    "disc_flipper ignores the placed disc on a black move": (
        "disc_flipper", "disc_flipper.py",
        "new_black.next = black | flipped_vector | placed_vector",
        "new_black.next = black | flipped_vector"),
    "neighbours wrap from one row into the next (4x4 flipper)": (
        "disc_flipper_n4", "geometry.py",
        "    if 0 <= row < size and 0 <= col < size:\n        return row * size + col",
        "    if 0 <= row * size + col < size * size:\n        return row * size + col"),
    "stable_discs stops when at most one flip-flop still changes": (
        "stable_discs", "stable_discs.py",
        "pending_vector == 0",
        "(pending_vector & (pending_vector - 1)) == 0"),
    "stable_discs inner square ignores one diagonal": (
        "stable_discs", "stable_discs.py",
        "and (south_east or north_west))",
        ")"),
    "node_order swaps two priorities (H1 before A1)": (
        "node_order", "node_order.py",
        "CORNER_SQUARES = (0, 7, 56, 63)",
        "CORNER_SQUARES = (7, 0, 56, 63)"),
    "node_order does not try the PV move first": (
        "node_order", "node_order.py",
        "pv_first.next = pv_valid and first and legal[pv_move]",
        "pv_first.next = 0"),
    "evaluator drops a corner": (
        "evaluator", "evaluator.py",
        "CORNER_SQUARES = (0, 7, 56, 63)",
        "CORNER_SQUARES = (0, 7, 56)"),
    "evaluator stage limit off by one": (
        "evaluator", "evaluator.py",
        "if discs_total <= limit_early:",
        "if discs_total < limit_early:"),
    "evaluator wraps instead of saturating": (
        "evaluator", "evaluator.py",
        "        if raw > VALUE_MAX:\n            value.next = VALUE_MAX\n"
        "        elif raw < VALUE_MIN:\n            value.next = VALUE_MIN\n"
        "        else:\n            value.next = raw[len(value):].signed()",
        "        value.next = raw[len(value):].signed()"),
    "pattern_evaluator reads the sides swapped in its second read": (
        "pattern_evaluator", "pattern_evaluator.py",
        "cells.append(ternary_index(digits_of(own_board, squares), digits_of(opp_board, squares), index))",
        "cells.append(ternary_index(digits_of(own_board, squares), digits_of(opp_board, squares), index)"
        " if number < PORTS_PER_ROM else\n"
        "                         ternary_index(digits_of(opp_board, squares), digits_of(own_board, squares), index))"),
    "pattern_evaluator one ROM entry off by one (index 3280, an all-own 8-square instance)": (
        "pattern_evaluator", "pattern_evaluator.py",
        "return tuple(weight & ((1 << WEIGHT_BITS) - 1) for weight in table)",
        "return tuple((weight + (index == 3280)) & ((1 << WEIGHT_BITS) - 1) for index, weight in enumerate(table))"),
    "openings answers with the last matching line": (
        "openings", "openings.py",
        "book.append(longer[0][len(prefix)] if longer else None)",
        "book.append(longer[-1][len(prefix)] if longer else None)"),
    "openings forgets it left the book": (
        "openings", "openings.py",
        "elif out_of_book or node_first_child == 0:",
        "elif node_first_child == 0:",
        "                node.next = cursor\n",
        "                node.next = cursor\n                out_of_book.next = 0\n"),
    "chess_movegen victim priority swapped (rook before queen)": (
        "chess_movegen", "chess/movegen.py",
        "cells.append(arbiter(victim_candidates, them_queen, them_rook,",
        "cells.append(arbiter(victim_candidates, them_rook, them_queen,"),
    "chess_movegen attacker priority swapped (knight before pawn)": (
        "chess_movegen", "chess/movegen.py",
        "cells.append(arbiter(attackers, us_pawn, us_knight,",
        "cells.append(arbiter(attackers, us_knight, us_pawn,"),
    "chess_movegen mask off by one (the last square enabled again)": (
        "chess_movegen", "chess/arbiter.py",
        "(mask_level == level and mask_square < square)",
        "(mask_level == level and mask_square <= square)"),
    "chess_movegen en passant on the wrong rank": (
        "chess_movegen", "chess/movegen.py",
        "ep_square.next = concat(intbv(4)[3:], ep_file_r)",
        "ep_square.next = concat(intbv(5)[3:], ep_file_r)"),
    "chess_movegen castling allowed through an attacked square": (
        "chess_movegen", "chess/movegen.py",
        "and castle_attacked[3:0] == 0)",
        "and not castle_attacked[0] and not castle_attacked[2])"),
    "chess_repetition takes an odd distance": (
        "chess_repetition", "chess/repetition.py",
        "        if k % 2 == 0:\n            dist_here",
        "        if k % 2 == 0 or k == 5:\n            dist_here"),
    "chess_repetition window not stopped at an irreversible move": (
        "chess_repetition", "chess/repetition.py",
        "inside.next = inside_before and count >= k and not irrev",
        "inside.next = inside_before and count >= k"),
    # a cycle without a command empties the window (the count cleared): only the bench's idle steps
    # give the detector such cycles (the batch harness gives a command at every other clock edge)
    "chess_repetition forgets its stored plies on a cycle without a command": (
        "chess_repetition", "chess/repetition.py",
        "            wtm.next = not wtm\n\n    return cells",
        "            wtm.next = not wtm\n        else:\n            count.next = 0\n\n    return cells"),
    # the search engine's solve mode (docs/spec.md §7): tests/test_search_mutants.py runs each
    # through the search bench's solves and names the node that must catch it
    "a solve's winner scoring gives the empty squares to the loser": (
        "search", "search.py",
        "                final_value.next = won_final\n"
        "            elif winner_scoring_late and own_discs < opp_discs:\n"
        "                final_value.next = lost_final",
        "                final_value.next = lost_final\n"
        "            elif winner_scoring_late and own_discs < opp_discs:\n"
        "                final_value.next = won_final"),
    "a solve's winner scoring leaves out the empty squares": (
        "search", "search.py",
        "            if winner_scoring_late and own_discs > opp_discs:\n                final_value.next = won_final",
        "            if winner_scoring_late and own_discs > opp_discs:\n                final_value.next = plain_final"),
    "a solve's final count swaps own and opp": (
        "search", "search.py",
        "difference(own_discs_wide, opp_discs_wide, plain_final)",
        "difference(opp_discs_wide, own_discs_wide, plain_final)"),
    "in a solve, a side without a move at the last empty square ends the game": (
        "search", "search.py",
        "            terminal_here.next = own_legal_late == 0 and opp_legal_late == 0",
        "            terminal_here.next = own_legal_late == 0 and (opp_legal_late == 0 or (\n"
        "                solving_late and own_discs + opp_discs == SQUARES - 1))"),
    "in a solve, a side without a move ends the game instead of passing": (
        "search", "search.py",
        "            terminal_here.next = own_legal_late == 0 and opp_legal_late == 0",
        "            terminal_here.next = own_legal_late == 0 and (opp_legal_late == 0 or solving_late)"),
}


def bug_id(name):
    """A bug's name as one word for the command line: 'node_order does not try the PV move first'
    -> 'node_order-does-not-try-the-pv-move-first'."""
    return re.sub(r"[^a-z0-9_]+", "-", name.lower()).strip("-")


def bug_named(name_or_id):
    """The name of the bug ``name_or_id`` (its name or its id); PlantError naming the valid ids."""
    for name in PLANTED_BUGS:
        if name_or_id in (name, bug_id(name)):
            return name
    raise PlantError(f"no planted bug '{name_or_id}' (gamechip plant --list names them)")


def edits_of(name):
    """(design, file in rtl/, ((text, replacement), ...)) of the bug ``name``."""
    design, file, *texts = PLANTED_BUGS[name]
    return design, file, tuple(zip(texts[::2], texts[1::2]))


def copy_with_edits(dest, file, edits, rtl_root=ROOT, why="the planted bug"):
    """Copy ``rtl_root``'s ``rtl`` package to ``dest/rtl`` (replacing one there) and apply
    ``edits`` ((text, replacement), ...; every occurrence of each text) to ``rtl/<file>``; return
    ``dest``, the folder to give GAMECHIP_RTL_ROOT. PlantError when a text is not in the file:
    the RTL changed and the bug must be planted anew by hand."""
    dest = Path(dest)
    source = Path(rtl_root) / "rtl" / file
    text = source.read_text()
    for old, new in edits:
        if old not in text:
            raise PlantError(f"{why} no longer applies: its text is not in rtl/{file}: {old.strip()[:80]!r}")
        text = text.replace(old, new)
    if (dest / "rtl").exists():
        shutil.rmtree(dest / "rtl")
    shutil.copytree(Path(rtl_root) / "rtl", dest / "rtl", ignore=shutil.ignore_patterns("__pycache__", "_netlist"))
    (dest / "rtl" / file).write_text(text)
    return dest


def plant(name, dest, rtl_root=ROOT):
    """Write a copy of ``rtl_root``'s RTL with the bug ``name`` into ``dest``; return ``dest``."""
    _, file, edits = edits_of(name)
    return copy_with_edits(dest, file, edits, rtl_root, why=f"planted bug '{name}'")


def corpus_cases_by_bug(paths):
    """{bug name: [corpus case paths]} of the case files ``paths`` whose ``why`` cites a bug of
    PLANTED_BUGS (a file that cannot be read is left out: the corpus test reports it)."""
    import json

    cases = {}
    for path in paths:
        try:
            why = json.loads(Path(path).read_text()).get("why") or ""
        except (OSError, ValueError, AttributeError):
            continue
        for name in CORPUS_CITATION.findall(why):
            if name in PLANTED_BUGS:
                cases.setdefault(name, []).append(Path(path))
    return cases
