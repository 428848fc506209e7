"""Aimed stimulus for the processor bench (tb/test_processor.py) that only its code-coverage runs
add: a sweep of every byte value over the serial input.

* :class:`ByteSweep`: noise bursts that together send every byte value 0..255 on ``rx``, each
  alone and each after a pending first character (a file letter or a code letter), every square
  as a move (occupied squares and empty ones neither side may play: the processor drops them),
  ``YY`` once the colour is known (ignored), and a glitch on ``rx`` shorter than half a bit
  (the receiver goes back to waiting for a start bit). Under the assembler rules of
  rtl/processor.py (tb.checks.processor ``assembled``) no burst forms a message the processor
  would act on.

Imports golden and tb.checks only (no cocotb), so the unit tests run it without a simulator.
"""

from tb.checks.processor import CODES, FILES, FRAME_ERROR, RANKS, assembled, harmful

GLITCH = -2   # a token of a burst: rx low for GLITCH_CYCLES clocks, then idle (no frame)
GLITCH_CYCLES = 2
FIRST_CHARACTERS = FILES + CODES


def acted_pairs(tokens, position, colour_known):
    """The pairs of ``tokens`` the processor would act on in ``position`` (the opponent to move):
    a move legal for either side, RR, II, XX, and YY while the colour is unknown."""
    pairs, _ = assembled([t for t in tokens if t != GLITCH])
    return [p for p in pairs if (p == "YY" and not colour_known) or (p != "YY" and harmful(p, position))]


class ByteSweep:
    """Noise bursts (call it with the position before each referee message) that send every byte
    value, every square and the other rubbish of the module docstring over the first bursts of a
    game, ``per_burst`` byte values a burst; the bursts after the sweep are empty. ``sent`` holds
    every byte value sent so far, ``squares`` every square sent as a move."""

    def __init__(self, per_burst=32):
        self.per_burst = per_burst
        self.calls = 0
        self.sent, self.squares = set(), set()

    def candidates(self, value):
        """The ways to send ``value``: alone, then after each first character in turn."""
        yield [value, FRAME_ERROR]
        for k in range(len(FIRST_CHARACTERS)):
            yield [ord(FIRST_CHARACTERS[(value + k) % len(FIRST_CHARACTERS)]), value, FRAME_ERROR]

    def __call__(self, position):
        colour_known = self.calls > 0   # the first burst comes before the game's first message
        first = self.calls * self.per_burst
        self.calls += 1
        tokens = []
        if first >= 256:
            return tokens
        if first == 0:
            tokens += [GLITCH, FRAME_ERROR]
        for value in range(first, min(256, first + self.per_burst)):
            for way in self.candidates(value):   # alone, and after one first character
                if not acted_pairs(way, position, colour_known):
                    tokens += way
                    self.sent.add(value)
                    if way[0] != value:
                        break
        for square in range(first // 4, min(64, (first + self.per_burst) // 4)):
            move = [ord(FILES[square % 8]), ord(RANKS[square // 8]), FRAME_ERROR]
            if not acted_pairs(move, position, colour_known):
                tokens += move
                self.squares.add(square)
        if colour_known:
            tokens += [ord("Y"), ord("Y"), FRAME_ERROR]
        assert not acted_pairs(tokens, position, colour_known), f"the sweep's burst forms a message: {tokens}"
        return tokens
