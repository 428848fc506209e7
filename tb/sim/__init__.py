"""The simulator side: code that runs inside the simulator's Python under cocotb, beside the
bench that imports it.

The batch engine (cases through a harness, compared with the golden model), the fast fuzz loop
with its golden worker process, the reporting every test shares (results, case files, progress
lines), the AXI stream replay and the shrinker's candidate bench. Imports tb.checks and the
names the host side shares with a run (tb.host.run_files, tb.host.harness); the host side never
imports it.
"""

import os
import warnings

from tb.host.run_files import DEPRECATIONS, OWN_MODULES

# cocotbext-axi 0.1.28, its newest release, still calls the cocotb 1.x APIs that cocotb 2
# deprecates (setimmediatevalue, Edge, Event.data); its cocotb 2 port is not released. Those
# warnings name the library's lines, not the suite's, and would repeat in every log of the
# co-design peripheral's runs: they are silenced for that package alone.
THIRD_PARTY_DEPRECATIONS = r"cocotbext\.axi(\.|$)"

if os.environ.get(DEPRECATIONS) == "error":
    warnings.filterwarnings("ignore", category=DeprecationWarning, module=THIRD_PARTY_DEPRECATIONS)
    warnings.filterwarnings("error", category=DeprecationWarning, module=OWN_MODULES)
