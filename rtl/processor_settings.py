"""The processor's endgame-solve settings (rtl/processor.py ``solve_empties``), in a module of their
own without MyHDL, so that the command line's golden side (under PyPy) reads the converted design's
value from the RTL itself."""

# The converted one-context processor (design ``processor``) and the board top solve the endgame at
# this many empty squares or fewer: the largest E whose WLD and exact solves fit the seed's 3.2 M
# cycles a move in nearly all measured endgames (docs/solve.md, "The processor solves its endgame").
# A golden processor paired with those designs is given the same E.
PROCESSOR_SOLVE_EMPTIES = 14
# A processor that solves has the solving engine's board stack of 32 levels (rtl/search.py
# SOLVE_LEVELS), not the midgame search's 16: an exact solve's lines include passes, and with 16
# levels (deepest ply 15) most exact solves of 12 empties overflow (docs/solve.md). A solve's deepest
# ply is then 31, which bounds the empties it can take.
MAX_SOLVE_EMPTIES = 31
