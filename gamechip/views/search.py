"""What ``gamechip replay CASE --waves`` writes for a failing search-engine case: a GTKWave save
file and a signal-window picture around the cycle of the first diverging node, and board
pictures (SVG) of that node as the golden search expected it and as the engine reported it.

The engine is the simulation's top level (no batch harness), so the signals are its own ports;
the marker's time comes from the scoreboard's record (cycle and simulation time).
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from gamechip.views.boards import BoardPicture, board_svg
from gamechip.views.replay import SAVED_PREFIX, passed_summary
from gamechip.views.waves import (UNITS_PER_NS, Dump, Located, WaveError, design_trace, gtkw_text, render_window,
                            save_file_path)
from golden.board import parse_board, parse_square

WINDOW_CYCLES = 12       # cycles shown before and after the diverging node
CLOCK_NS = 10
TOP = "search"
CONTROL = ("clk", "rst", "start", "done", "node_event", "fault")
OUTPUTS = ("event_kind", "event_ply", "event_black", "event_white", "event_white_to_move",
           "event_legal", "event_value", "event_stable_own", "event_stable_opp",
           "best_move", "best_pass", "value", "depth", "nodes", "cycles")


@dataclass
class Marker:
    """Where the marker goes (the fields waves.Located expects of a sample)."""

    vector: int
    cycle: Optional[int]
    shown_ns: float


def search_traces():
    from rtl.designs import PORTS

    widths = {name: width for name, width, _ in PORTS["search"]}
    traces = [design_trace(TOP, name, "control", widths[name]) for name in CONTROL]
    traces += [design_trace(TOP, n, "inputs", w) for n, w, d in PORTS["search"] if d == "in" and n not in CONTROL]
    traces += [design_trace(TOP, name, "outputs", widths[name]) for name in OUTPUTS]
    return traces


def legal_bits(node):
    legal = node.get("legal", 0)
    if isinstance(legal, str):  # square names, as the scoreboard records them
        legal = sum(1 << parse_square(name) for name in legal.split() if name != "none")
    return legal


def expected_outputs(node):
    """The engine's event outputs for the node the scoreboard expected ({port: value}); nothing
    when it expected none."""
    from tb.checks.search import KINDS

    if not isinstance(node, dict) or "board" not in node:
        return {}
    pos = parse_board(node["board"])
    kinds = {kind: code for code, kind in KINDS.items()}
    outputs = {"event_kind": kinds.get(node.get("kind")), "event_ply": node.get("ply"), "event_black": pos.black,
               "event_white": pos.white, "event_white_to_move": int(pos.white_to_move), "event_legal": legal_bits(node)}
    if node.get("value") is not None:
        outputs.update(event_value=node["value"], event_stable_own=node["stable"][0],
                       event_stable_opp=node["stable"][1])
    return outputs


def node_picture(title, node, other):
    """A picture of one reported node; squares whose disc differs from ``other`` framed."""
    pos = parse_board(node["board"])
    legal = legal_bits(node)
    differs = 0
    if other and other.get("board") and "overlap" not in other["board"]:
        theirs = parse_board(other["board"])
        differs = (pos.black ^ theirs.black) | (pos.white ^ theirs.white)
    caption = [f"{node['kind']} node, ply {node['ply']}, cycle {node['cycle']}, "
               f"{pos.side} to move; dots: legal moves"]
    table = []
    if node.get("value") is not None:
        table = [("value", node["value"], other is not None and other.get("value") != node["value"]),
                 ("stable own/opp", "/".join(map(str, node["stable"])),
                  other is not None and other.get("stable") != node["stable"])]
        for name, value in (node.get("terms") or {}).items():
            theirs = (other or {}).get("terms") or {}
            table.append((name, value, theirs.get(name) != value))
    return BoardPicture(title, 8, pos.black, pos.white, dots=legal, differs=differs,
                        caption=caption, table=table)


def write_search_views(record, waveform, passed=False):
    """Write the views of a search case next to ``waveform``; return ([(what, path)], [notes]).
    ``passed``: the replay passed; the pictures show the saved failure and every title says so."""
    mismatch = record.get("mismatch") or {}
    folder = Path(waveform).parent if waveform else Path(".")
    written, notes = [], []
    expected, actual = mismatch.get("expected"), mismatch.get("actual")
    for name, node, other in (("expected", expected, actual), ("actual", actual, expected)):
        if not isinstance(node, dict) or "board" not in node or "overlap" in node["board"]:
            notes.append(f"board picture ({name}) not written: the scoreboard has no {name} node here")
            continue
        path = folder / f"board-{name}.svg"
        saved = SAVED_PREFIX if passed else ""
        path.write_text(board_svg(node_picture(f"{saved}{name}: node #{mismatch.get('node')} "
                                               f"({mismatch.get('path')})", node, other)))
        written.append((f"board picture ({name})", path))
    if not waveform or not Path(waveform).exists():
        notes.append("GTKWave save file and signal window not written: no waveform")
        return written, notes
    cycle = mismatch.get("cycle", 0)
    shown = float(mismatch.get("time_ns", cycle * CLOCK_NS))
    located = Located(Marker(mismatch.get("node", 0), cycle, shown),
                      max(0.0, shown - WINDOW_CYCLES * CLOCK_NS), shown + WINDOW_CYCLES * CLOCK_NS,
                      "scoreboard", passed=passed)
    title = (f"search on {record.get('sim')}: {mismatch.get('what', '')} at node #{mismatch.get('node')} "
             f"({mismatch.get('path')})")
    if passed:
        title = f"{title}; {passed_summary('node #' + str(mismatch.get('node')))}"
    traces = search_traces()
    try:
        dump = Dump(waveform)
        traces = dump.read(TOP, traces)
        if not traces:
            raise WaveError(f"no signal of {TOP} in {waveform}")
        units, viewer_units, dump_format = dump.units_per_ns, dump.viewer_units_per_ns, dump.format
        located.dump_end_ns = dump.last_change_ns(traces)
    except WaveError as error:
        notes.append(f"signal window not written: {error}")
        dump, dump_format = None, Path(waveform).suffix.lstrip(".").upper()
        units = viewer_units = UNITS_PER_NS.get(Path(waveform).suffix, 1000)
    save = save_file_path(waveform, TOP)
    save.write_text(gtkw_text(waveform, save, dump_format, TOP, traces, located, viewer_units, title))
    written.append((f"GTKWave save file (marker at cycle {cycle}, {shown:g} ns)", save))
    if dump:
        picture = render_window(traces, located, units, title, expected_outputs(expected))
        (folder / "waves-window.svg").write_text(picture.svg(title=title))
        written.append(("signal window (SVG)", folder / "waves-window.svg"))
        try:
            picture.png(folder / "waves-window.png")
            written.append(("signal window (PNG)", folder / "waves-window.png"))
        except Exception as error:  # Pillow missing or a drawing problem: the SVG is there
            notes.append(f"signal window PNG not written: {error}")
    return written, notes
