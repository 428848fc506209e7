"""How a sequential block's harness answers (tb.host.harness generates it): per vector, one
line per cycle up to its ``done`` (at most MAX_CYCLES), then idle cycles in which ``done`` must
stay low, a line written only for a ``done`` there. The checks of the start/done blocks read
their answers through these functions, in the simulator and outside it alike.
"""

from tb.checks.combinational import hex_field

MAX_CYCLES = 128
# start/done blocks: idle cycles after every done, in which done must stay low (a done that
# repeats or never falls, or a block that goes on working, is a bug no answer shows): vector k
# waits IDLE_GAPS[k % 8] cycles (back to back too); a line is written only when done is high,
# its cycle field IDLE_MARK + the idle cycle
IDLE_GAPS = (0, 1, 2, 5, 0, 12, 3, 24)
IDLE_MARK = MAX_CYCLES


DONE_WHILE_IDLE = "done high again after its done"


def cycle_runs(lines):
    """Response lines of a start/done harness -> per vector, its list of per-cycle field
    tuples (``cycle`` first; every vector's lines start again at cycle 0). A done in the idle
    cycles after a vector (IDLE_MARK) ends that vector's run as a last tuple whose
    ``done`` field is DONE_WHILE_IDLE: no expected answer matches it."""
    runs = []
    for line in lines:
        fields = tuple(hex_field(f) for f in line.split())
        if isinstance(fields[0], int) and fields[0] >= IDLE_MARK and runs:
            if runs[-1][-1][1] != DONE_WHILE_IDLE:
                runs[-1].append((fields[0] - IDLE_MARK, DONE_WHILE_IDLE, *fields[2:]))
            continue
        if fields[0] == 0:
            runs.append([])
        runs[-1].append(fields)
    return runs


def split_steps(answers, cases):
    """One answer per vector -> per case, its ``len(case.moves) + 1`` answers (before the
    first fed move, then after each)."""
    out, first = [], 0
    for case in cases:
        steps = len(case.moves) + 1
        out.append(answers[first:first + steps])
        first += steps
    return out
