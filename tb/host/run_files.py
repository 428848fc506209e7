"""What a bench run and tb.host.runner exchange through the build folder and the environment: the
names alone, so that the runner (and every ``gamechip`` command, which imports it) does not
import cocotb and the bench library (tb.sim.batch) to know them."""

SIMULATORS = ("icarus", "verilator", "ghdl")   # the simulators a run may use (every --sim names one)
RESULT_FILE = "gamechip_result.json"
CASE_FILE = "gamechip_failure.json"
ACTUAL_FILE = "gamechip_actual.json"  # what the block answered for a replayed case
FAILURE_STREAM_FILE = "gamechip_failure_stream.hex"  # the bus transactions a streamed failure's case file replays

# What tb.host.runner tells a bench about its top level: "hdl" when it is the design's clocked harness
# (tb.host.harness), which makes the clock itself; "python" when it is the design or a batch harness.
CLOCK_SOURCE = "GAMECHIP_CLOCK"

# Set by tb.host.runner under cocotb 2.x: deprecation warnings that the project's own code or
# cocotb itself causes are errors inside the simulator (tb/sim/__init__.py installs the filter).
DEPRECATIONS = "GAMECHIP_DEPRECATIONS"
# The modules whose deprecation warnings are errors: a warning is attributed to the caller of the
# deprecated API, so a library's own use of one (cocotbext-axi's, say) stays a warning.
OWN_MODULES = r"(cocotb|cocotb_tools|cocotb_test|tb|golden|rtl|gamechip|tests)(\.|$)"
