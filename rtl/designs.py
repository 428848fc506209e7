"""Registry of the convertible top-level designs.

``DESIGNS[name]()`` creates the top-level signals and returns the elaborated block instance;
convert it with ``inst.convert(hdl=..., path=..., name=name)`` so that the module / entity
is called ``name``. ``PORTS[name]`` lists ``(port, width, 'in' | 'out')`` in argument order
(bool = width 1) and ``SIZE[name]`` the board side, so that wrappers and benches can be
generated without elaborating anything. Port names are the block argument names.
"""

from myhdl import ResetSignal, Signal, intbv

from rtl.disc_flipper import disc_flipper
from rtl.geometry import move_width
from rtl.move_checker import move_checker
from rtl.stable_discs import stable_discs


def move_checker_ports(size):
    squares = size * size
    return [("own", squares, "in"), ("opp", squares, "in"), ("legal", squares, "out")]


def disc_flipper_ports(size):
    squares = size * size
    return [("black", squares, "in"), ("white", squares, "in"), ("white_to_move", 1, "in"),
            ("move", move_width(size), "in"), ("new_black", squares, "out"),
            ("new_white", squares, "out"), ("illegal", 1, "out")]


def stable_discs_ports(size):
    squares = size * size
    return [("clk", 1, "in"), ("rst", 1, "in"), ("start", 1, "in"), ("black", squares, "in"),
            ("white", squares, "in"), ("color", 1, "in"), ("done", 1, "out"),
            ("count", (squares + 1).bit_length(), "out"), ("stable", squares, "out")]


SIZE = {
    "move_checker": 8,
    "disc_flipper": 8,
    "disc_flipper_n4": 4,
    "disc_flipper_n6": 6,
    "stable_discs": 8,
}

PORTS = {
    "move_checker": move_checker_ports(SIZE["move_checker"]),
    "disc_flipper": disc_flipper_ports(SIZE["disc_flipper"]),
    "disc_flipper_n4": disc_flipper_ports(SIZE["disc_flipper_n4"]),
    "disc_flipper_n6": disc_flipper_ports(SIZE["disc_flipper_n6"]),
    "stable_discs": stable_discs_ports(SIZE["stable_discs"]),
}


def port_signals(ports):
    """One signal per port: Signal(bool) for width 1, Signal(intbv[width]) otherwise."""
    return [Signal(bool(0)) if width == 1 else Signal(intbv(0)[width:]) for _, width, _ in ports]


def build_move_checker(size):
    return move_checker(*port_signals(move_checker_ports(size)), size=size)


def build_disc_flipper(size):
    return disc_flipper(*port_signals(disc_flipper_ports(size)), size=size)


def build_stable_discs(size):
    """rst is a synchronous active-high ResetSignal, count an intbv(0, min=0, max=N*N+1)."""
    signals = dict(zip((name for name, _, _ in stable_discs_ports(size)),
                       port_signals(stable_discs_ports(size))))
    signals["rst"] = ResetSignal(0, active=1, isasync=False)
    signals["count"] = Signal(intbv(0, min=0, max=size * size + 1))
    return stable_discs(size=size, **signals)


DESIGNS = {
    "move_checker": lambda: build_move_checker(SIZE["move_checker"]),
    "disc_flipper": lambda: build_disc_flipper(SIZE["disc_flipper"]),
    "disc_flipper_n4": lambda: build_disc_flipper(SIZE["disc_flipper_n4"]),
    "disc_flipper_n6": lambda: build_disc_flipper(SIZE["disc_flipper_n6"]),
    "stable_discs": lambda: build_stable_discs(SIZE["stable_discs"]),
}
