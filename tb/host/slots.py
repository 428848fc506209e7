"""Build slots: build directories that concurrent runs on one machine take in turn.

A slot is an exclusive lock file under the build folder; the run holding slot N builds with
the tag ``slot_tag(N)`` (tb.host.runner's build_dir), so no two concurrent runs share a build
directory and a slot reuses its build for the next run of the same design and simulator.
``gamechip campaign`` takes one per shard, on its own machine or on a Dask worker.
"""

import fcntl
import itertools
import re
import time
from pathlib import Path

from tb.host import runner
MAX_SLOTS = 1024
RELEASE_GRACE = 0.05   # seconds
_SLOT_TAG = re.compile(r"-campaign-s(\d+)-")


def slot_tag(slot):
    return f"campaign-s{slot}"


def built_slots(design, sim):
    """Slots whose build directory for ``design`` on ``sim`` exists (any RTL version)."""
    # build_dir names the directory; '*' for the RTL digest and the slot number makes it a pattern
    pattern = runner.build_dir(design, sim, Path("*"), tag=slot_tag("*")).name
    return sorted({int(m.group(1)) for d in (runner.BUILD / "sim").glob(pattern) if (m := _SLOT_TAG.search(d.name))})


def take_slot(design, sim):
    """A free slot on this machine: (number, open lock file), preferring one that has built
    ``design`` for ``sim`` already (a Verilator build takes a minute), else the lowest; waits
    while all are taken. The slot is held while the lock file stays open, in this process or
    in a child it was passed to."""
    folder = runner.BUILD / "campaign-slots"
    folder.mkdir(parents=True, exist_ok=True)
    built = built_slots(design, sim)
    others = [s for s in range(MAX_SLOTS) if s not in built]
    # A slot whose holder has just closed its lock can stay locked a few ms longer: a child that
    # another thread of the holder's process was starting holds a copy of the descriptor from its
    # fork to its exec. So the built slots are tried twice, RELEASE_GRACE apart, before a new one.
    for attempt in itertools.count():
        for slot in built if attempt == 0 else built + others:
            lock = open(folder / f"slot-{slot}.lock", "w")
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return slot, lock
            except BlockingIOError:
                lock.close()
        time.sleep(RELEASE_GRACE if attempt < 2 else 1)
