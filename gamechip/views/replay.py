"""What ``gamechip replay CASE --waves`` writes next to the waveform, for a person without a
waveform viewer or without a display:

* ``<harness>.gtkw``: a GTKWave save file that opens the dump with the harness signals grouped
  (control, inputs, outputs; sets of squares in hex, numbers in decimal), zoomed on the failing
  vector/cycle with the marker on it;
* ``waves-window.svg`` (and ``.png``): the same signals around the failing cycle, drawn, with the
  values at the marker and the golden model's expected outputs beside them;
* ``board-expected.svg`` and ``board-actual.svg``: the case's position with the expected and
  the actual answer, the squares where they differ framed in red (inside the move's blue frame).

Each piece is made on its own; one that cannot be made (no dump reader, an unreadable dump, a
crashed replay) leaves a one-line note instead, never a traceback.
"""

from pathlib import Path

from gamechip.views.boards import board_svg
from gamechip.views.failure import Failure, failure_view

WINDOW = "waves-window"
BOARDS = ("board-expected.svg", "board-actual.svg")
# the titles of the board pictures of a replay that passed: they show the case file's failure
SAVED_PREFIX = "saved failure: "


def passed_summary(where=None):
    """What every view of a replay that passed says about itself; ``where``: the saved failure's
    place in the case ('vector 3', 'node #12'), when known."""
    at = f" at {where}" if where else ""
    return f"replayed: passes (the saved failure{at} is shown in the board pictures)"


def _clear_previous(folder):
    """A replay directory is reused by the next replay of the same design: never leave a
    picture or save file of another case behind."""
    for name in (f"{WINDOW}.svg", f"{WINDOW}.png", *BOARDS):
        (folder / name).unlink(missing_ok=True)
    for save_file in folder.glob("*.gtkw"):
        save_file.unlink()


def _one_line(error):
    """An exception as one line: our own messages as they are, anything else with its type."""
    from gamechip.views.waves import WaveError

    lines = str(error).strip().splitlines()
    first = lines[0] if lines else ""
    return first if isinstance(error, (WaveError, ValueError)) and first else f"{type(error).__name__}: {first}"


def board_pictures(record, prefix=""):
    """(FailureView, {file name: SVG text}) of a case record; ``prefix`` leads each picture's title."""
    if "fen" in record.get("case", {}):  # chess: python-chess draws the boards
        from gamechip.views.chess import chess_pictures

        index, pictures = chess_pictures(record, prefix)
        return _ChessView(index), pictures
    view = failure_view(Failure(record))
    for picture in (view.expected, view.actual):
        picture.title = prefix + picture.title
    return view, {BOARDS[0]: board_svg(view.expected), BOARDS[1]: board_svg(view.actual)}


class _ChessView:
    """Where a chess case first differs: its request (vector) index; the waveform marker uses it.
    No expected port values: the signal window marks the request without them."""

    def __init__(self, vector):
        self.vector, self.cycle, self.expected_outputs = vector, None, {}


def write_replay_views(record, waveform, sim_dir, passed=False):
    """Write everything next to ``waveform`` (or into ``sim_dir`` when there is none); return
    ([(what, path)], [one-line notes]). ``passed``: the replay passed, so the board pictures show
    the saved failure (``record``'s answers) and the signal window the replay's right answers;
    every title says so, and the marker is where the saved failure was."""
    from gamechip.views.waves import waveform_views

    folder = Path(waveform).parent if waveform else Path(sim_dir)
    folder.mkdir(parents=True, exist_ok=True)
    _clear_previous(folder)
    written, notes = [], []
    title = (f"{record.get('block')} ({record.get('design')}) on {record.get('sim')}, seed {record.get('seed')}: "
             f"{record.get('case', {}).get('label', '')}")
    vector = cycle = expected = None  # where the answers first differ and what was expected there, when known
    try:
        view, pictures = board_pictures(record, SAVED_PREFIX if passed else "")
        vector, cycle, expected = view.vector, view.cycle, view.expected_outputs
        for name, svg in pictures.items():
            (folder / name).write_text(svg)
            written.append((f"board picture ({name.removesuffix('.svg').removeprefix('board-')})", folder / name))
    except Exception as error:  # a picture is a help, never a reason to fail the replay
        notes.append(f"board pictures not written: {_one_line(error)}")
    if passed:
        title = f"{title}; {passed_summary(None if vector is None else f'vector {vector}')}"
    if not waveform or not Path(waveform).exists():
        notes.append(f"GTKWave save file and signal window not written: no waveform {waveform or ''}".rstrip())
        return written, notes
    try:
        save, gtkw, picture, located, wave_notes = waveform_views(record["design"], waveform, sim_dir, vector, cycle,
                                                                  title, expected, passed)
    except Exception as error:  # WaveError, or anything unexpected in someone else's dump
        notes.append(f"GTKWave save file and signal window not written: {_one_line(error)}")
        return written, notes
    notes += wave_notes
    save.write_text(gtkw)
    written.append((f"GTKWave save file ({located.label})", save))
    if picture is not None:
        svg = folder / f"{WINDOW}.svg"
        svg.write_text(picture.svg(title=title))
        written.append(("signal window (SVG)", svg))
        try:
            picture.png(folder / f"{WINDOW}.png")
            written.append(("signal window (PNG)", folder / f"{WINDOW}.png"))
        except ImportError:
            notes.append("signal window PNG not written: Pillow is not installed (pip install pillow)")
        except Exception as error:
            notes.append(f"signal window PNG not written: {_one_line(error)}")
    return written, notes
