"""The host side of paired games: refereed games of the processor played two at a time on one
simulation of the engine with two interleaved contexts (``search_c2``), one game on each context
(the cocotb test ``paired_games`` of tb/test_search.py, its simulator side tb/sim/paired_games.py).
"""

import json
import os
import tempfile

from tb.host import runner
from tb.host.search_bench import INTERLEAVED

GAMES_PER_ENGINE = 2   # the contexts of INTERLEAVED


class PairFailed(RuntimeError):
    """A paired simulation stopped: a node, an answer or a move differed from the golden model's
    (the message names the game, the move, the position, expected and actual), or the simulation
    broke (the message has the end of its log)."""


def pair_up(tasks, size=GAMES_PER_ENGINE):
    """``tasks`` in groups of ``size`` in their order, the last one shorter when they do not divide:
    [(1, 'black'), (1, 'white'), (2, 'black')] -> [[(1, 'black'), (1, 'white')], [(2, 'black')]]."""
    tasks = list(tasks)
    return [tasks[at:at + size] for at in range(0, len(tasks), size)]


def play_pair(sim, games, budget, tag="", echo=False, rtl_root=None):
    """Play ``games`` ([(level, processor colour)], at most two) at ``budget`` cycles a move, each
    on a context of one simulation of INTERLEAVED on ``sim``; (the game dicts in the order of
    ``games``, the clocks simulated), or PairFailed."""
    if not 1 <= len(games) <= GAMES_PER_ENGINE:
        raise ValueError(f"a pair is 1 or {GAMES_PER_ENGINE} games, got {len(games)}")
    specs = [{"level": level, "processor_color": color, "budget": budget} for level, color in games]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as out:
        json.dump(specs, out)
    try:
        outcome = runner.run_design(INTERLEAVED, sim, "tb.test_search", ["paired_games"],
                                    env={"GAMECHIP_GAMES": out.name, "GAMECHIP_SEARCH_MONITOR": "python"},
                                    tag="-".join(filter(None, (tag, "cycle"))), echo=echo, rtl_root=rtl_root,
                                    direct=True, quiet=True, quick_build=True)
    finally:
        os.unlink(out.name)
    names = ", ".join(f"level {level} processor {color}" for level, color in games)
    log = outcome.sim_dir / "gamechip.log"
    if not outcome.passed or not outcome.actual:
        failure = outcome.result.get("failure")
        if failure:
            raise PairFailed(f"MISMATCH in the paired games on {sim} ({names}; budget {budget:,}): {failure}\n"
                             f"log: {log}")
        raise PairFailed(f"the paired games on {sim} ({names}) broke before any mismatch:\n"
                         f"{outcome.log[-3000:]}\nlog: {log}")
    return outcome.actual["games"], outcome.actual["clocks"]
