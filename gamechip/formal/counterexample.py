"""A failed proof's counterexample: the trace SymbiYosys wrote (VCD), read back into the inputs
of the harness, and for the blocks with a batch bench a case file (tb/host/casefile format) that
``gamechip replay`` runs on the same RTL.

The VCD of yosys-smtbmc has one step every 10 time units; the harness's inputs are the free
variables of the proof, so step k's inputs are the values at time 10 k in scope ``formal_<design>``.
"""

from __future__ import annotations

from pathlib import Path

from gamechip.views.waves import Dump, Trace, value_at

STEP = 10


def trace_values(vcd, top, names):
    """[{name: value}] per step of the counterexample, for the harness signals ``names``."""
    dump = Dump(vcd)
    traces = [Trace(name, "inputs", 1) for name in names]
    held = dump.read(top, traces)
    last = max((t.changes[-1][0] for t in held if t.changes), default=0)
    steps = []
    for time in range(0, int(last) + 1, STEP):
        steps.append({t.name: value_at(t.changes, time) for t in held})
    return steps or [{}]


def board_text(black, white, white_to_move, size=8):
    from golden.board import Position, format_board

    return format_board(Position(black, white, bool(white_to_move), size))


def _record(design, case, rtl_root, why, expected, actual):
    from tb.host.runner import rtl_digest

    return {"block": design, "design": design, "sim": "icarus", "seed": 1,
            "rtl_root": str(rtl_root), "rtl_digest": rtl_digest(Path(rtl_root)),
            "case": {"size": 8, "move": None, "color": None, "legal": None, "pv": None, "moves": [], **case},
            "expected": expected, "actual": actual, "why": why}


def case_record(design, vcd, rtl_root, why):
    """The case file record of the counterexample in ``vcd``, or None when ``design``'s bench has
    no batch case for it."""
    top = f"formal_{design}"
    label = f"formal counterexample ({why})"
    if design == "move_checker":
        step = trace_values(vcd, top, ["own", "opp", "legal", "expected"])[0]
        case = {"board": board_text(step["own"], step["opp"], False), "label": label}
        return _record(design, case, rtl_root, why, str(step.get("expected")), str(step.get("legal")))
    if design == "disc_flipper":
        step = trace_values(vcd, top, ["black", "white", "white_to_move", "move", "new_black", "new_white"])[0]
        case = {"board": board_text(step["black"], step["white"], step["white_to_move"]),
                "move": step["move"], "label": label}
        return _record(design, case, rtl_root, why, "the reference's board (see the proof)",
                       f"{step.get('new_black')} {step.get('new_white')}")
    if design == "stable_discs":
        steps = trace_values(vcd, top, ["start", "rst", "black", "white", "color", "count"])
        started = [s for s in steps if s.get("start") and not s.get("rst")]
        if not started:
            return None
        step = started[-1]
        case = {"board": board_text(step["black"], step["white"], False), "color": "O" if step["color"] else "X",
                "label": label}
        return _record(design, case, rtl_root, why, "the stable set of docs/spec.md §3's rule", "see the proof's trace")
    return None
