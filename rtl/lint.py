"""Verilator lint settings for the converted Verilog, kept in this one place.

``VERILATOR_WAIVERS`` maps each ``-Wno-...`` flag to the reason it is acceptable. It is
empty: every design converts clean under ``-Wall``. (The move checker tests its arriving
patterns through a mask rather than by slicing off bit 0, which would otherwise leave bits
that UNUSEDSIGNAL reports. The evaluator zero-extends its counts with exact-width
concatenations before subtracting, and saturates with an explicit ``[9:].signed()`` slice,
so no operand is widened or truncated implicitly (WIDTH); it builds its stable_discs
instances without the unused ``stable`` vector (UNUSEDSIGNAL). The node ordering compares
positions with constants in one cell per position, not with a loop variable, which converts
to a 32-bit ``integer`` (WIDTH), and builds no "< 0" comparison (UNSIGNED).) Add a waiver
only with its reason.
"""

VERILATOR_WAIVERS = {}

VERILATOR_LINT_FLAGS = ["--lint-only", "-Wall", *VERILATOR_WAIVERS]
