"""Pieces of HDL text every harness generator shares (tb.host.harness, tb.host.search_harness):
Verilog ranges, VHDL types and literals, the clock and reset timing, the control ports and the
name of a design's HDL-clocked harness."""

HALF_PERIOD_NS = 5
CONTROL_PORTS = ("clk", "rst", "start")

# The reset the per-cycle monitor of tb/test_search.py applies (rst high until the second rising
# edge of a clock that rises at 0, 10, 20 ns...): the same here, so that a case run first shows
# the same simulation times on both paths.
RESET_RELEASE_NS = 10


def clocked_harness_name(design):
    return f"clocked_{design}"


def vrange(width):
    return f"[{width - 1}:0] " if width > 1 else ""


def digits(width):
    return (width + 3) // 4 * 4


def vhdl_type(width, signed=False):
    if width == 1:
        return "std_logic"
    return f"{'signed' if signed else 'unsigned'}({width - 1} downto 0)"


def vhdl_zero_literal(width):
    return "'0'" if width == 1 else "0"


def vhdl_zero(width):
    return "'0'" if width == 1 else "(others => '0')"


def vhdl_ones(width):
    return "'1'" if width == 1 else "(others => '1')"
