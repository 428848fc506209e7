"""pytest: the regression names the RTL it tests in its header, and refuses a GAMECHIP_RTL_ROOT
that holds no rtl/ package instead of testing the project's own RTL under another name."""

import pytest


def pytest_configure(config):
    from tb.runner import RtlRootError, resolve_rtl_root

    try:
        resolve_rtl_root()
    except RtlRootError as error:
        raise pytest.UsageError(str(error))


def pytest_report_header(config):
    from tb.runner import describe_rtl

    return describe_rtl()
