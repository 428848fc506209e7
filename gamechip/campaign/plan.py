"""A campaign's plan: its parameters (what ``OUT/campaign.json`` holds) and its shards.

The work (blocks x simulators x positions) is cut into *shards*: one block (its first, 8x8
design), one simulator, ``shard_size`` positions from one seed (seed K, K+1, ... in order, the
same seeds on every simulator, so two simulators see the same positions).
"""

from dataclasses import asdict, dataclass

PARAMETERS = "campaign.json"


class CampaignInputError(Exception):
    """Bad input (parameters, output folder): the CLI prints it as one line, exit status 2."""


@dataclass(frozen=True)
class Shard:
    block: str
    design: str
    module: str  # the cocotb bench
    sim: str
    seed: int
    count: int  # positions
    index: int  # position of the shard in its block x simulator series
    directed: bool = False  # runs the block's directed and aimed cases before its positions (--until-covered)

    @property
    def key(self):
        return f"{self.block}/{self.sim}/seed{self.seed}/n{self.count}"

    @property
    def slug(self):
        return f"{self.block}-{self.sim}-seed{self.seed}"

    def to_dict(self):
        return asdict(self)


def plan(blocks, sims, count, seed, shard_size, until_covered=False):
    """Every shard of a campaign, interleaved (first shards of every block and simulator
    first), so an interrupted campaign has covered all of them a little. ``until_covered``:
    the first shard of each block and simulator runs the directed and aimed cases too."""
    series = []
    for block in blocks:
        for sim in sims:
            series.append([Shard(block.name, block.designs[0], block.module, sim, seed + i,
                                 min(shard_size, count - first), i, directed=until_covered and i == 0)
                           for i, first in enumerate(range(0, count, shard_size))])
    ordered = []
    for i in range(max(map(len, series), default=0)):
        ordered += [run[i] for run in series if i < len(run)]
    return ordered


MAX_SHARDS = 100_000  # more is a slip of --count or --shard-size, and a plan that would fill memory
PARAMETER_NAMES = ("blocks", "sims", "count", "seed", "shard_size")
UNTIL_COVERED = "until_covered"  # in campaign.json only when true, so that older campaigns read the same


def plan_size_problem(blocks, sims, count, shard_size):
    """Why a plan of this size is refused, or None."""
    shards = blocks * sims * -(-count // shard_size)
    if shards > MAX_SHARDS:
        return (f"{count:,} positions in shards of {shard_size:,} on {blocks * sims} block x simulator pairs make "
                f"{shards:,} shards, more than {MAX_SHARDS:,}: raise --shard-size")
    return None


def parameters_problem(parameters):
    """Why ``parameters`` (what campaign.json holds) are not a campaign's, or None."""
    from tb.blocks import BLOCKS
    from tb.host.runner import SIMULATORS

    if not isinstance(parameters, dict):
        return f"a JSON {type(parameters).__name__}, not an object"
    missing = [name for name in PARAMETER_NAMES if name not in parameters]
    if missing:
        return f"no {', '.join(missing)}"
    for name, known in (("blocks", BLOCKS), ("sims", SIMULATORS)):
        names = parameters[name]
        if not (isinstance(names, list) and names and all(isinstance(n, str) and n in known for n in names)):
            return f"{name} {names!r} is not a list of {', '.join(known)}"
    if parameters.get(UNTIL_COVERED) not in (None, True):
        return f"{UNTIL_COVERED} {parameters[UNTIL_COVERED]!r} is not true"
    for name, least in (("count", 1), ("seed", 0), ("shard_size", 1)):
        value = parameters[name]
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            return f"{name} {value!r} is not a whole number of at least {least}"
    return plan_size_problem(len(parameters["blocks"]), len(parameters["sims"]), parameters["count"],
                             parameters["shard_size"])

