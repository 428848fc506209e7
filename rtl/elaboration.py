"""Faster MyHDL elaboration of large cell networks.

MyHDL 0.11 locates the caller of every block and generator with ``inspect.stack()``. That
call also reads source lines and searches ``sys.modules`` for each frame on the stack, which
is about two thirds of the time spent elaborating and converting a network of hundreds of
cells (each conversion elaborates the design again). MyHDL only reads the frame and the
function name of each record, so while elaborating or converting, ``frame_records_only``
swaps in a ``stack()`` that builds just those. The converted HDL is byte-for-byte the same.
"""

import inspect
import sys
from contextlib import contextmanager


def frame_records(context=1):
    """``inspect.stack()`` of the caller without source context (``context`` is ignored)."""
    records = []
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        records.append(inspect.FrameInfo(frame, code.co_filename, frame.f_lineno, code.co_name,
                                         None, None))
        frame = frame.f_back
    return records


@contextmanager
def frame_records_only():
    """Within the block, ``inspect.stack`` is ``frame_records``."""
    original = inspect.stack
    inspect.stack = frame_records
    try:
        yield
    finally:
        inspect.stack = original
