"""``gamechip campaign``: shards on 2 workers, the journal, and every fault the issue names
(``kill -9``, a half-written journal line, Ctrl-C, a simulator crash, a shard past its timeout,
a real mismatch), locally and on a real Dask LocalCluster on loopback.

Every campaign runs as a subprocess with its own GAMECHIP_BUILD (tb.host.runner reads it at import
time), so these tests never touch build/ while the regression runs. Small, fast blocks on
Icarus keep each shard a second or two.
"""

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from html import unescape
from pathlib import Path

import pytest

from gamechip.campaign.journal import read as read_journal
from gamechip.campaign.shards import classify_outcome
from gamechip.cli import main
from tests.test_cli_robustness import sigint_as_on_a_terminal
from tests.test_mutants import MUTANTS, mutant_root

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    return tmp_path_factory.mktemp("campaign-build")


def _env(build, extra=None):
    return {**os.environ, "GAMECHIP_BUILD": str(build), **(extra or {})}


def campaign(build, *args, env=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "gamechip", "campaign", *args], cwd=ROOT, capture_output=True,
                          text=True, env=_env(build, env), timeout=timeout)


def start(build, *args, env=None):
    """A campaign in its own process group, for the tests that kill it."""
    return subprocess.Popen([sys.executable, "-m", "gamechip", "campaign", *args], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(build, env),
                            start_new_session=True, preexec_fn=sigint_as_on_a_terminal)


def journal(out):
    lines = (Path(out) / "journal.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def planned_keys(blocks, sims, count, seed, shard_size):
    return {f"{b}/{s}/seed{seed + i}/n{min(shard_size, count - first)}"
            for b in blocks for s in sims for i, first in enumerate(range(0, count, shard_size))}


def journaled(out, lines):
    """Whether campaign ``out`` has journaled ``lines`` shards or more."""
    path = Path(out) / "journal.jsonl"
    return path.exists() and path.read_text().count("\n") >= lines


def wait_until(condition, proc, what, limit=300):
    """Wait for a state of the running campaign ``proc``, however loaded the machine (``limit``
    seconds at most); it must not end first."""
    deadline = time.monotonic() + limit
    while not condition():
        assert proc.poll() is None, f"the campaign ended before {what}:\n{proc.stderr.read()}"
        assert time.monotonic() < deadline, f"no {what} after {limit} s"
        time.sleep(0.1)


class HeldSimulator:
    """A ``vvp`` for the front of PATH that holds shards at a gate: while the ``gate`` folder
    exists, the first ``passes`` simulator runs go through to Icarus's vvp and every later one
    hangs (leaving ``held.<pid>`` in the gate) until its shard is killed. A campaign that is
    interrupted once ``held()`` is true is interrupted mid-shard, however fast or loaded the
    machine: it cannot have finished."""

    def __init__(self, folder, passes):
        self.bin, self.gate = folder / "bin", folder / "gate"
        self.bin.mkdir(parents=True)
        passes_through = " ".join(str(n) for n in range(1, passes + 1))
        vvp = shutil.which("vvp")
        (self.bin / "vvp").write_text(
            f"#!/bin/sh\nif [ -d '{self.gate}' ]; then\n"
            f"  for n in {passes_through}; do mkdir '{self.gate}'/pass$n 2>/dev/null && exec '{vvp}' \"$@\"; done\n"
            f"  touch '{self.gate}'/held.$$\n  exec sleep 600\nfi\nexec '{vvp}' \"$@\"\n")
        (self.bin / "vvp").chmod(0o755)

    def path(self):
        return f"{self.bin}{os.pathsep}{os.environ['PATH']}"

    def close_gate(self):
        self.gate.mkdir()

    def held(self):
        return self.gate.is_dir() and any(self.gate.glob("held.*"))

    def release(self):
        """Open the gate, and end any held simulator its shard's kill missed."""
        for held in self.gate.glob("held.*"):
            pid = int(held.suffix[1:])
            if _cmdline(Path(f"/proc/{pid}")) == b"sleep\x00600\x00":
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.gate, ignore_errors=True)


def shard_processes(out):
    """Shard subprocesses still alive for campaign ``out`` (their result files are under it)."""
    alive = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and str(out) in (proc / "cmdline").read_bytes().decode(errors="replace"):
                alive.append(int(proc.name))
        except OSError:
            pass
    return alive


def processes_building_in(build, command):
    """Processes whose command line holds ``command`` (bytes, arguments joined by NUL) and that
    build in ``build`` (their GAMECHIP_BUILD): what Dask workers started for one test."""
    alive = []
    for proc in Path("/proc").iterdir():
        try:
            if (proc.name.isdigit() and command in (proc / "cmdline").read_bytes()
                    and f"GAMECHIP_BUILD={build}\0".encode() in (proc / "environ").read_bytes()):
                alive.append(int(proc.name))
        except OSError:
            pass
    return alive


def cluster_shard_processes(build):
    """Shard subprocesses started by Dask workers that build in ``build``."""
    return processes_building_in(build, b"gamechip.campaign.shards\0worker")


def assert_no_shard_left(out, limit=30.0, find=shard_processes):
    deadline = time.monotonic() + limit
    while find(out) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not find(out), "shard processes outlived their campaign"


BLOCKS = ["stable_discs", "openings"]


def test_two_workers_two_blocks(build, tmp_path):
    out = tmp_path / "run"
    run = campaign(build, "--blocks", *BLOCKS, BLOCKS[0], "--sims", "icarus", "--count", "500", "--shard-size", "200",
                   "--seed", "31", "--jobs", "2", "--out", str(out))  # a block named twice runs once
    assert run.returncode == 0, run.stdout + run.stderr
    entries = journal(out)
    assert [e["key"] for e in entries] and {e["key"] for e in entries} == planned_keys(BLOCKS, ["icarus"], 500, 31, 200)
    assert len(entries) == 6 and all(e["status"] == "pass" and e["checked"] > 0 for e in entries)
    assert all(e["tools"]["iverilog"].startswith("Icarus Verilog") and e["tools"]["cocotb"] for e in entries)
    assert all(e["timings"]["wall_seconds"] > 0 and e["started"] < e["ended"] for e in entries)
    # the slots are reused: 6 shards, 2 workers, 2 slots (a slot can stay locked a few ms after
    # its shard released it; take_slot waits that long before it takes a third: tb/host/slots.py)
    assert {e["tag"] for e in entries} <= {"campaign-s0", "campaign-s1"}, [e["tag"] for e in entries]
    slots = list((build / "sim").glob("*-campaign-s*"))  # 3 shards per block in 2 slots: one slot ran twice
    assert slots and all(len(list(slot.glob("*_results.xml"))) <= 1 for slot in slots)  # no pile of stale ones
    for block in BLOCKS:
        assert any(line.split()[:3] == [block, "icarus", "3/3"] for line in run.stdout.splitlines()), run.stdout
    assert "PASS:" in run.stdout and "[6/6]" in run.stderr
    again = campaign(build, "--blocks", *BLOCKS, "--count", "500", "--out", str(out))
    assert again.returncode == 2 and "--resume" in again.stderr and len(again.stderr.strip().splitlines()) == 1
    other = campaign(build, "--blocks", *BLOCKS, "--count", "900", "--out", str(out), "--resume")
    assert other.returncode == 2 and "holds another campaign (count 500 (now 900)" in other.stderr, other.stderr


def test_kill_9_then_resume_loses_nothing(build, tmp_path):
    out = tmp_path / "killed"
    args = ["--blocks", *BLOCKS, "--sims", "icarus", "--count", "600", "--shard-size", "200", "--seed", "41",
            "--jobs", "2", "--out", str(out)]
    simulator = HeldSimulator(tmp_path / "held", passes=2)  # 2 shards pass, the next ones hang
    simulator.close_gate()
    try:
        proc = start(build, *args, env={"PATH": simulator.path()})
        wait_until(lambda: journaled(out, 1) and simulator.held(), proc, "a journaled shard and a running one")
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        assert_no_shard_left(out)  # the shards died with the campaign, simulators included
    finally:
        simulator.release()
    before = (out / "journal.jsonl").read_text()
    before = before[:before.rfind("\n") + 1]  # (a line cut by the kill would run again)
    finished = [json.loads(line) for line in before.splitlines()]
    assert 1 <= len(finished) < 6
    run = campaign(build, *args, "--resume")
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"{len(finished)} already journaled" in run.stderr
    after = (out / "journal.jsonl").read_text()
    assert after.startswith(before)  # no result lost or rewritten
    keys = [e["key"] for e in journal(out)]
    assert len(keys) == len(set(keys)) == 6  # no journaled shard ran again
    assert set(keys) == planned_keys(BLOCKS, ["icarus"], 600, 41, 200)


def test_ctrl_c_stops_cleanly_and_says_how_to_resume(build, tmp_path):
    out = tmp_path / "interrupted"
    args = ["--blocks", "stable_discs", "--count", "800", "--shard-size", "200", "--seed", "51", "--jobs", "2",
            "--out", str(out)]
    simulator = HeldSimulator(tmp_path / "held", passes=2)  # 2 shards pass, the next ones hang
    simulator.close_gate()
    try:
        proc = start(build, *args, env={"PATH": simulator.path()})
        wait_until(lambda: journaled(out, 1) and simulator.held(), proc, "a journaled shard and a running one")
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 130, stderr
        assert "interrupted" in stderr and "--resume" in stderr.splitlines()[-1], stderr
        assert_no_shard_left(out)
    finally:
        simulator.release()
    finished = journal(out)
    assert all(e["status"] == "pass" for e in finished)  # the killed shards are not journaled
    hint = shlex.split(stderr.splitlines()[-1])
    assert hint[:2] == ["gamechip", "campaign"] and hint[-1] == "--resume"
    run = campaign(build, *hint[2:])  # the command it printed
    assert run.returncode == 0, run.stdout + run.stderr
    keys = [e["key"] for e in journal(out)]
    assert len(keys) == len(set(keys)) == 4


def signal_until_it_ends(proc, signals, gap, limit=60.0):
    """Send ``signals`` to ``proc`` in turn, one every ``gap`` seconds (0: back to back), until it
    has exited, as a terminal whose Ctrl-C is held down, or ``timeout`` (which signals the command
    and then its whole group), sends them; the number sent. A process still alive after ``limit``
    seconds is killed with its group."""
    sent, deadline = 0, time.monotonic() + limit
    while proc.poll() is None and time.monotonic() < deadline:
        proc.send_signal(signals[sent % len(signals)])
        sent += 1
        time.sleep(gap)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    return sent


def test_signals_again_and_again_within_milliseconds_still_stop_cleanly(build, tmp_path):
    """However many SIGINTs (and SIGTERMs) arrive, and however close together, while it runs,
    stops and exits, the campaign ends the one documented way: exit 130, no traceback, the
    journal intact, the resume command last. Interrupted twice (the second time while resuming):
    SIGINTs back to back, then SIGINT and SIGTERM in turn a millisecond apart; then resumed to
    the end."""
    out = tmp_path / "interrupted-again"
    command = ["--blocks", "stable_discs", "--count", "100", "--shard-size", "50", "--seed", "57", "--jobs", "2",
               "--out", str(out)]
    for attempt, (signals, gap) in enumerate([((signal.SIGINT,), 0.0), ((signal.SIGINT, signal.SIGTERM), 0.001)]):
        simulator = HeldSimulator(tmp_path / f"held{attempt}", passes=1 if attempt == 0 else 0)
        simulator.close_gate()  # the first run's first shard passes; every other shard hangs until killed
        try:
            proc = start(build, *command, env={"PATH": simulator.path()})
            wait_until(lambda: journaled(out, 1) and simulator.held(), proc, "a journaled shard and a running one")
            sent = signal_until_it_ends(proc, signals, gap)
            _, stderr = proc.communicate(timeout=60)
            assert_no_shard_left(out)
        finally:
            simulator.release()
        what = f"{'+'.join(s.name for s in signals)} every {gap * 1000:g} ms ({sent} sent)"
        assert proc.returncode == 130 and "Traceback" not in stderr, f"{what}: status {proc.returncode}\n{stderr}"
        assert "interrupted (SIGINT): 1 of 2 shards" in stderr, f"{what}:\n{stderr}"
        hint = shlex.split(stderr.splitlines()[-1])
        assert hint[:2] == ["gamechip", "campaign"] and hint[-1] == "--resume", f"{what}:\n{stderr}"
        contents = read_journal(out / "journal.jsonl")
        assert not contents.skipped and not contents.torn, f"{what}: {contents}"
        assert [e["status"] for e in contents.latest.values()] == ["pass"], f"{what}: {contents.latest}"
        command = hint[2:]
    run = campaign(build, *command)  # the command the last one printed
    assert run.returncode == 0, run.stdout + run.stderr
    assert sorted(e["key"] for e in journal(out)) == sorted(planned_keys(["stable_discs"], ["icarus"], 100, 57, 50))


def test_ctrl_c_while_shrinking_keeps_the_failure_found(build, tmp_path):
    design, file, *edits = MUTANTS["stable_discs inner square ignores one diagonal"]
    rtl = mutant_root(tmp_path, file, *edits)
    out = tmp_path / "stopped-shrinking"
    simulator = HeldSimulator(tmp_path / "held", passes=1)  # the fuzz run fails; the shrinker's runs hang
    simulator.close_gate()
    try:
        proc = start(build, "--blocks", "stable_discs", "--count", "200", "--seed", "7", "--out", str(out),
                     env={"GAMECHIP_RTL_ROOT": str(rtl), "PATH": simulator.path()})
        # the failure is saved and shrinking has begun
        wait_until(lambda: list(out.glob(".running/*/result.json")) and simulator.held(), proc, "a shrink run")
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=120)
    finally:
        simulator.release()
    assert proc.returncode == 130, stderr
    (entry,) = journal(out)
    assert entry["status"] == "fail" and "MISMATCH" in entry["message"], entry
    assert entry["shrink_error"] == "shrinking was cut off by the interrupt; the case is kept as found", entry
    assert Path(entry["case"]).is_file() and "1 of 1 shards are journaled" in stderr


def test_a_journal_that_cannot_be_written_stops_the_campaign_in_one_message(build, tmp_path):
    out = tmp_path / "unwritable"
    args = ["--blocks", "stable_discs", "--count", "1600", "--shard-size", "200", "--seed", "53", "--jobs", "2",
            "--out", str(out)]
    simulator = HeldSimulator(tmp_path / "held", passes=2)  # 2 shards pass, the next ones hang
    simulator.close_gate()
    try:
        proc = start(build, *args, env={"PATH": simulator.path()})
        wait_until(lambda: journaled(out, 1) and simulator.held(), proc, "a journaled shard and a running one")
        (out / "journal.jsonl").rename(out / "journal.saved")
        (out / "journal.jsonl").mkdir()  # every further append fails, as on a full or read-only disk
    finally:
        simulator.release()  # the held shards end (their simulators killed) and are journaled: that append fails
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 1 and "Traceback" not in stderr, stderr
    assert "campaign: cannot write " in stderr and "Is a directory" in stderr, stderr
    assert "once its folder can be written again, finish the campaign with:" in stderr
    resume = shlex.split(stderr.splitlines()[-1])
    assert resume[-1] == "--resume" and resume[resume.index("--jobs") + 1] == "2", resume
    assert_no_shard_left(out)
    assert 1 <= len((out / "journal.saved").read_text().splitlines()) < 8


def test_half_written_last_line_is_tolerated(build, tmp_path):
    out = tmp_path / "torn"
    args = ["--blocks", "stable_discs", "--count", "800", "--shard-size", "200", "--seed", "61", "--jobs", "2",
            "--out", str(out)]
    assert campaign(build, *args).returncode == 0
    path = out / "journal.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    torn = json.loads(lines[-1])["key"]
    path.write_text("".join(lines[:-1]) + lines[-1][:len(lines[-1]) // 2])  # killed in the middle of a write
    run = campaign(build, *args, "--resume")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "half-written last line" in run.stderr and "3 already journaled" in run.stderr
    entries = journal(out)
    assert [e["key"] for e in entries[:3]] == [json.loads(line)["key"] for line in lines[:3]]
    assert entries[3]["key"] == torn and len(entries) == 4


def test_damaged_lines_are_skipped_alike_by_resume_and_report(build, tmp_path):
    out = tmp_path / "damaged"
    args = ["--blocks", "stable_discs", "--count", "400", "--shard-size", "200", "--seed", "63", "--out", str(out)]
    assert campaign(build, *args).returncode == 0
    path = out / "journal.jsonl"
    first, second = path.read_text().splitlines(keepends=True)
    no_status = {k: v for k, v in json.loads(second).items() if k != "status"}
    path.write_text(first + "garbage from a disk error\n" + json.dumps(no_status) + "\n")
    run = campaign(build, *args, "--resume")
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stdout + run.stderr
    assert "skipped 2 unreadable lines" in run.stderr and "line 2 (not JSON" in run.stderr, run.stderr
    assert "line 3 (no status)" in run.stderr and "1 already journaled" in run.stderr, run.stderr
    entries = journal_entries_readable(out)
    assert len(entries) == 2 and entries[-1]["key"] == json.loads(second)["key"]  # the second shard ran again
    report = subprocess.run([sys.executable, "-m", "gamechip", "report", str(out)], cwd=ROOT, capture_output=True,
                            text=True, env=_env(build), timeout=60)
    assert report.returncode == 0 and "line 2 (not JSON" in report.stderr and "line 3 (no status)" in report.stderr
    assert ">PASS<" in (out / "report.html").read_text()


def journal_entries_readable(out):
    """The journal's lines that are JSON objects with a status (a damaged journal keeps the rest)."""
    entries = []
    for text in (Path(out) / "journal.jsonl").read_text().splitlines():
        try:
            entry = json.loads(text)
        except ValueError:
            continue
        if isinstance(entry, dict) and "status" in entry:
            entries.append(entry)
    return entries


def test_shard_past_its_timeout_is_killed_and_reported(build, tmp_path):
    out = tmp_path / "slow"
    started = time.monotonic()
    run = campaign(build, "--blocks", "stable_discs", "--count", "200", "--timeout", "0.3", "--out", str(out))
    assert time.monotonic() - started < 60
    assert run.returncode == 1, run.stdout + run.stderr
    (entry,) = journal(out)
    assert entry["status"] == "timeout" and "killed" in entry["message"]
    assert "TIMEOUT stable_discs on icarus, seed 1" in run.stdout
    assert_no_shard_left(out)


def test_hung_simulator_is_killed_with_its_shard(build, tmp_path):
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "vvp").write_text("#!/bin/sh\nexec sleep 86398\n")  # Icarus's runtime never returns
    (fake / "vvp").chmod(0o755)
    out = tmp_path / "hung"
    run = campaign(build, "--blocks", "stable_discs", "--count", "200", "--timeout", "8", "--out", str(out),
                   env={"PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"})
    assert run.returncode == 1, run.stdout + run.stderr
    (entry,) = journal(out)
    assert entry["status"] == "timeout" and 8 <= entry["seconds"] < 30
    assert "TIMEOUT stable_discs on icarus" in run.stdout
    assert "Running command: vvp" in Path(entry["log"]).read_text()  # it hung in the simulator
    hung = [p for p in Path("/proc").glob("[0-9]*") if _cmdline(p) == b"sleep\x0086398\x00"]
    assert not hung, "the hung simulator outlived its shard"


def _cmdline(proc):
    try:
        return (proc / "cmdline").read_bytes()
    except OSError:
        return b""


def test_simulator_crash_is_an_error_with_its_log(build, tmp_path):
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "vvp").write_text("#!/bin/sh\nkill -SEGV $$\n")  # Icarus's runtime dies at start
    (fake / "vvp").chmod(0o755)
    out = tmp_path / "crash"
    run = campaign(build, "--blocks", "stable_discs", "--count", "200", "--out", str(out),
                   env={"PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"})
    assert run.returncode == 1, run.stdout + run.stderr
    (entry,) = journal(out)
    assert entry["status"] == "error" and "failed before comparing" in entry["message"]
    assert Path(entry["log"]).is_file() and entry["log"].startswith(str(out / "logs"))
    assert "ERROR stable_discs on icarus" in run.stdout and entry["log"] in run.stdout


def test_errored_shard_is_retried_on_resume(build, tmp_path):
    crashes = tmp_path / "crashes"
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "vvp").write_text(  # Icarus's runtime dies the first two times only, like a flaky machine
        f"#!/bin/sh\nif [ $(cat {crashes} 2>/dev/null | wc -l) -lt 2 ]; then echo x >> {crashes}; kill -SEGV $$; fi\n"
        f"exec {shlex.quote(shutil.which('vvp'))} \"$@\"\n")
    (fake / "vvp").chmod(0o755)
    env = {"PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"}
    out = tmp_path / "flaky"
    args = ["--blocks", "stable_discs", "--count", "200", "--seed", "91", "--out", str(out)]
    first = campaign(build, *args, env=env)
    assert first.returncode == 1 and [e["status"] for e in journal(out)] == ["error"], first.stdout + first.stderr
    first_log = Path(journal(out)[0]["log"])
    first_text = first_log.read_text()
    kept = campaign(build, *args, "--resume", "--no-retry", env=env)  # the old behaviour: nothing runs again
    assert kept.returncode == 1 and "retry" not in kept.stderr and len(journal(out)) == 1, kept.stderr
    second = campaign(build, *args, "--resume", env=env)
    assert second.returncode == 1 and [e["status"] for e in journal(out)] == ["error", "error"], second.stderr
    second_log = Path(journal(out)[1]["log"])
    assert second_log != first_log and second_log.is_file() and first_log.read_text() == first_text  # both kept
    again = campaign(build, *args, "--resume", env=env)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "1 to retry (error or timeout last time)" in again.stderr and "1 shard retried" in again.stderr
    entries = journal(out)  # appended, never rewritten: the shard's last line is its status
    assert [e["status"] for e in entries] == ["error", "error", "pass"] and len({e["key"] for e in entries}) == 1
    assert "PASS:" in again.stdout
    history = re.search(r"RETRIED stable_discs on icarus, seed 91: (.*)", again.stdout)
    assert history and re.fullmatch(r"error at \S+ \S+ \(.*failed before comparing.*\), then error at .*, then "
                                    r"pass at \S+ \S+", history.group(1)), again.stdout
    report = subprocess.run([sys.executable, "-m", "gamechip", "report", str(out)], cwd=ROOT, capture_output=True,
                            text=True, env=_env(build), timeout=60)
    assert report.returncode == 0 and report.stdout.startswith("PASS: 1 of 1 shards journaled"), report.stdout
    assert "; 1 retried" in report.stdout
    html = unescape((out / "report.html").read_text())
    assert "Retried shards (1)" in html and f"retried: {history.group(1)}" in html
    assert f'href="logs/{first_log.name}"' in html and f'href="logs/{second_log.name}"' in html


def test_broken_rtl_fails_with_a_saved_case(build, tmp_path):
    design, file, *edits = MUTANTS["stable_discs inner square ignores one diagonal"]
    rtl = mutant_root(tmp_path, file, *edits)
    out = tmp_path / "broken"
    run = campaign(build, "--blocks", "stable_discs", "--count", "400", "--shard-size", "200", "--seed", "7",
                   "--out", str(out), "--no-shrink", env={"GAMECHIP_RTL_ROOT": str(rtl)})  # tests/test_shrink.py shrinks
    assert run.returncode == 1, run.stdout + run.stderr
    failed = [e for e in journal(out) if e["status"] == "fail"]
    assert failed and all("MISMATCH" in e["message"] for e in failed)
    case = Path(failed[0]["case"])
    assert case.parent == out / "cases" and case.is_file()
    record = json.loads(case.read_text())
    assert record["block"] == "stable_discs" and record["sim"] == "icarus" and record["seed"] == failed[0]["seed"]
    assert record["case"]["board"] and record["expected"] != record["actual"] and record["tools"]["cocotb"]
    assert "shrink" not in record and not list(out.glob("cases/*.orig.json"))  # --no-shrink: as found
    assert f"gamechip replay {case} --waves" in run.stdout
    replay = subprocess.run([sys.executable, "-m", "gamechip", "replay", str(case)], cwd=ROOT, capture_output=True,
                            text=True, env=_env(build, {"GAMECHIP_RTL_ROOT": str(rtl)}), timeout=300)
    assert replay.returncode == 1 and "still fails" in replay.stderr


def test_a_failing_shard_counts_the_cases_it_checked(build, tmp_path):
    design, file, *edits = MUTANTS["move_checker drops one direction"]  # wrong from the first case
    out = tmp_path / "first-case"
    run = campaign(build, "--blocks", "move_checker", "--count", "20", "--seed", "7", "--out", str(out), "--no-shrink",
                   env={"GAMECHIP_RTL_ROOT": str(mutant_root(tmp_path, file, *edits))})
    assert run.returncode == 1, run.stdout + run.stderr
    (entry,) = journal(out)
    assert entry["status"] == "fail" and "case:     fuzz #0 " in entry["message"]
    assert entry["checked"] == 1  # the one case compared, the mismatch
    assert "; 1 cases checked" in run.stdout.splitlines()[-1], run.stdout


@pytest.mark.parametrize("args, expected", [
    (["--blocks", "alu"], "unknown block 'alu'"),
    (["--sims", "modelsim"], "unknown simulator 'modelsim'"),
    (["--count", "0"], "must be at least 1"),
    (["--shard-size", "0"], "must be at least 1"),
    (["--timeout", "0"], "must be more than 0"),
    (["--cluster", "localhost:8786"], "bad cluster address 'localhost:8786': expected tcp://HOST:PORT"),
    (["--cluster", "tcp://localhost"], "bad cluster address"),
])
def test_bad_input_is_one_clear_line(build, tmp_path, args, expected):
    run = campaign(build, "--out", str(tmp_path / "bad"), *args)
    assert run.returncode == 2 and expected in run.stderr, run.stderr
    assert not (tmp_path / "bad" / "journal.jsonl").exists()


BAD_VALUES = [
    (["--jobs", "0"], "--jobs: must be at least 1"),
    (["--jobs", "5000"], "--jobs 5000 is more than the 1024 build slots"),
    (["--timeout", "-1"], "--timeout: must be more than 0"),
    (["--timeout", "nan"], "--timeout: must be more than 0"),
    (["--count", "10000000000"], "make 5,000,000 shards, more than 100,000: raise --shard-size"),
    (["--no-retry"], "--no-retry applies only with --resume"),
    (["--cluster", "tcp://127.0.0.1:1", "--jobs", "2"], "with --cluster the cluster's workers run them"),
]


def exit_status(argv):
    """``gamechip ARGV`` in this process (only for input refused before any shard runs)."""
    try:
        return main(argv)
    except SystemExit as stop:  # argparse's own refusals
        return stop.code


@pytest.mark.parametrize("args, expected", BAD_VALUES)
def test_bad_values_stop_before_any_work(tmp_path, capsys, args, expected):
    out = tmp_path / "bad"
    assert exit_status(["campaign", "--blocks", "stable_discs", "--out", str(out), *args]) == 2
    error = capsys.readouterr().err
    assert expected in error and "Traceback" not in error, error
    assert not out.exists()


@pytest.mark.parametrize("out, expected", [
    ("/proc/gamechip-campaign", "cannot create the campaign folder /proc/gamechip-campaign"),
    ("FILE", "is a file, not a folder"),
    ("", "--out is empty"),
    ("JOURNAL-FOLDER", "journal.jsonl is not a file"),
])
def test_an_unusable_out_folder_is_one_line(tmp_path, capsys, out, expected):
    (tmp_path / "file").write_text("not a folder\n")
    (tmp_path / "journal-folder" / "journal.jsonl").mkdir(parents=True)
    out = {"FILE": str(tmp_path / "file"), "JOURNAL-FOLDER": str(tmp_path / "journal-folder")}.get(out, out)
    for resume in ([], ["--resume"]):
        assert exit_status(["campaign", "--blocks", "stable_discs", "--count", "50", "--out", out, *resume]) == 2
        error = capsys.readouterr().err
        assert expected in error and len(error.strip().splitlines()) == 1, error
    assert (tmp_path / "file").read_text() == "not a folder\n"


@pytest.mark.parametrize("stored", ["{broken", "[1]", '{"blocks": ["stable_discs"], "sims": ["icarus"]}',
                                    '{"blocks": ["stable_discs"], "sims": ["icarus"], "count": 50, "seed": 1, '
                                    '"shard_size": 0}'])
def test_a_damaged_campaign_json_stops_a_resume_in_one_line(tmp_path, capsys, stored):
    (tmp_path / "campaign.json").write_text(stored)
    assert exit_status(["campaign", "--blocks", "stable_discs", "--count", "50", "--out", str(tmp_path),
                        "--resume"]) == 2
    error = capsys.readouterr().err
    assert "campaign.json is damaged (" in error and "delete it to resume" in error, error
    assert len(error.strip().splitlines()) == 1 and not (tmp_path / "journal.jsonl").exists()


# In make test-full: a LocalCluster and three campaigns on it. make test keeps the same shards on
# local workers (the tests above) and a Dask LocalCluster under gamechip parallel (tests/test_parallel.py).
@pytest.mark.full
def test_same_shards_on_a_dask_local_cluster(build, tmp_path, monkeypatch):
    import distributed  # a dependency (pyproject.toml): a missing one is an error here, not a skip
    monkeypatch.setenv("GAMECHIP_BUILD", str(build))  # the workers inherit it
    simulator = HeldSimulator(tmp_path / "held", passes=2)  # Icarus's own vvp until the gate is closed
    monkeypatch.setenv("PATH", simulator.path())  # the workers inherit it too
    args = ["--blocks", *BLOCKS, "--sims", "icarus", "--count", "500", "--shard-size", "200", "--seed", "71"]
    local = campaign(build, *args, "--jobs", "2", "--out", str(tmp_path / "local"))
    assert local.returncode == 0, local.stdout + local.stderr
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tcp://127.0.0.1:")
        remote = campaign(build, *args, "--cluster", address, "--out", str(tmp_path / "dask"))
        assert remote.returncode == 0, remote.stdout + remote.stderr
        assert "Dask cluster tcp://127.0.0.1:" in remote.stderr and "2 workers" in remote.stderr
        local_entries, dask_entries = journal(tmp_path / "local"), journal(tmp_path / "dask")
        assert len(dask_entries) == len(local_entries) == 6
        assert {e["key"]: e["checked"] for e in dask_entries} == {e["key"]: e["checked"] for e in local_entries}

        # Ctrl-C on a cluster campaign cancels its tasks and kills its shards on the workers.
        out = tmp_path / "dask-interrupted"
        more = ["--blocks", "stable_discs", "--count", "2000", "--shard-size", "200", "--seed", "81",
                "--cluster", address, "--out", str(out)]
        simulator.close_gate()  # 2 shards pass, the next ones hang on the workers
        try:
            proc = start(build, *more)
            wait_until(lambda: journaled(out, 1) and simulator.held(), proc, "a journaled shard and a running one")
            proc.send_signal(signal.SIGINT)
            _, stderr = proc.communicate(timeout=120)
            assert proc.returncode == 130 and "--resume" in stderr and "could not stop" not in stderr, stderr
            assert_no_shard_left(build, find=cluster_shard_processes)
        finally:
            simulator.release()
        resumed = campaign(build, *more, "--resume")
        assert resumed.returncode == 0, resumed.stdout + resumed.stderr
        keys = [e["key"] for e in journal(out)]
        assert len(keys) == len(set(keys)) == 10


@pytest.mark.parametrize("checked, status", [(0, "error"), (199, "error"), (200, "pass"), (400, "pass")])
def test_a_pass_that_checked_fewer_cases_than_positions_is_an_error(tmp_path, checked, status):
    """Every block makes one case or more per fuzzed position: a passing run that compared
    fewer has skipped some (a bench or harness bug), which must not count as a pass."""
    shard = {"block": "stable_discs", "design": "stable_discs", "module": "tb.test_stable_discs", "sim": "icarus",
             "seed": 1, "count": 200, "index": 0}
    result = tmp_path / "result.json"
    result.write_text(json.dumps({"passed": True, "result": {"checked": checked, "tests": {"fuzz": {}}},
                                  "log": "gamechip.log", "sim_dir": str(tmp_path), "log_text": ""}))
    outcome = classify_outcome(shard, 60.0, False, False, 0, result, tmp_path / "worker.log")
    assert outcome["status"] == status and outcome["checked"] == checked
    if status == "error":
        assert f"checking {checked:,} cases for 200 positions" in outcome["message"]


def test_journaled_shards_outside_the_plan_are_named_when_resuming(build, tmp_path):
    """campaign.json deleted (as a damaged one may be) and the campaign resumed with other
    parameters: the journaled shards of the old plan are left out, and the warning says so."""
    out = tmp_path / "replanned"
    out.mkdir()
    shard = {"block": "stable_discs", "design": "stable_discs", "module": "tb.test_stable_discs", "sim": "icarus",
             "seed": 1, "count": 50, "index": 0}
    (out / "journal.jsonl").write_text(json.dumps({"key": "stable_discs/icarus/seed1/n50", **shard, "status": "pass",
                                                   "checked": 100}) + "\n")
    run = campaign(build, "--blocks", "stable_discs", "--count", "60", "--seed", "1", "--out", str(out), "--resume")
    assert run.returncode == 0, run.stderr
    assert "1 journaled shard is not in this plan and left out (first: stable_discs/icarus/seed1/n50)" in run.stderr
