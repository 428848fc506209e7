"""The host side: what builds the simulators and runs the benches, in the ``gamechip`` process
or pytest's, never inside a simulator.

The toolchain (which cocotb and Verilator, and how Verilator builds), the harness generators
(HDL text around a design), the runner (converted designs, builds, one
simulation per call, its results and case file read back), each self-driving bench's entry
points (run its tests, replay a case), case files, the corpus, the shrinker, build slots and
timelines. Imports tb.checks and tb.blocks; it names the benches (tb.test_*) only as cocotb module
strings and never imports tb.sim or a bench, so it loads without cocotb.
"""
