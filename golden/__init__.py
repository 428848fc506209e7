"""Pure-Python golden model of the gamechip Othello blocks (docs/spec.md §0-§3).

It never imports ``rtl`` and uses whole-bitboard algorithms, unlike the RTL's
per-square cell networks, so a cross-check between the two can find bugs.
``golden.slow`` is a third, square-by-square reference used to test this model.
"""
