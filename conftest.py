"""pytest: the regression names the RTL it tests in its header, and refuses unusable GAMECHIP_*
settings (a GAMECHIP_RTL_ROOT without rtl/, which would test the project's own RTL under another
name; an empty GAMECHIP_CORPUS, which would replay nothing) instead of passing."""

import pytest


def pytest_configure(config):
    from tb.corpus import check_corpus_folder
    from tb.runner import SettingError, check_settings

    try:
        check_settings()
        check_corpus_folder()
    except SettingError as error:
        raise pytest.UsageError(str(error))


def pytest_report_header(config):
    from tb.runner import describe_rtl

    return describe_rtl()


# The longest tests first (pytest-xdist hands tests out in collection order, the first quarter
# round-robin): a minute-long test scheduled last would leave the other worker idle at the end.
# Whole-bench simulations (tb/) and the mutation runs take 20 s to 3 minutes each; the rest of
# tests/ mostly seconds. Only the order changes: a name missing here is still run, later.
LONGEST_FIRST = ("tests/test_mutate.py::test_one_mutant_of_each_kind", "tb/test_search.py", "tb/test_chess_movegen.py",
                 "tb/test_processor.py", "tests/test_mutate.py", "tests/test_area.py", "tests/test_codesign.py", "tb/")


def _rank(item):
    return next((rank for rank, prefix in enumerate(LONGEST_FIRST) if item.nodeid.startswith(prefix)),
                len(LONGEST_FIRST))


def pytest_collection_modifyitems(config, items):
    items.sort(key=_rank)
