"""Measurements of the design: how fast it is checked, how large it is, what a host gains.

- bench.py: ``gamechip bench``, how fast each block is checked on each simulator.
- search_bench.py: the search engine's part of ``gamechip bench``: cycles per node, nodes per
  second, the depth completed within a budget.
- processor_bench.py: the whole processor's part of it: simulated cycles per second with every
  check on.
- area.py: ``gamechip area``, area and clock of every design on FPGA families.
- parallel.py: ``gamechip parallel``, the host search over P engines.
- codesign.py: ``gamechip codesign``, the host-processor co-design measurements.
"""
