"""The rows of ``gamechip bench --save`` and the table of ``gamechip bench --compare``.

A saved bench is one JSON object: the tools that ran it and one row per block and simulator,

    {"cocotb": "2.1.0", "verilator": "Verilator 5.048 ...", "scale": 1.0, "cores": 2,
     "rows": [{"block": "move_checker", "sim": "verilator", "cocotb": "2.1.0",
               "sim_version": "Verilator 5.048 ...", "unit": "cases", "checked": 200000,
               "sim_rate": ..., "golden_rate": ..., "end_to_end_rate": ..., "load": [1.2, 1.9]},
              {"block": "evaluator", "sim": "verilator", ..., "failed": "why it did not run"}, ...],
     "coverage_cost": [{"block": "move_checker", "sim": "verilator", "rate_off": ..., "rate_on": ...,
                        "ratio": ..., "sampled": ..., ...}, ...]}

Rates are per wall-clock second: the sim path (stimulus, simulation, responses), the golden
model alone, and the whole fuzz loop end to end. The search engine's row (``SEARCH_ALONE``) is
the engine alone, in simulated cycles per second, with no golden or end-to-end rate.

``--compare OLD NEW`` sets the Verilator rows of two saved benches side by side: old rate, new
rate and their ratio (the gain), for the sim path and end to end; a block that failed or was
not run in one of them gets one line saying why.
"""

import json
import os
import re
from pathlib import Path

SEARCH_ALONE = "search engine alone"
# "0.00ns ERROR    cocotb    " before a message of cocotb's log
COCOTB_LOG_PREFIX = re.compile(r"^[-.\d]+[a-z]*s\s+(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)\s+\S+\s+")


class BenchFileError(ValueError):
    """A saved bench that cannot be read: missing, not JSON, or not rows of ``gamechip bench --save``."""


def tool_line(versions, sim):
    """The version line of ``sim`` from ``tool_versions()``."""
    return versions.get({"icarus": "iverilog"}.get(sim, sim)) or f"{sim} (version unknown)"


class BenchRecord:
    """The rows one ``gamechip bench`` run saves, with the tools it ran under."""

    def __init__(self, scale):
        from gamechip.campaign.shards import tool_versions

        self.versions = tool_versions()
        self.scale = scale
        self.rows = []
        self.coverage_costs = []

    def row(self, block, sim, **fields):
        return {"block": block, "sim": sim, "cocotb": self.versions.get("cocotb"),
                "sim_version": tool_line(self.versions, sim), **fields}

    def add_rates(self, block, sim, tally, load):
        """A fuzz run's row from its recorded timings (tb/sim/batch.py ``Tally``)."""
        checked = tally["checked"]
        self.rows.append(self.row(block, sim, unit="cases", checked=checked,
                                  sim_rate=checked / tally["sim_seconds"],
                                  golden_rate=checked / tally["golden_seconds"],
                                  end_to_end_rate=checked / tally["wall_seconds"], load=list(load)))

    def add_search_alone(self, sim, rate, load):
        """The search engine alone (search_bench ``free_run_rate``): simulated cycles per second."""
        self.rows.append(self.row(SEARCH_ALONE, sim, unit="cycles", checked=rate["cycles"], sim_rate=rate["wall"],
                                  sim_cpu_rate=rate["cpu"], golden_rate=None, end_to_end_rate=None,
                                  load=list(load)))

    def add_failure(self, block, sim, reason):
        self.rows.append(self.row(block, sim, failed=reason))

    def add_coverage_cost(self, cost):
        """A row of coverage's cost (gamechip/measure/bench.py ``coverage_cost``, or a failed one)."""
        self.coverage_costs.append(cost)

    def save(self, path):
        """Write the rows as JSON to ``path`` (its folder was checked before the bench started)."""
        data = {"cocotb": self.versions.get("cocotb"), "verilator": tool_line(self.versions, "verilator"),
                "scale": self.scale, "cores": os.cpu_count(), "rows": self.rows,
                "coverage_cost": self.coverage_costs}
        Path(path).write_text(json.dumps(data, indent=1) + "\n")


def failure_reason(text, limit=200):
    """One line out of a failed run's message or log: its last line naming an error, else its last line."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    if not lines:
        return "no message (see the simulator's log)"
    errors = [line for line in lines if "error" in line.lower() or "exception" in line.lower()]
    line = COCOTB_LOG_PREFIX.sub("", (errors or lines)[-1])
    return line if len(line) <= limit else line[:limit - 1] + "…"


ROW_KEYS = ("block", "sim")
RATE_KEYS = ("sim_rate", "end_to_end_rate")


def load_bench(path):
    """The saved bench at ``path``; BenchFileError (one line) when it cannot be used."""
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise BenchFileError(f"{path}: no such file (write one with gamechip bench --save FILE)")
    except IsADirectoryError:
        raise BenchFileError(f"{path}: is a folder, not a saved bench")
    except OSError as error:
        raise BenchFileError(f"{path}: cannot read it: {error.strerror or error}")
    except (ValueError, UnicodeDecodeError) as error:
        raise BenchFileError(f"{path}: not JSON ({error})")
    if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
        raise BenchFileError(f"{path}: not a saved bench (a JSON object with \"rows\", written by gamechip bench --save)")
    for number, row in enumerate(data["rows"], 1):
        if not isinstance(row, dict) or any(not isinstance(row.get(key), str) for key in ROW_KEYS):
            raise BenchFileError(f"{path}: row {number} has no block and sim names")
        if "failed" in row:
            continue
        for key in RATE_KEYS:
            value = row.get(key)
            if not (value is None or isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0):
                raise BenchFileError(f"{path}: row {number} ({row['block']} on {row['sim']}): {key} is not a rate")
    return data


def describe_tools(data, sim="verilator"):
    """'Verilator 5.006 ... under cocotb 1.9.2' from a saved bench's ``sim`` rows (else its header)."""
    rows = [row for row in data["rows"] if row["sim"] == sim]
    version = next((row.get("sim_version") for row in rows if row.get("sim_version")), None) or data.get(sim) or "?"
    cocotb = next((row.get("cocotb") for row in rows if row.get("cocotb")), None) or data.get("cocotb") or "?"
    return version, cocotb


def rate_text(value):
    return "-" if value is None else f"{value:,.0f}"


def gain_text(old, new):
    return "-" if old is None or new is None else f"{new / old:.2f}x"


def comparison_lines(old, new, old_name="old", new_name="new", sim="verilator"):
    """The table of ``--compare``: one line per block that either saved bench ran on ``sim``."""
    old_tools, new_tools = describe_tools(old, sim), describe_tools(new, sim)
    old_rows = {row["block"]: row for row in old["rows"] if row["sim"] == sim}
    new_rows = {row["block"]: row for row in new["rows"] if row["sim"] == sim}
    blocks = list(dict.fromkeys([*new_rows, *old_rows]))
    lines = [f"{sim} rates per wall-clock second, before and after:",
             f"  old: {old_tools[0]} under cocotb {old_tools[1]} ({old_name})",
             f"  new: {new_tools[0]} under cocotb {new_tools[1]} ({new_name})"]
    if old.get("scale") != new.get("scale"):
        lines.append(f"  (saved at different scales: old {old.get('scale')}, new {new.get('scale')}; rates are per second)")
    if not blocks:
        return lines + [f"no {sim} rows in either saved bench"]
    lines += ["",
              f"{'block':<20} {'unit':<6} {'sim path old':>13} {'new':>11} {'gain':>7}   "
              f"{'end to end old':>14} {'new':>11} {'gain':>7}   {'load old':>9} {'load new':>9}"]
    for block in blocks:
        before, after = old_rows.get(block), new_rows.get(block)
        missing = [(row, name, tools) for row, name, tools in ((before, old_name, old_tools), (after, new_name, new_tools))
                   if row is None or "failed" in row]
        if missing:
            why = "; ".join(f"not in {name}" if row is None else f"not run on cocotb {tools[1]}: {row['failed']}"
                            for row, name, tools in missing)
            lines.append(f"{block:<20} {why}")
            continue
        loads = ["{:.1f}-{:.1f}".format(*row["load"]) if len(row.get("load") or ()) == 2 else "-"
                 for row in (before, after)]
        lines.append(f"{block:<20} {after.get('unit', 'cases'):<6} {rate_text(before['sim_rate']):>13} "
                     f"{rate_text(after['sim_rate']):>11} {gain_text(before['sim_rate'], after['sim_rate']):>7}   "
                     f"{rate_text(before.get('end_to_end_rate')):>14} {rate_text(after.get('end_to_end_rate')):>11} "
                     f"{gain_text(before.get('end_to_end_rate'), after.get('end_to_end_rate')):>7}   "
                     f"{loads[0]:>9} {loads[1]:>9}")
    lines += ["",
              "gain: new rate / old rate. sim path: stimulus, simulation and responses; end to end: the whole fuzz "
              "loop with the golden model; cycles: the search engine alone, simulated cycles/s (HDL clock). load: "
              "1-minute load average before-after the row. Measured, not asserted."]
    return lines


def compare(old_path, new_path):
    """Print the comparison of two saved benches (BenchFileError when one cannot be read)."""
    old, new = load_bench(old_path), load_bench(new_path)
    print("\n".join(comparison_lines(old, new, str(old_path), str(new_path))))
    return 0
