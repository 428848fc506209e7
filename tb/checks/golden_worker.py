"""The golden side of the fast fuzz loop (tb/sim/fastfuzz.py), as a process of its own: ideally
under PyPy, on the core the simulator does not use.

``python -m tb.checks.golden_worker --block B --size N --seed S --count C`` makes the run's fuzz cases
chunk by chunk (the same cases, from the same seed, as the bench's in-process loop: tb.checks.combinational
``fuzz_chunks``) and writes, per chunk, into the current folder:

* ``fuzz_in_<slot>.bin``: the stimulus, binary: the fields of the lines the bench would write
  (check.stimulus), each as ``--field-bytes`` big-endian bytes, as the Verilog harness's
  ``$fread`` reads them into its stimulus memory (tb.host.harness ``pack_stimulus``);
* ``fuzz_expected_<slot>.txt``: the golden model's answers written exactly as the Verilog harness
  writes the block's (check.expected_line), so that the bench compares the two files as bytes.

Then it prints one JSON line (chunk number, slot, first position, cases, the state of both
random generators before the chunk, seconds the golden model's expected values took and seconds
the whole chunk took) and goes on with the next
chunk. Slots are reused: before writing chunk k into slot k % SLOTS it waits on stdin for the line
``k - SLOTS`` (the bench has finished with that chunk). Its first line says which interpreter
and kernel run the golden model; the last is ``{"end": true}``.

Kernels: ``ints`` runs the checks' own methods (golden.othello on Python ints, every board
size); ``words`` (8x8, the default under PyPy) runs golden.words, the golden model's machine-word
form (``golden.words.random_occupancy``/``random_game_positions``/``legal_moves``/``flips``):
the same draws and the same answers, without PyPy's big integers (bitboards of 2**63 or more),
which make golden.othello slower under PyPy than under CPython. tests/test_fastfuzz.py checks
that both kernels write identical bytes. Imports: golden and tb.checks.combinational only (no cocotb, no rtl).
"""

import argparse
import json
import platform
import sys
import time
from array import array

from tb.checks.combinational import CHUNK, WORKER_CHECKS, fuzz_chunk, fuzz_generators, pack_stimulus
from tb.checks.coverage_samplers import CoverageRecorder, word_sampler

SLOTS = 3
STIMULUS_FILE = "fuzz_in_{}.bin"
EXPECTED_FILE = "fuzz_expected_{}.txt"


class IntsKernel:
    """The checks' own methods: golden.othello on Python ints (any board size)."""

    name = "ints"

    def __init__(self, check, positions_rng, moves_rng, count, field_bytes):
        self.check, self.positions_rng, self.moves_rng, self.count = check, positions_rng, moves_rng, count
        self.field_bytes = field_bytes

    def chunk(self, first):
        """(binary stimulus, expected text, cases, seconds of golden expected values)."""
        check = self.check
        cases = fuzz_chunk(check, self.positions_rng, self.moves_rng, first, self.count)
        stimulus = pack_stimulus([check.stimulus(case) for case in cases], self.field_bytes)
        started = time.perf_counter()
        expected = [check.expected(case) for case in cases]
        seconds = time.perf_counter() - started
        self.checked = (cases, expected)
        return stimulus, "".join([check.expected_line(e) + "\n" for e in expected]), len(cases), seconds


class WordsKernel:
    """The same chunks on golden.words (8x8 only): fast under PyPy."""

    name = "words"

    def __init__(self, check, positions_rng, moves_rng, count, field_bytes):
        from golden import words
        if check.size != 8 or field_bytes != 8:
            raise ValueError("the words kernel is 8x8 only (8-byte stimulus fields)")
        self.words = words
        self.check, self.positions_rng, self.moves_rng, self.count = check, positions_rng, moves_rng, count

    def _positions(self, count):
        """tb.checks.directed.mixed_positions's positions (without labels) as (black, white, wtm) words."""
        rng, words, out = self.positions_rng, self.words, []
        while len(out) < count:
            out += [words.random_occupancy(rng) for _ in range(64)]
            out += words.random_game_positions(rng)
        del out[count:]
        return out

    def _hex(self, word):
        return "%08x%08x" % (self.words.urshift(word, 32), word & 0xFFFFFFFF)

    @staticmethod
    def _pack(fields):
        """Signed words (and small ints) -> 8 big-endian bytes each: their 64 bits."""
        packed = array("q", fields)
        if sys.byteorder == "little":
            packed.byteswap()
        return packed.tobytes()

    def chunk(self, first):
        positions = self._positions(min(CHUNK, self.count - first))
        stimulus, expected, seconds = getattr(self, "_" + self.check.block)(positions)
        return stimulus, expected, len(positions), seconds

    def _move_checker(self, positions):
        # (concatenation, not f-strings with format specs: those are slow under PyPy 3.9)
        hexed, legal_moves = self._hex, self.words.legal_moves
        sides = [(white, black) if wtm else (black, white) for black, white, wtm in positions]
        stimulus = self._pack([field for side in sides for field in side])
        started = time.perf_counter()
        expected = [legal_moves(own, opp) for own, opp in sides]
        seconds = time.perf_counter() - started
        self.last = (positions, None, expected)
        return stimulus, "".join([hexed(e) + "\n" for e in expected]), seconds

    def _disc_flipper(self, positions):
        # DiscFlipperCheck.cases: a legal move with LEGAL_SHARE, else any value of the move port.
        # Small loops, one job each: PyPy compiles them sooner than one loop doing everything.
        words, rng, hexed = self.words, self.moves_rng, self._hex
        legal_share, move_values = self.check.LEGAL_SHARE, self.check.move_values
        legal_moves, squares, lshift, flips = words.legal_moves, words.squares, words.lshift, words.flips
        random, choice, randrange = rng.random, rng.choice, rng.randrange
        sides = [(white, black) if wtm else (black, white) for black, white, wtm in positions]
        legal = [squares(legal_moves(own, opp)) for own, opp in sides]
        moves = [choice(squares) if squares and random() < legal_share else randrange(move_values)
                 for squares in legal]
        stimulus = self._pack([field for (black, white, wtm), move in zip(positions, moves)
                               for field in (black, white, int(wtm), move)])
        started = time.perf_counter()
        bits = [lshift(1, move) for move in moves]
        flipped = [0 if (own | opp) & bit else flips(own, opp, bit) for (own, opp), bit in zip(sides, bits)]
        expected = []
        for (black, white, wtm), (own, opp), bit, flip in zip(positions, sides, bits, flipped):
            if not flip:
                expected.append((black, white, 1))
            elif wtm:
                expected.append((black & ~flip, white | flip | bit, 0))
            else:
                expected.append((black | flip | bit, white & ~flip, 0))
        seconds = time.perf_counter() - started
        self.last = (positions, moves, expected)
        illegal = (" 0\n", " 1\n")
        return stimulus, "".join([hexed(b) + " " + hexed(w) + illegal[i] for b, w, i in expected]), seconds


class Pairs:
    """The words kernel's last chunk as the coverage recorder reads it: a sequence whose item i is
    made only when asked for (the recorder samples a few of them)."""

    def __init__(self, count, make):
        self.count, self.make = count, make

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        return self.make(index)


def words_checked(kernel):
    """(cases, expected) of a words kernel's last chunk, as tb.checks.coverage_samplers
    ``word_sampler`` reads them: each position (black, white, white_to_move), with its move for the
    flipper, and the kernel's answer, all golden.words words."""
    positions, moves, expected = kernel.last
    cases = positions if moves is None else Pairs(len(positions), lambda index: (*positions[index], moves[index]))
    return cases, expected


KERNELS = {"ints": IntsKernel, "words": WordsKernel}


def default_kernel(size, field_bytes):
    from golden import words
    return "words" if words.NATIVE and size == 8 and field_bytes == 8 else "ints"


def interpreter():
    return f"{platform.python_implementation()} {platform.python_version()}"


def serve(block, size, seed, count, field_bytes, kernel=None, acks=sys.stdin, out=sys.stdout, slots=SLOTS):
    check = WORKER_CHECKS[block](size)
    kernel = kernel or default_kernel(size, field_bytes)
    positions_rng, moves_rng = fuzz_generators(seed)
    maker = KERNELS[kernel](check, positions_rng, moves_rng, count, field_bytes)

    def say(record):
        out.write(json.dumps(record) + "\n")
        out.flush()

    say({"python": interpreter(), "kernel": kernel})
    coverage = CoverageRecorder.from_environment("fuzz")   # None unless the run samples coverage
    if coverage is not None and kernel == "words":   # its cases and answers are words: sampled as they are
        coverage.sample_one = word_sampler(block)
    released = -1   # chunks up to this one are done with: their slots are free
    try:
        for index, first in enumerate(range(0, count, CHUNK)):
            while index - slots > released:
                line = acks.readline()
                if not line:
                    return   # the bench has gone
                released = int(line)
            working, cpu = time.perf_counter(), time.process_time()
            states = [rng.getstate() for rng in (positions_rng, moves_rng)]
            stimulus, expected, cases, seconds = maker.chunk(first)
            if coverage is not None:
                coverage.sample(*(maker.checked if isinstance(maker, IntsKernel) else words_checked(maker)),
                                defer_dense=True)
            slot = index % slots
            with open(STIMULUS_FILE.format(slot), "wb") as f:
                f.write(stimulus)
            with open(EXPECTED_FILE.format(slot), "w") as f:
                f.write(expected)
            say({"chunk": index, "slot": slot, "first": first, "cases": cases, "golden_seconds": seconds,
                 "worker_seconds": time.perf_counter() - working, "worker_cpu_seconds": time.process_time() - cpu,
                 "stimulus": STIMULUS_FILE.format(slot),
                 "expected": EXPECTED_FILE.format(slot), "states": states})
    finally:
        if coverage is not None:
            coverage.sample_deferred()   # while the bench checks the chunks still in its slots
            coverage.save()
    say({"end": True})


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tb.checks.golden_worker", description=__doc__.split("\n\n")[0])
    parser.add_argument("--block", required=True, choices=sorted(WORKER_CHECKS))
    parser.add_argument("--size", type=int, default=8)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--field-bytes", type=int, required=True, help="bytes of one stimulus field (its memory word)")
    parser.add_argument("--kernel", choices=sorted(KERNELS))
    args = parser.parse_args(argv)
    serve(args.block, args.size, args.seed, args.count, args.field_bytes, args.kernel)


if __name__ == "__main__":
    main()
