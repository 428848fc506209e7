"""Test plans as data: one TOML file per block in tb/testplans/, read with tomllib.

A plan names its block, the section of docs/spec.md it is derived from (``spec``, which the report
shows), its designs with their parameters (board size, longest run, ...) and its points. A point has
a description (what the specification asks to see), its axes, the tests that target it and the
generators that reach it. An axis's values are a list (``values``), an inclusive range whose ends
may name a design parameter (``range``), or the squares of the design's board (``squares =
true``). A point with one axis is a cover point, its bins are the axis's values; with more it is a
cross, its bins every combination, written ``a/b``. A bin's full name is ``point:bin``, the name
the samplers (tb.checks.coverage_samplers) count and the reports print. A point with ``designs``
(a list) belongs to those designs of the plan only (the two-context search engine's points about
its contexts).

Waivers live in one file, tb/testplans/waivers.toml: ``[[waiver]]`` with ``design``, ``bin`` and
``reason`` (why the bin cannot be reached, argued from the specification and the design).
"""

import itertools
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from golden.board import square_name

PLAN_DIR = Path(__file__).resolve().parents[2] / "tb" / "testplans"
WAIVERS_FILE = PLAN_DIR / "waivers.toml"


class PlanError(ValueError):
    """A plan or waiver file that cannot be read as the format above."""


@dataclass
class Point:
    name: str
    description: str
    axes: list   # [(axis name, [value, ...])]
    tests: list
    generators: list

    @property
    def bins(self):
        return ["/".join(values) for values in itertools.product(*(values for _, values in self.axes))]

    @property
    def is_cross(self):
        return len(self.axes) > 1


@dataclass
class Plan:
    block: str
    spec: str
    summary: str
    designs: dict   # design -> its parameters
    raw_points: list = field(repr=False)
    path: Path = None

    def points(self, design):
        """The points of ``design`` with every axis's values resolved."""
        params = self.designs[design]
        return [Point(p["name"], p["description"], [resolve_axis(a, params, self.path) for a in p["axes"]],
                      list(p.get("tests", [])), list(p.get("generators", []))) for p in self.raw_points
                if design in p.get("designs", [design])]

    def bins(self, design):
        return [f"{point.name}:{b}" for point in self.points(design) for b in point.bins]


def resolve_axis(axis, params, where):
    def end(value):
        if isinstance(value, str):
            if value not in params:
                raise PlanError(f"{where}: axis {axis.get('name')}: no design parameter '{value}'")
            return params[value]
        return value

    if "values" in axis:
        values = [str(v) for v in axis["values"]]
    elif "range" in axis:
        low, high = (end(v) for v in axis["range"])
        values = [str(v) for v in range(low, high + 1)]
    elif axis.get("squares"):
        size = params.get("size", 8)
        values = [square_name(s, size) for s in range(size * size)]
    else:
        raise PlanError(f"{where}: axis {axis.get('name')} needs values, range or squares")
    return axis["name"], values


def load_plan(path):
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise PlanError(f"{path}: {error}") from None
    for key in ("block", "spec", "designs", "points"):
        if key not in data:
            raise PlanError(f"{path}: no '{key}'")
    for point in data["points"]:
        for key in ("name", "description", "axes"):
            if key not in point:
                raise PlanError(f"{path}: a point without '{key}' ({point.get('name', '?')})")
        unknown = [d for d in point.get("designs", []) if d not in data["designs"]]
        if unknown:
            raise PlanError(f"{path}: point {point['name']} names design {unknown[0]}, which the plan does not have")
    return Plan(data["block"], data["spec"], data.get("summary", ""), data["designs"], data["points"], path)


def load_plans(plan_dir=PLAN_DIR):
    """{block: Plan} for every plan file."""
    plans = {}
    for path in sorted(Path(plan_dir).glob("*.toml")):
        if path.name != WAIVERS_FILE.name:
            plan = load_plan(path)
            plans[plan.block] = plan
    return plans


def design_plans(plan_dir=PLAN_DIR):
    """{design: Plan}: the plan of every design some plan names."""
    return {design: plan for plan in load_plans(plan_dir).values() for design in plan.designs}


def load_waivers(path=WAIVERS_FILE):
    """{design: {bin: reason}}."""
    path = Path(path)
    if not path.exists():
        return {}
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as error:
        raise PlanError(f"{path}: {error}") from None
    waivers = {}
    for waiver in data.get("waiver", []):
        missing = [key for key in ("design", "bin", "reason") if not waiver.get(key)]
        if missing:
            raise PlanError(f"{path}: a waiver without {', '.join(missing)}: {waiver}")
        waivers.setdefault(waiver["design"], {})[waiver["bin"]] = waiver["reason"]
    return waivers
