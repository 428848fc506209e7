"""Pure-Python checks: what each block is asked and what the golden model says it must answer.

Cases and the ``BlockCheck`` interface, the checks of the blocks, the directed and random
positions, how a harness's response lines become values, the search scoreboard and the searches
it runs, the golden side of the processor bench. Nothing here imports cocotb or runs a
simulator: the benches use these modules inside the simulator, the host side (the shrinker, the
case files, the command line) and the golden worker process (under PyPy) outside it. Imports
golden/ and, for constants, rtl/ only, and no other part of tb/.
"""
