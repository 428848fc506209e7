"""``gamechip play`` and ``gamechip tournament``: the processor against the contest's reference
software (SPEC §8-9), refereed, with every processor move checked against its golden model.

The processor is either the simulated RTL (``--sim``: the cocotb bench tb/test_processor.py
drives its UART pins and referees the game there, comparing each reply with
``golden.processor.GoldenProcessor``) or, without ``--sim``, that golden model itself.
A game's result is a plain dict (the JSON the bench writes), so both paths print, record and
tabulate the same way.
"""

import csv
import json
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from golden.board import draw, format_game_record, square_name
from golden.processor import GoldenProcessor
from golden.reference import ReferencePlayer
from golden.referee import play_game

COLORS = ("black", "white")


def mover_name(color_char, processor_color):
    side = "black" if color_char == "X" else "white"
    return ("processor" if side == processor_color else "reference") + f" ({side})"


def golden_game(level, processor_color, budget, on_move=None):
    """One game of the golden processor against ReferencePlayer(level); the result dict."""
    processor, reference = GoldenProcessor(budget), ReferencePlayer(level)
    black, white = (processor, reference) if processor_color == "black" else (reference, processor)
    started = time.perf_counter()
    result = play_game(black, white, on_move=on_move)
    return result_dict(result, level, processor_color, budget, "golden", time.perf_counter() - started)


def result_dict(result, level, processor_color, budget, simulator, seconds):
    """The game as JSON-ready data (shared by the golden path and the simulation bench)."""
    processor_char = "X" if processor_color == "black" else "O"
    reference_char = "O" if processor_char == "X" else "X"
    discs = {"X": result.black_discs, "O": result.white_discs}
    plies = [{"color": p.color, "move": None if p.move is None else square_name(p.move),
              "info": p.info} for p in result.plies]
    depths = [p.info.get("depth") for p in result.plies
              if p.color == processor_char and p.info.get("source") == "search"]
    return {"level": level, "processor_color": processor_color, "budget": budget,
            "simulator": simulator, "seconds": round(seconds, 2),
            "record": result.format_record(), "black": result.black_discs, "white": result.white_discs,
            "processor_discs": discs[processor_char], "reference_discs": discs[reference_char],
            "processor_moves": list(result.move_counts(processor_char)),
            "reference_moves": list(result.move_counts(reference_char)),
            "reason": result.reason, "invalid_by": result.invalid_by, "detail": result.detail,
            "mean_depth": round(sum(depths) / len(depths), 2) if depths else None,
            "plies": plies, "results_text": result.results_text()}


def print_move(processor_color):
    """An on_move callback drawing the board after every move, with who moved and why."""
    def on_move(position, color, move, info):
        what = "passes" if move is None else f"plays {square_name(move)}"
        detail = ""
        if info.get("source") == "book":
            detail = " (opening book)"
        elif "cycles" in info:
            detail = f" (search: {info['cycles']:,} cycles, depth {info.get('depth')})"
        elif "nodes" in info:
            detail = f" (level {info.get('level')}: {info['nodes']:,} nodes)"
        print(f"{mover_name(color, processor_color)} {what}{detail}")
        print(draw(position))
        print(flush=True)
    return on_move


def default_record(level, processor_color, budget):
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return Path("runs") / f"play-{stamp}-budget{budget}-level{level}-{processor_color}.txt"


def write_record(game, path):
    """First line the moves, second line ``black N white M``, then the rest of the story."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [game["record"], f"black {game['black']} white {game['white']}",
             f"processor: {game['processor_color']}, budget {game['budget']:,} cycles per move, "
             f"{game['simulator']}; reference level {game['level']}",
             f"mean search depth of the processor: {game['mean_depth']}"]
    path.write_text("\n".join(lines) + "\n\n" + game["results_text"])
    return path


# --- tournament -------------------------------------------------------------------------------

_SLOT = None


def _take_slot(slots):
    global _SLOT
    _SLOT = slots.get()


def tournament_game(level, processor_color, budget, sim):
    """One tournament game in a worker process (its own build slot when simulated)."""
    if sim is None:
        return golden_game(level, processor_color, budget)
    from tb.test_processor import simulated_game
    return simulated_game(sim, level, processor_color, budget, tag=f"tournament-s{_SLOT}")


def run_tournament(budget, levels, sim, jobs, out_dir):
    tasks = [(level, color) for level in levels for color in COLORS]
    jobs = max(1, min(jobs, len(tasks)))
    context = multiprocessing.get_context("spawn")
    slots = context.Queue()
    for slot in range(jobs):
        slots.put(slot)
    games, failures, started = [], [], time.perf_counter()
    print(f"tournament: {len(tasks)} games, processor budget {budget:,} cycles per move, "
          f"{'simulated on ' + sim if sim else 'golden processor model'}, {jobs} workers",
          file=sys.stderr, flush=True)
    with ProcessPoolExecutor(jobs, mp_context=context, initializer=_take_slot, initargs=(slots,)) as pool:
        futures = {pool.submit(tournament_game, level, color, budget, sim): (level, color)
                   for level, color in tasks}
        for done, future in enumerate(as_completed(futures), 1):
            level, color = futures[future]
            try:
                game = future.result()
                games.append(game)
                outcome = f"{game['processor_discs']}-{game['reference_discs']}"
            except Exception as error:  # a mismatch or a crash: keep the others going
                failures.append({"level": level, "processor_color": color, "error": str(error)})
                outcome = "FAILED"
            elapsed = time.perf_counter() - started
            eta = elapsed / done * (len(tasks) - done)
            bar = "#" * done + "-" * (len(tasks) - done)
            print(f"[{bar}] {done}/{len(tasks)} games, level {level} processor {color}: {outcome}; "
                  f"{elapsed:,.0f} s elapsed, ETA {eta:,.0f} s", file=sys.stderr, flush=True)
    return write_tables(games, failures, budget, sim, out_dir)


def write_tables(games, failures, budget, sim, out_dir):
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    by_key = {(g["level"], g["processor_color"]): g for g in games}
    levels = sorted({g["level"] for g in games} | {f["level"] for f in failures})

    def cell(level, color):
        game = by_key.get((level, color))
        if game is None:
            return "failed", "", ""
        mark = " *" if game["reason"] != "end of game" else ""
        return (f"{game['processor_discs']}-{game['reference_discs']}{mark}",
                "{}+{}".format(*game["processor_moves"]), "{}+{}".format(*game["reference_moves"]))

    header = ("| level | HW black: score HW-SW | HW moves | SW moves | SW black: score HW-SW "
              "| HW moves | SW moves |")
    lines = [f"# Processor vs reference software, budget {budget:,} cycles per move "
             f"({'simulated on ' + sim if sim else 'golden processor model'})", "",
             "Moves are moves+passes of each side. HW = the processor, SW = the reference player.", "",
             header, "|---|---|---|---|---|---|---|"]
    rows = []
    for level in levels:
        black, white = cell(level, "black"), cell(level, "white")
        lines.append(f"| {level} | {' | '.join(black)} | {' | '.join(white)} |")
        rows.append([level, *black, *white])
    notes = [g for g in games if g["reason"] != "end of game"]
    if notes:
        lines += ["", *(f"* level {g['level']}, processor {g['processor_color']}: {g['reason']} "
                        f"({g['detail']})" for g in notes)]
    if failures:
        lines += ["", "Failed games:", *(f"- level {f['level']}, processor {f['processor_color']}: "
                                          f"{f['error'].splitlines()[0] if f['error'] else ''}" for f in failures)]
    depths = [g["mean_depth"] for g in games if g["mean_depth"] is not None]
    if depths:
        lines += ["", f"Mean search depth of the processor: {sum(depths) / len(depths):.2f}"]
    markdown = out_dir / "tournament.md"
    markdown.write_text("\n".join(lines) + "\n")
    with open(out_dir / "tournament.csv", "w", newline="") as table:
        writer = csv.writer(table)
        writer.writerow(["level", "hw_black_score", "hw_black_hw_moves", "hw_black_sw_moves",
                         "sw_black_score", "sw_black_hw_moves", "sw_black_sw_moves"])
        writer.writerows(rows)
    (out_dir / "games.json").write_text(json.dumps(games + failures, indent=1))
    print("\n".join(lines))
    print(f"\ntables: {markdown}, {out_dir / 'tournament.csv'}; games: {out_dir / 'games.json'}")
    return 1 if failures else 0
