"""The regression corpus (tb/cases/, see tb/host/corpus.py): every case that once exposed a bug is
replayed on the simulator it was found with and must match the golden model. One test per file,
named after it; a malformed file fails its own test with one line naming it."""

import pytest

from tb.host.casefile import CaseFileError
from tb.host.corpus import CorpusRegression, check_corpus_case, corpus_files


@pytest.mark.parametrize("path", corpus_files(), ids=lambda path: path.name)
def test_corpus_case(path):
    try:
        check_corpus_case(path)
    except (CaseFileError, CorpusRegression) as error:
        pytest.fail(str(error), pytrace=False)
