"""pytest: the regression names the RTL it tests in its header, and refuses unusable GAMECHIP_*
settings (a GAMECHIP_RTL_ROOT without rtl/, which would test the project's own RTL under another
name; an empty GAMECHIP_CORPUS, which would replay nothing) instead of passing."""

import pytest


def pytest_configure(config):
    from tb.host.corpus import check_corpus_folder
    from tb.host.runner import SettingError, check_settings

    try:
        check_settings()
        check_corpus_folder()
    except SettingError as error:
        raise pytest.UsageError(str(error))


def pytest_report_header(config):
    from tb.host.runner import describe_rtl

    return describe_rtl()
