"""A read-only memory filled at elaboration time, shared by the blocks that need one."""

from myhdl import always_comb, block


@block
def rom(address, data, content):
    """data = content[address], converted to a case statement.

    address: Signal(intbv) (in); data: Signal (out); content: tuple of ints (elaboration time).
    """

    @always_comb
    def read_rom():
        data.next = content[address]

    return read_rom
