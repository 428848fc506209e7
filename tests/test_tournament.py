"""``gamechip tournament --cluster``: the games as tasks of a real Dask LocalCluster on loopback,
the same games as a local tournament, and Ctrl-C killing the games running on the workers."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.test_campaign import processes_building_in
from tests.test_cli_robustness import sigint_as_on_a_terminal

ROOT = Path(__file__).resolve().parents[1]


def tournament(*args):
    return subprocess.run([sys.executable, "-m", "gamechip", "tournament", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def game_processes(build):
    """The game subprocesses (``python -m gamechip.games.play``) of Dask workers that build in ``build``."""
    return processes_building_in(build, b"gamechip.games.play\0")


def until(condition, seconds):
    deadline = time.monotonic() + seconds
    while not (value := condition()) and time.monotonic() < deadline:
        time.sleep(0.2)
    return value


def games(out):
    return {(g["level"], g["processor_color"]): g for g in json.loads((out / "games.json").read_text())}


def test_a_tournament_on_a_dask_cluster_plays_the_local_games_and_stops_on_ctrl_c(tmp_path, monkeypatch):
    import distributed  # a dependency (pyproject.toml): a missing one is an error here, not a skip
    build = tmp_path / "build"
    monkeypatch.setenv("GAMECHIP_BUILD", str(build))  # the workers inherit it: their game processes are found by it
    local = tournament("--budget", "1024", "--levels", "1-2", "--jobs", "2", "--out", str(tmp_path / "local"))
    assert local.returncode == 0, local.stderr[-3000:]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        remote = tournament("--budget", "1024", "--levels", "1-2", "--cluster", address, "--out", str(tmp_path / "dask"))
        assert remote.returncode == 0, remote.stderr[-3000:]
        assert "Dask cluster tcp://127.0.0.1:" in remote.stderr and "2 workers" in remote.stderr, remote.stderr
        assert "[####] 4/4 games" in remote.stderr, remote.stderr
        here, there = games(tmp_path / "local"), games(tmp_path / "dask")
        assert len(there) == 4 and all("error" not in g for g in there.values())
        for key, game in here.items():  # the same golden processor and reference: the same game, move by move
            assert there[key]["record"] == game["record"] and there[key]["rtl_digest"] == game["rtl_digest"], key
        assert "Played on " in (tmp_path / "dask" / "tournament.md").read_text()

        # Ctrl-C while the workers play (golden games at the seed's 32 M cycles take minutes):
        # the tasks are cancelled and the game processes on the workers killed, with their simulators.
        out = tmp_path / "interrupted"
        process = subprocess.Popen([sys.executable, "-m", "gamechip", "tournament", "--budget", "32M", "--levels", "1",
                                    "--sim", "icarus", "--mode", "engine", "--cluster", address, "--out", str(out)],
                                   cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   start_new_session=True, preexec_fn=sigint_as_on_a_terminal)
        try:
            running = until(lambda: len(game_processes(build)) == 2, 300)
            assert running, "the two games never started on the workers"
            os.killpg(process.pid, signal.SIGINT)
            _, stderr = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
        assert process.returncode == 130 and "tournament interrupted after 0 of 2 games" in stderr, stderr[-3000:]
        assert "Traceback" not in stderr and "could not stop" not in stderr, stderr[-3000:]
        assert until(lambda: not game_processes(build), 60), "game processes outlived their tournament"
        assert "not played" in (out / "tournament.md").read_text() or not games(out)


def test_bad_cluster_arguments_are_one_line_and_exit_status_2(tmp_path):
    for args, message in ((["--cluster", "nowhere"], "bad cluster address 'nowhere'"),
                          (["--cluster", "tcp://127.0.0.1:9", "--jobs", "2"], "--jobs sets the local worker processes"),
                          (["--cluster", "tcp://127.0.0.1:9", "--sim", "modelsim"], "unknown simulator 'modelsim'")):
        run = tournament("--budget", "1024", "--levels", "1", "--out", str(tmp_path / "t"), *args)
        assert run.returncode == 2 and message in run.stderr, (args, run.stderr)
        assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.stderr, run.stderr
