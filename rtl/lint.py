"""Verilator lint settings for the converted Verilog, kept in this one place.

``VERILATOR_WAIVERS`` maps each ``-Wno-...`` flag to the reason it is acceptable. It is
empty: every design converts clean under ``-Wall``. (The move checker tests its arriving
patterns through a mask rather than by slicing off bit 0, which would otherwise leave bits
that UNUSEDSIGNAL reports.) Add a waiver only with its reason.
"""

VERILATOR_WAIVERS = {}

VERILATOR_LINT_FLAGS = ["--lint-only", "-Wall", *VERILATOR_WAIVERS]
