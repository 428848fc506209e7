"""Faster MyHDL elaboration of large cell networks.

Two costs dominate elaborating and converting a network of hundreds of cells (and each
conversion elaborates the design again):

* MyHDL 0.11 locates the caller of every block and generator with ``inspect.stack()``. That
  call also reads source lines and searches ``sys.modules`` for each frame on the stack.
  MyHDL only reads the frame and the function name of each record, so ``frame_records``
  builds just those.
* MyHDL parses the source of every generator instance again (``inspect.getsource``, which
  tokenizes the whole enclosing block, then ``compile``), several times per conversion, although
  all instances of one cell share one function body. ``cached_ast`` parses each code object
  once and hands out fresh copies of the pristine tree, unpickled from bytes (several times
  faster than ``copy.deepcopy``; the analysers annotate the tree they get, so copies are
  never shared).

``frame_records_only`` swaps both in while elaborating or converting. The converted HDL is
byte-for-byte the same.
"""

import inspect
import pickle
import sys
from contextlib import contextmanager

import myhdl._instance
import myhdl.conversion._analyze
from myhdl._util import _makeAST

_AST_CACHE = {}
_AST_USERS = (myhdl._instance, myhdl.conversion._analyze)


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


def cached_ast(function):
    """MyHDL's ``_makeAST(function)``, parsed once per code object: a fresh copy each call
    (the tree, with its ``sourcefile`` and ``lineoffset`` attributes, kept pickled)."""
    code = function.__code__
    pristine = _AST_CACHE.get(code)
    if pristine is None:
        pristine = _AST_CACHE[code] = pickle.dumps(_makeAST(function))
    return pickle.loads(pristine)


@contextmanager
def frame_records_only():
    """Within the block, ``inspect.stack`` is ``frame_records`` and MyHDL parses generator
    sources through ``cached_ast``."""
    original = inspect.stack
    inspect.stack = frame_records
    for module in _AST_USERS:
        module._makeAST = cached_ast
    try:
        yield
    finally:
        inspect.stack = original
        for module in _AST_USERS:
            module._makeAST = _makeAST
