"""The port wrapper of a gate-level netlist (gamechip/gatelevel.py) mirrors the internal nets a
design's benches read by hierarchical name: evaluator_axi's latched board, ``dut.eval_black`` in
both the converted RTL and the netlist root. No simulator, no synthesis: netlist text only."""

import pytest

from gamechip.gatelevel import BENCH_NETS, GateLevelError, gate_level_wrapper
from rtl.designs import PORTS

NETLIST = """\
module evaluator_axi_netlist(clk, rst);
  input clk;
  input rst;
  wire [63:0] eval_black;
  wire [63:0] eval_black_SB_DFFESR_Q_10_D;
  reg [63:0] eval_white;
  wire eval_wtm;
endmodule
"""


def test_the_wrapper_mirrors_the_nets_the_benches_read_at_the_widths_the_netlist_declares():
    text = gate_level_wrapper("evaluator_axi", PORTS["evaluator_axi"], (), NETLIST)
    assert "wire eval_wtm = netlist.eval_wtm;" in text
    assert "wire [63:0] eval_black = netlist.eval_black;" in text
    assert "wire [63:0] eval_white = netlist.eval_white;" in text
    # the mirrors come before the instance, and every bench net is mirrored once
    assert text.index("= netlist.eval_white;") < text.index("evaluator_axi_netlist netlist (")
    assert sum(text.count(f"wire {'[63:0] ' if n != 'eval_wtm' else ''}{n} =") for n in BENCH_NETS["evaluator_axi"]) == 3


def test_a_design_without_bench_nets_gets_its_ports_only():
    text = gate_level_wrapper("uart", PORTS["uart"], (), NETLIST)
    assert "= netlist." not in text


@pytest.mark.parametrize("missing", BENCH_NETS["evaluator_axi"])
def test_a_netlist_that_lost_a_bench_net_is_refused_by_name(missing):
    netlist = "\n".join(line for line in NETLIST.splitlines() if not line.rstrip().endswith(f" {missing};"))
    with pytest.raises(GateLevelError, match=f"declares no net '{missing}'.*dut.{missing}"):
        gate_level_wrapper("evaluator_axi", PORTS["evaluator_axi"], (), netlist)
