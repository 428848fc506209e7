"""The two-context processor's interface (design ``processor_c2``, rtl/root_split.py,
docs/root-split.md): the job port exists with two contexts only. Its searches are checked job by
job and clock by clock against the golden root splitter by the processor bench
(tb/test_processor.py ``test_processor_c2``)."""

import pytest

from rtl.designs import PORTS, SIGNED
from rtl.processor import JOB_PORTS, processor_ports

DESIGN = "processor_c2"


def test_the_job_port_comes_with_two_contexts_only():
    assert processor_ports(1) == PORTS["processor"]
    assert PORTS[DESIGN] == PORTS["processor"] + JOB_PORTS
    assert SIGNED[DESIGN] == SIGNED["processor"] | {"job_alpha", "job_beta", "job_value"}


def test_the_job_port_is_refused_without_two_contexts():
    from myhdl import Signal

    from rtl.processor import processor

    with pytest.raises(ValueError, match="comes with contexts=2 or engines >= 2, and only then"):
        processor(*[Signal(bool(0))] * 14, job_event=Signal(bool(0)))
