"""What a bench run and tb.host.runner exchange through the build folder and the environment: the
names alone, so that the runner (and every ``gamechip`` command, which imports it) does not
import cocotb and the bench library (tb.sim.batch) to know them."""

RESULT_FILE = "gamechip_result.json"
CASE_FILE = "gamechip_failure.json"
ACTUAL_FILE = "gamechip_actual.json"  # what the block answered for a replayed case

# What tb.host.runner tells a bench about its top level: "hdl" when it is the design's clocked harness
# (tb.host.harness), which makes the clock itself; "python" when it is the design or a batch harness.
CLOCK_SOURCE = "GAMECHIP_CLOCK"
