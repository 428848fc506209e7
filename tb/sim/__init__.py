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

if os.environ.get(DEPRECATIONS) == "error":
    warnings.filterwarnings("error", category=DeprecationWarning, module=OWN_MODULES)
