"""The boards ``gamechip bitstream`` builds for: FPGA family, devices, package, constraints.

The board top itself (clocks, button and LED polarity, the LEDs' status bits) is rtl/board.py's
``BOARDS``; this table adds what the place-and-route tools need. Each board's pins are the
``<board>.lpf`` file beside this module, copied from the board's published constraints (each
file's header names its source).
"""

from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class BoardTarget:
    name: str
    title: str
    devices: dict          # device name -> nextpnr-ecp5 size option
    default_device: str
    package: str
    flash: str             # the command that writes the bitstream BIT to the board (docs/board.md)
    flash_note: str

    @property
    def constraints(self):
        return HERE / f"{self.name}.lpf"


TARGETS = {
    "ulx3s": BoardTarget("ulx3s", "ULX3S", {"12F": "--12k", "25F": "--25k", "45F": "--45k", "85F": "--85k"},
                         "85F", "CABGA381", "openFPGALoader -b ulx3s BIT",
                         "into the FPGA until power-off; -f writes the flash"),
    "orangecrab": BoardTarget("orangecrab", "OrangeCrab r0.2", {"25F": "--25k", "85F": "--85k"}, "25F",
                              "CSFBGA285", "openFPGALoader -b orangecrab BIT",
                              "over DFU: hold the button while plugging the board in"),
}
