"""pytest: the regression names the RTL it tests in its header, and refuses unusable GAMECHIP_*
settings (a GAMECHIP_RTL_ROOT without rtl/, which would test the project's own RTL under another
name; an empty GAMECHIP_CORPUS, which would replay nothing) instead of passing.

Coverage closure (gamechip/coverage/closure.py): the bench tests of blocks with a test plan sample
functional coverage into one folder of the session; at the end the controller merges what the
passed bench tests sampled and fails the run when a bin of a fully run design is neither hit nor
waived, listing the holes. A run started with GAMECHIP_COVERAGE_OUT set samples into that folder
instead (gamechip coverage runs the benches of the designs checked outside the batch loop so)."""

import os
from functools import lru_cache

import pytest

CLOSURE = pytest.StashKey[dict]()


def pytest_configure(config):
    from tb.host.corpus import check_corpus_folder
    from tb.host.runner import SettingError, check_settings

    try:
        check_settings()
        check_corpus_folder()
    except SettingError as error:
        raise pytest.UsageError(str(error))
    if not hasattr(config, "workerinput"):   # the controller (or the only process): one folder, inherited by workers
        import shutil

        from gamechip.coverage.closure import SESSION_FOLDER
        from tb.checks.coverage_samplers import COVERAGE_OUT
        from tb.host.runner import BUILD

        if os.environ.get(COVERAGE_OUT):   # the caller's folder (gamechip coverage running a bench's tests)
            folder = os.environ[COVERAGE_OUT]
        else:
            folder = BUILD / "coverage" / f"session-{os.getpid()}"
            shutil.rmtree(folder, ignore_errors=True)
        os.environ[SESSION_FOLDER] = str(folder)


def pytest_report_header(config):
    from tb.host.runner import describe_rtl

    return describe_rtl()


@lru_cache(maxsize=None)
def _planned_bench(nodeid):
    from gamechip.coverage.closure import planned_bench

    return planned_bench(nodeid)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    """A planned block's bench test samples coverage into the session's folder (its simulator
    inherits COVERAGE_OUT); no other test does."""
    from gamechip.coverage.closure import SESSION_FOLDER
    from tb.checks.coverage_samplers import COVERAGE_OUT

    folder = os.environ.get(SESSION_FOLDER)
    sampling = bool(folder) and _planned_bench(item.nodeid)
    if sampling:
        os.environ[COVERAGE_OUT] = folder
    try:
        yield
    finally:
        if sampling:
            os.environ.pop(COVERAGE_OUT, None)


_passed_ids = set()   # the tests that passed in this session (the controller sees every worker's reports)


def pytest_runtest_logreport(report):
    if report.when == "call" and report.passed:
        _passed_ids.add(report.nodeid)


def pytest_sessionfinish(session, exitstatus):
    if hasattr(session.config, "workerinput"):
        return
    from gamechip.coverage.closure import SESSION_FOLDER, session_closure
    from tb.blocks import full_regression

    folder = os.environ.get(SESSION_FOLDER)
    if not folder or not _passed_ids:
        return
    results = session_closure(folder, _passed_ids, full_regression())
    session.config.stash[CLOSURE] = results
    if any(not coverage.closed for coverage in results.values()) and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    results = config.stash.get(CLOSURE, None)
    if not results:
        return
    from gamechip.coverage.closure import SESSION_FOLDER

    terminalreporter.section("coverage closure")
    for design, coverage in results.items():
        summary = coverage.summary()
        state = "closed" if coverage.closed else "OPEN"
        terminalreporter.write_line(f"{design}: {summary['bins']} bins, {summary['hit']} hit, "
                                    f"{len(summary['waived'])} waived: {state}")
        for line in coverage.problems():
            terminalreporter.write_line(f"  {line}", red=True)
    if any(not coverage.closed for coverage in results.values()):
        terminalreporter.write_line(f"FAILED: coverage closure (hit files: {os.environ.get(SESSION_FOLDER)}; "
                                    f"gamechip coverage --hits FOLDER writes the report)", red=True)
