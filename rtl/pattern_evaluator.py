"""Pattern evaluator (docs/spec.md §13, docs/pattern-evaluator.md): the leaf value as a sum of
trained weights, one per pattern instance, read from block-RAM-shaped ROMs, with a start/done
handshake and a fixed latency.

**Patterns and instances.** Each pattern is written here as a walk on (row, column): a start,
a step and a length, or a 3x3 block. Its instances are its images under the 8 symmetries of
the square, each written as a map on (row, column); the first image of each distinct set of
squares is kept (38 instances of 10 patterns). Square ``row * 8 + column`` is bit
``row * 8 + column`` of a bitboard (A1 = bit 0, rank 1 = row 0).

**Index.** An instance's squares, in walk order, are the digits of a base-3 number, the first
square the least significant: 0 empty, 1 a disc of the side to move, 2 a disc of the other
side. An image read in another order than the weight file's own (the edge read backwards, the
corner transposed) reads the same weight, because the file ties such entries together
(docs/pattern-evaluator.md, "Symmetric tables").

**Tables.** One ROM per pattern and stage, its content the weight file's table (8-bit two's
complement codes), written at conversion time. A ROM is a synchronous dual-port read-only
memory written as user-defined HDL (a memory with an initial value and two registered read
ports), the form Yosys's memory inference takes for block RAM: the pattern's instances share
it, two per cycle, one through each port. All stages' ROMs are read at once with the same addresses; the stage
picks which ROM's answer counts after the read.

**Schedule.** On the start edge the board is latched and every ROM reads the first two
instances of its pattern (phase A), addressed from the ``black``/``white`` inputs themselves.
In cycle 0 the phase A weights of the board's stage are summed into an accumulator (loaded on
the next edge), and the ROMs of the four-instance patterns read the other two instances
(phase B), addressed from the latched board. In cycle 1 the value is the accumulator plus the
phase B weights, saturated to -256..255, and ``done`` is high: a constant latency of one cycle
after the start edge's cycle, for every board. busy clears on the edge after done; the value
and the stage hold until the next start (the ROMs keep reading phase B of the latched board).
A start while busy restarts.

The weight file is read with ``golden.patterns.read_weights`` for its content only (tables by
pattern name, stage limits); the squares, instances and indexes are built here.
"""

from myhdl import ConcatSignal, Signal, always, always_comb, always_seq, block, intbv

from rtl.evaluator import VALUE_MAX, VALUE_MIN, sum_terms, wide_signal
from rtl.popcount import adder, popcount

SIZE = 8
SQUARES = SIZE * SIZE
WEIGHT_BITS = 8
SUM_WIDTH = 14        # signed: 38 weights of -128..127 sum to at most 4,826 in magnitude
PORTS_PER_ROM = 2     # a block RAM's read ports
STAGE_BITS = 2        # the stage port: a weight file of up to 4 stages


def walk(start_row, start_column, row_step, column_step, length):
    """The (row, column) cells of a straight walk."""
    return tuple((start_row + row_step * k, start_column + column_step * k) for k in range(length))


# name -> the base instance's cells in index order (first cell = least significant digit), as
# docs/pattern-evaluator.md's pattern table draws them
PATTERN_WALKS = {
    "edge": walk(0, 0, 0, 1, 8),
    "row2": walk(1, 0, 0, 1, 8),
    "row3": walk(2, 0, 0, 1, 8),
    "row4": walk(3, 0, 0, 1, 8),
    "diag8": walk(0, 0, 1, 1, 8),
    "diag7": walk(0, 1, 1, 1, 7),
    "diag6": walk(0, 2, 1, 1, 6),
    "diag5": walk(0, 3, 1, 1, 5),
    "diag4": walk(0, 4, 1, 1, 4),
    "corner3x3": tuple((row, column) for row in range(3) for column in range(3)),
}

LAST = SIZE - 1
# the 8 symmetries of the square as maps of (row, column)
SYMMETRY_MAPS = (
    lambda r, c: (r, c),                  # identity
    lambda r, c: (c, LAST - r),           # a quarter turn
    lambda r, c: (LAST - r, LAST - c),    # a half turn
    lambda r, c: (LAST - c, r),           # three quarter turns
    lambda r, c: (LAST - r, c),           # rank mirror
    lambda r, c: (r, LAST - c),           # file mirror
    lambda r, c: (c, r),                  # the A1-H8 diagonal mirror
    lambda r, c: (LAST - c, LAST - r),    # the A8-H1 diagonal mirror
)


def instance_squares(pattern):
    """The instances of ``pattern`` as tuples of square numbers in index order: the images of
    its walk under SYMMETRY_MAPS, the first of each distinct set of squares."""
    seen, out = set(), []
    for transform in SYMMETRY_MAPS:
        squares = tuple(row * SIZE + column for row, column in (transform(r, c) for r, c in PATTERN_WALKS[pattern]))
        if frozenset(squares) not in seen:
            seen.add(frozenset(squares))
            out.append(squares)
    return tuple(out)


def address_width(pattern):
    return (3 ** len(PATTERN_WALKS[pattern]) - 1).bit_length()


def weight_codes(table):
    """Signed weights -> their 8-bit two's complement codes (the ROM content)."""
    return tuple(weight & ((1 << WEIGHT_BITS) - 1) for weight in table)


@block
def digit_value(own_digits, opp_digits, position, place, term):
    """term = place when own_digits[position] is set, else 2 * place when opp_digits[position]
    is set, else 0: one ternary digit at its place value (a constant)."""
    double = 2 * place

    @always_comb
    def read_digit():
        if own_digits[position]:
            term.next = place
        elif opp_digits[position]:
            term.next = double
        else:
            term.next = 0

    return read_digit


@block
def ternary_index(own_digits, opp_digits, index):
    """index = sum over k of digit_k * 3**k, digit_k 1 when own_digits[k] is set, else 2 when
    opp_digits[k] is set, else 0.

    own_digits, opp_digits: Signal(intbv[n]) an instance's squares of each side, bit k the
    k-th square in index order (in); index: Signal(intbv[w]), w bits hold 3**n - 1 (out).
    Every digit's term and every partial sum is w bits wide: no sum exceeds 3**n - 1.
    """
    width = len(index)
    cells, level = [], []
    for position in range(len(own_digits)):
        term = Signal(intbv(0)[width:])
        cells.append(digit_value(own_digits, opp_digits, position, 3 ** position, term))
        level.append(term)
    while len(level) > 1:
        following = []
        for first in range(0, len(level) - 1, 2):
            partial = index if len(level) == 2 else Signal(intbv(0)[width:])
            cells.append(adder(level[first], level[first + 1], partial))
            following.append(partial)
        if len(level) % 2:
            following.append(level[-1])
        level = following
    return cells


def digits_of(board, squares):
    """The bits of ``board`` at ``squares`` as one vector, the first square the lowest bit."""
    return ConcatSignal(*[board(square) for square in reversed(squares)])


ROM_CHUNK = 128  # entries per Verilog constant: Icarus copies the whole constant for every part-select,
                 # and Verilator unrolls loops of up to 64 iterations (one statement per entry again)


def verilog_rom_content(label, content):
    """The Verilog that fills the memory ``label`` with ``content`` (8-bit codes): the codes
    packed into constants of ROM_CHUNK entries (entry 0 in the lowest byte), copied into the
    memory by one initial loop per constant. A loop, not one assignment per entry, so that
    Verilator's C++ model stays small (it compiles an assignment per entry into code)."""
    lines = [f"integer {label}_entry;"]
    copies = []
    for part, first in enumerate(range(0, len(content), ROM_CHUNK)):
        codes = content[first:first + ROM_CHUNK]
        digits = "".join(f"{code:02x}" for code in reversed(codes))
        lines.append(f"localparam [{8 * len(codes) - 1}:0] {label}_part{part} = {8 * len(codes)}'h{digits};")
        copies.append(f"    for ({label}_entry = 0; {label}_entry < {len(codes)}; {label}_entry = {label}_entry + 1)\n"
                      f"        {label}[{first} + {label}_entry] = {label}_part{part}[8 * {label}_entry +: 8];")
    return "\n".join(lines + ["initial begin"] + copies + ["end"])


@block
def weight_rom(clk, address_a, address_b, code_a, code_b, content, label):
    """Synchronous dual-port ROM: on every rising edge code_a = content[address_a] and
    code_b = content[address_b].

    clk: Signal(bool) (in); address_a, address_b: Signal(intbv[w]) (in);
    code_a, code_b: Signal(intbv[8]) (out, registered); content: tuple of 8-bit codes
    (conversion time); label: the memory's name in the HDL (unique in the design).
    The converted HDL is written out below (weight_rom.verilog_code, .vhdl_code): one memory
    with an initial value and two registered read ports, the form Yosys's memory inference
    takes for block RAM (docs/pattern-evaluator.md says what was measured).
    """
    code_a.driven = "reg"
    code_b.driven = "reg"
    last = len(content) - 1
    verilog_content = verilog_rom_content(label, content)
    vhdl_content = ",\n".join(f'        x"{code:02x}"' for code in content)

    @always(clk.posedge)
    def read_ports():
        code_a.next = content[int(address_a)]
        code_b.next = content[int(address_b)]

    return read_ports


weight_rom.verilog_code = """
reg [7:0] ${label} [0:${last}];
${verilog_content}
always @(posedge ${clk}) begin
    ${code_a} <= ${label}[${address_a}];
    ${code_b} <= ${label}[${address_b}];
end
"""

weight_rom.vhdl_code = """
${label}_memory: block
    type ${label}_type is array (0 to ${last}) of unsigned(7 downto 0);
    constant ${label}: ${label}_type := (
${vhdl_content});
begin
    ${label}_read: process (${clk}) is
    begin
        if rising_edge(${clk}) then
            ${code_a} <= ${label}(to_integer(${address_a}));
            ${code_b} <= ${label}(to_integer(${address_b}));
        end if;
    end process;
end block;
"""


@block
def address_select(start, at_start, after_start, address):
    """address = at_start while start is high, else after_start (a ROM port's two phases)."""

    @always_comb
    def select_address():
        if start:
            address.next = at_start
        else:
            address.next = after_start

    return select_address


@block
def stage_code(stage, number, code, other, picked):
    """picked = code when stage == number, else other (one link of the stage multiplexer)."""

    @always_comb
    def pick_code():
        if stage == number:
            picked.next = code
        else:
            picked.next = other

    return pick_code


@block
def signed_weight(code, weight):
    """weight = code read as an 8-bit two's complement number, sign-extended to weight's width
    (by an explicit concatenation of the sign bit: no implicit widening)."""
    extended = ConcatSignal(*[code(WEIGHT_BITS - 1) for _ in range(len(weight) - WEIGHT_BITS)], code)

    @always_comb
    def extend_sign():
        weight.next = extended.signed()

    return extend_sign


@block
def saturated(total, value):
    """value = total clamped to -256..255. total: wide signed (in); value: signed 9 bits (out)."""

    @always_comb
    def clamp():
        if total > VALUE_MAX:
            value.next = VALUE_MAX
        elif total < VALUE_MIN:
            value.next = VALUE_MIN
        else:
            value.next = total[len(value):].signed()

    return clamp


@block
def stage_of(discs, limits, stage):
    """stage = the number of ``limits`` (increasing disc counts) below ``discs``: 0 when
    discs <= limits[0], ..., len(limits) above the last. discs: count (in); stage (out)."""
    if not limits:
        raise ValueError("the pattern evaluator needs a weight file of two stages or more")
    chain = {position: Signal(intbv(0, min=0, max=len(limits) + 1)) for position in range(len(limits) - 1)}
    links = []
    for position, limit in enumerate(limits):
        beyond = chain[position] if position < len(limits) - 1 else None
        links.append(stage_link(discs, limit, position, beyond, len(limits), stage if position == 0 else
                                chain[position - 1]))
    return links


@block
def stage_link(discs, limit, number, beyond, last_stage, stage):
    """stage = number when discs <= limit, else beyond (the next link's answer), or last_stage
    when this is the last link (beyond is None)."""
    if beyond is None:
        @always_comb
        def last_link():
            if discs <= limit:
                stage.next = number
            else:
                stage.next = last_stage

        return last_link

    @always_comb
    def inner_link():
        if discs <= limit:
            stage.next = number
        else:
            stage.next = beyond

    return inner_link


@block
def pattern_evaluator(clk, rst, start, black, white, white_to_move, done, stage, value, weights=None):
    """The pattern value of one board from the side to move (docs/spec.md §13).

    clk:            Signal(bool) clock (in).
    rst:            ResetSignal(0, active=1, isasync=False): clears busy, the phase flag, the
                    accumulator and the latched board (in).
    start:          Signal(bool): latch the board and start on this edge (in).
    black, white:   Signal(intbv[64]) board (in, read on the start edge only).
    white_to_move:  Signal(bool), side to move = own (in, read on the start edge only).
    done:           Signal(bool), high in cycle 1 after the start edge (cycle 0 being the first
                    cycle after it), for one cycle (out).
    stage:          Signal(intbv[2]), the stage of the latched board: the
                    number of the weight file's stage limits below its disc count (out).
    value:          Signal(intbv(0, min=-256, max=256)), the sum of the 38 instances' weights in
                    the stage's tables, saturated to -256..255, in quarter discs (out; valid
                    from the done cycle until the next start). A finished board is not told
                    apart: its value is the weights' sum too (the engine's terminal value comes
                    from its move checkers).
    weights:        golden.patterns.PatternWeights (conversion time; None: the committed file).
    """
    if weights is None:
        from golden.patterns import default_weights   # ROM content only; see the module docstring

        weights = default_weights()
    from golden.patterns import PATTERN_NAMES   # the order of a stage's tables in the weight file

    stages = len(weights.stage_limits) + 1
    if stages > 1 << STAGE_BITS:
        raise ValueError(f"the pattern evaluator holds up to {1 << STAGE_BITS} stages, the weight file has {stages}")
    own_in = Signal(intbv(0)[SQUARES:])
    opp_in = Signal(intbv(0)[SQUARES:])
    own = Signal(intbv(0)[SQUARES:])
    opp = Signal(intbv(0)[SQUARES:])
    occupied = Signal(intbv(0)[SQUARES:])
    discs = Signal(intbv(0, min=0, max=SQUARES + 1))
    busy = Signal(bool(0))
    first = Signal(bool(0))
    accumulated = wide_signal(SUM_WIDTH)
    phase_a_sum = wide_signal(SUM_WIDTH)
    phase_b_sum = wide_signal(SUM_WIDTH)
    total = wide_signal(SUM_WIDTH)

    cells = [popcount(occupied, discs), stage_of(discs, tuple(weights.stage_limits), stage)]
    phase_terms = {"a": {}, "b": {}}     # phase -> slot number -> signed weight of the board's stage
    for pattern in PATTERN_WALKS:
        instances = instance_squares(pattern)
        width = address_width(pattern)
        indexes = {}     # instance number -> its index (dicts: a list of Signals would be a memory)
        for number, squares in enumerate(instances):
            # phase A instances are addressed from the inputs (read on the start edge), phase B
            # instances from the latched board (read on the edge after)
            own_board, opp_board = (own_in, opp_in) if number < PORTS_PER_ROM else (own, opp)
            index = Signal(intbv(0)[width:])
            cells.append(ternary_index(digits_of(own_board, squares), digits_of(opp_board, squares), index))
            indexes[number] = index
        addresses = {}
        for port in range(PORTS_PER_ROM):
            if len(instances) > PORTS_PER_ROM:
                address = Signal(intbv(0)[width:])
                cells.append(address_select(start, indexes[port], indexes[port + PORTS_PER_ROM], address))
            else:
                address = indexes[port]
            addresses[port] = address
        table_number = PATTERN_NAMES.index(pattern)
        codes = {(number, port): Signal(intbv(0)[WEIGHT_BITS:]) for number in range(stages)
                 for port in range(PORTS_PER_ROM)}
        for number in range(stages):
            content = weight_codes(weights.tables[number][table_number])
            cells.append(weight_rom(clk, addresses[0], addresses[1], codes[(number, 0)], codes[(number, 1)], content,
                                    f"weights_{pattern}_stage{number}"))
        for port in range(PORTS_PER_ROM):
            picked = codes[(stages - 1, port)]
            for number in reversed(range(stages - 1)):
                link = Signal(intbv(0)[WEIGHT_BITS:])
                cells.append(stage_code(stage, number, codes[(number, port)], picked, link))
                picked = link
            weight = wide_signal(SUM_WIDTH)
            cells.append(signed_weight(picked, weight))
            phase_terms["a"][len(phase_terms["a"])] = weight
            if len(instances) > PORTS_PER_ROM:
                # the same port answers for phase B in cycle 1, and phase B's sum reads it then
                phase_terms["b"][len(phase_terms["b"])] = weight
    cells += [sum_terms(phase_terms["a"], phase_a_sum), sum_terms(phase_terms["b"], phase_b_sum),
              saturated(total, value)]

    @always_comb
    def select_sides():
        if white_to_move:
            own_in.next = white
            opp_in.next = black
        else:
            own_in.next = black
            opp_in.next = white

    @always_comb
    def occupy():
        occupied.next = own | opp

    @always_seq(clk.posedge, reset=rst)
    def control():
        first.next = start
        if start:
            busy.next = 1
            own.next = own_in
            opp.next = opp_in
        elif busy and not first:
            busy.next = 0
        if first:
            accumulated.next = phase_a_sum

    @always_comb
    def add_phases():
        total.next = accumulated + phase_b_sum

    @always_comb
    def detect_done():
        done.next = busy and not first

    return cells, select_sides, occupy, control, add_phases, detect_done

