"""``gamechip formal``: SymbiYosys proofs of the converted RTL against references written from
docs/spec.md (properties/*.sv, reference.py), planted bugs that each proof must catch with a
counterexample, and equivalence of the synthesised netlist with the converted RTL."""
