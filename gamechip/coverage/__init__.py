"""Coverage closure: the test plans as data, the functional coverage the benches sample, the
report.

- plan.py: reads tb/testplans/<block>.toml (points, axes, bins, crosses, the tests and generators
  aimed at each) and the waivers file.
- model.py: hit files merged (across tests, simulators, runs), each design's bins hit, waived and
  open; the cocotb-coverage model and its export.
- report.py: runs/coverage/index.html and the --json form.
- runs.py: the bench runs ``gamechip coverage`` makes, with sampling on.
- code.py: Verilator's line, toggle and branch coverage of the converted RTL (the batch blocks' runs
  and the runs of the designs with benches of their own).
- source_map.py: each always block of the converted Verilog and the MyHDL generator it came from.
- unhit.py: the explanations of unhit converted lines (tb/coverage_unhit.toml) and the facts about
  the netlist they rest on.
"""
