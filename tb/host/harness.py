"""Batch harnesses: the simulator reads a whole file of stimulus and writes a file of responses.

Driving one vector per ``await`` from Python costs a scheduler round trip per vector (10-20k
vectors/s here). A harness instead wraps the converted block, reads ``batch_in.txt`` (one line
of hex fields per vector, in port order) when ``go`` rises, applies every vector in HDL time,
writes the outputs to ``batch_out.txt`` and pulses ``ready``. Python then compares the whole
batch against the golden model at once, so the simulator runs at its own speed while each
mismatch is still one named vector.

Two kinds, chosen by the block's ports:

* combinational blocks: per vector, apply the inputs, wait 1 ns, write one line of outputs;
* start/done blocks (``clk``, ``rst``, ``start``, ``done``): reset at the start of a batch;
  per vector apply the inputs with ``start`` for one clock edge, then write one line per
  cycle, ``cycle`` first, up to and including the first cycle with ``done`` high (or
  ``MAX_CYCLES``, which the bench reports as a hang); then IDLE_GAPS[k % 8] cycles without
  ``start``, each written only if ``done`` is high in it (cycle field IDLE_MARK + i).

* request/reply blocks (``clk``, ``rst`` and a reply pulse ``valid`` or ``rd_valid``, like the
  chess blocks): reset at the start of a batch; per vector apply every input, the request pulses
  (``start``, ``next_req``, ``rd_*`` commands) included, for one clock edge, clear the pulses,
  then write ONE line, ``cycle`` (clock edges since the request edge, that one counted) first,
  at the first cycle with the reply pulse high (or ``MAX_CYCLES``, a hang). A block with a
  ``busy`` output gets one more field last, ``busy_low``: the number of cycles before that
  line's cycle in which ``busy`` was low (0 when busy covers the whole request).

Each batch first drives every input to all ones and back to zero: MyHDL converts combinational
logic to ``always @(a, b, ...)`` blocks, which Icarus runs only when an input changes, not at
time 0, so a block whose inputs never changed would show stale outputs in the first vectors.

The same harness is generated in Verilog (Icarus, Verilator with ``--timing``) and in VHDL-2008
(GHDL, std.textio), so all three simulators run exactly the same stimulus files.
"""

import re

from tb.checks.responses import IDLE_GAPS, IDLE_MARK, MAX_CYCLES  # noqa: F401 (the response format, re-exported)
from tb.host.hdl_text import (CONTROL_PORTS, HALF_PERIOD_NS, RESET_RELEASE_NS, clocked_harness_name,  # noqa: F401 (re-exported)
                              digits, vhdl_ones, vhdl_type, vhdl_zero, vhdl_zero_literal, vrange)
from tb.host.search_harness import vhdl_search_harness, verilog_search_harness
from tb.checks.processor import JOB_LOG, job_log_fields, job_worker

IN_FILE = "batch_in.txt"
OUT_FILE = "batch_out.txt"
COUNT_FILE = "batch_count.txt"   # the number of vectors in IN_FILE (for the Verilog combinational harness)
# The Verilog combinational harness also reads its stimulus in binary (tb/sim/fastfuzz.py): when the
# count file says "<count> 1", from BIN_FILE with one $fread, every field one word of its stimulus
# memory (stimulus_width bits, rounded up to whole bytes, big-endian): no hex to parse.
BIN_FILE = "batch_in.bin"
MAX_BATCH = 16384                # vectors in one batch, at most


def _verilog_gap(index):
    """IDLE_GAPS[index % 8] as a Verilog expression."""
    terms = " : ".join(f"({index} % {len(IDLE_GAPS)} == {i}) ? {g}" for i, g in enumerate(IDLE_GAPS[:-1]))
    return f"({terms} : {IDLE_GAPS[-1]})"
REPLY_PORTS = ("valid", "rd_valid")
PULSE_PORTS = ("start", "next_req", "rd_init", "rd_push", "rd_pop")
BUSY_PORT = "busy"  # request/reply blocks: its low cycles between the request and the reply line are counted


def busy_port(ports):
    """The ``busy`` output of a request/reply block, or None."""
    return BUSY_PORT if reply_port(ports) and any(n == BUSY_PORT and d == "out" for n, _, d in ports) else None


def harness_name(design):
    return f"batch_{design}"


# What Python touches of a batch harness (tb.sim.batch.BatchTB): its handshake, nothing else.
BATCH_VISIBLE = ("go", "ready")


def verilator_visibility(module, variables=("*",)):
    """A Verilator configuration file that makes only ``variables`` of ``module`` visible to
    cocotb (built with --no-public-flat-rw: every signal of the design public makes the model
    several times slower, and a harness is all a bench touches). A batch harness shows only
    BATCH_VISIBLE: its registers driving the block public cost the flipper's harness about a
    fifth of its speed on Verilator."""
    return "`verilator_config\n" + "".join(f'public_flat_rw -module "{module}" -var "{v}"\n' for v in variables)


# A mutant build's selector register (gamechip mutate: a schemata conversion or a netlist wrapper)
MUTANT_SELECTOR = "MUTSEL"
_SELECTOR_REGISTER = re.compile(rf"^reg (\[\d+:0\] )?{MUTANT_SELECTOR} = 0;$", re.M)


def _and_selector(config, design, verilog):
    """``config``, and where ``design``'s Verilog (its text) is a mutant build, its selector
    visible too: a group of mutants is judged in one run, the bench writing the selector
    between batches or tests (tb.sim.batch check_group, each_mutant)."""
    if _SELECTOR_REGISTER.search(verilog):
        config += f'public_flat_rw -module "{design}" -var "{MUTANT_SELECTOR}"\n'
    return config


def batch_visibility(design, verilog):
    """The batch harness's Verilator configuration (see _and_selector)."""
    return _and_selector(verilator_visibility(harness_name(design), BATCH_VISIBLE), design, verilog)


def clocked_visibility(design, verilog):
    """The HDL-clocked harness's Verilator configuration (see _and_selector)."""
    return _and_selector(verilator_visibility(clocked_harness_name(design)), design, verilog)


def _is_sequential(ports):
    return any(name == "clk" for name, _, _ in ports)


def reply_port(ports):
    """The reply pulse of a request/reply block, or None."""
    return next((n for n, _, d in ports if d == "out" and n in REPLY_PORTS), None)


def _control_ports(ports):
    return ("clk", "rst") if reply_port(ports) else CONTROL_PORTS


def _data_ports(ports, direction):
    control = _control_ports(ports)
    return [(n, w) for n, w, d in ports if d == direction and n not in control]


def stimulus_width(ports):
    """Bits of one word of a combinational harness's stimulus memory: its widest input."""
    return max(w for _, w in _data_ports(ports, "in"))


def verilog_harness(design, ports):
    """Verilog text of the batch harness for ``design`` with ``ports`` [(name, width, dir)]."""
    inputs, outputs = _data_ports(ports, "in"), _data_ports(ports, "out")
    sequential = _is_sequential(ports)
    decls = [f"  reg {vrange(w)}{n} = 0;" for n, w in inputs]
    decls += [f"  wire {vrange(w)}{n};" for n, w in outputs]
    reply = reply_port(ports)
    if sequential:
        decls += [f"  reg {n} = 0;" for n in _control_ports(ports)]
    connections = ", ".join(f".{n}({n})" for n, _, _ in ports)
    prime = "\n".join(
        [f"    {n} = {{{w}{{1'b1}}}};" for n, w in inputs] + ["    #1;"]
        + [f"    {n} = 0;" for n, _ in inputs] + ["    #1;"])
    scan_format = " ".join(["%h"] * len(inputs))
    scan = f'n = $fscanf(fin, "{scan_format}\\n", {", ".join(n for n, _ in inputs)});'
    out_names = [n for n, _ in outputs]
    pulses = [n for n, _ in inputs if n in PULSE_PORTS]
    if reply:
        busy = busy_port(ports)
        shown = out_names + (["busy_low"] if busy else [])
        count_busy = f"if (!{busy}) busy_low = busy_low + 1; " if busy else ""
        body = f"""\
    rst = 1; tick; tick; rst = 0;
    {scan}
    while (n == {len(inputs)}) begin
      tick; {" ".join(f"{p} = 0;" for p in pulses)}
      cycle = 1; finished = 0; busy_low = 0;
      while (!finished) begin
        #1;
        if ({reply} || cycle == {MAX_CYCLES}) begin
          $fdisplay(fout, "%h {' '.join(['%h'] * len(shown))}", cycle, {", ".join(shown)});
          finished = 1;
        end
        else begin {count_busy}tick; cycle = cycle + 1; end
      end
      {scan}
    end"""
    elif sequential:
        body = f"""\
    rst = 1; tick; tick; rst = 0; vec = 0;
    {scan}
    while (n == {len(inputs)}) begin
      start = 1; tick; start = 0;
      cycle = 0; finished = 0;
      while (!finished) begin
        #1;
        $fdisplay(fout, "%h {' '.join(['%h'] * len(out_names))}", cycle, {", ".join(out_names)});
        if (done || cycle == {MAX_CYCLES - 1}) finished = 1;
        else begin tick; cycle = cycle + 1; end
      end
      for (cycle = 0; cycle < {_verilog_gap("vec")}; cycle = cycle + 1) begin
        tick; #1;
        if (done) $fdisplay(fout, "%h {' '.join(['%h'] * len(out_names))}", {IDLE_MARK} + cycle, {", ".join(out_names)});
      end
      vec = vec + 1;
      {scan}
    end"""
    else:
        # $readmemh fills a memory from the whole stimulus file at once (each whitespace-separated
        # field to the next word), far faster than a $fscanf per vector in Verilator
        fields = len(inputs)
        apply = " ".join(f"{n} = stimulus[k * {fields} + {j}];" for j, (n, _) in enumerate(inputs))
        body = f"""\
    fcount = $fopen("{COUNT_FILE}", "r");
    binary = 0;
    n = $fscanf(fcount, "%d %d", count, binary);
    $fclose(fcount);
    if (count > 0 && binary) begin
      fbin = $fopen("{BIN_FILE}", "rb");
      n = $fread(stimulus, fbin, 0, count * {fields});
      $fclose(fbin);
    end
    else if (count > 0) $readmemh("{IN_FILE}", stimulus, 0, count * {fields} - 1);
    for (k = 0; k < count; k = k + 1) begin
      {apply}
      #1;
      $fdisplay(fout, "{' '.join(['%h'] * len(out_names))}", {", ".join(out_names)});
    end"""
    tick = (
        f"  task tick; begin #{HALF_PERIOD_NS - 1} clk = 1; #{HALF_PERIOD_NS} clk = 0; end endtask\n"
        if sequential
        else ""
    )
    if not sequential:
        decls += [f"  reg {vrange(stimulus_width(ports))}stimulus [0:{MAX_BATCH * len(inputs) - 1}];",
                  "  integer fcount, count, k, binary, fbin;"]
    return f"""\
// Generated by tb/host/harness.py: batch harness around {design}. Do not edit.
`timescale 1ns/1ps
module {harness_name(design)}(input wire go, output reg ready);
{chr(10).join(decls)}
  integer fin, fout, n, cycle, finished, vec, busy_low;
  {design} dut({connections});
{tick}  initial ready = 0;
  always @(posedge go) begin
    fin = $fopen("{IN_FILE}", "r");
    fout = $fopen("{OUT_FILE}", "w");
{prime}
{body}
    $fclose(fin);
    $fclose(fout);
    ready = 1; #1 ready = 0;
  end
endmodule
"""


def vhdl_harness(design, ports, signed_ports=()):
    """VHDL-2008 text of the same harness (MyHDL maps bool to std_logic, intbv to unsigned, or
    to signed when its range is negative: ``signed_ports``). Fields are raw two's complement."""
    inputs, outputs = _data_ports(ports, "in"), _data_ports(ports, "out")
    sequential = _is_sequential(ports)
    signals = [f"  signal {n} : {vhdl_type(w, n in signed_ports)} := {vhdl_zero(w)};" for n, w in inputs + outputs]
    reply = reply_port(ports)
    if sequential:
        signals += [f"  signal {n} : std_logic := '0';" for n in _control_ports(ports)]
    variables = [f"    variable f_{n} : std_logic_vector({digits(w) - 1} downto 0);" for n, w in inputs + outputs]
    reads = []
    for n, w in inputs:
        kind = "signed" if n in signed_ports else "unsigned"
        value = f"f_{n}(0)" if w == 1 else f"{kind}(f_{n}({w - 1} downto 0))"
        reads.append(f"        hread(lin, f_{n}); {n} <= {value};")
    writes = []
    for i, (n, w) in enumerate(outputs):
        value = f"std_logic_vector(resize(unsigned'(\"\" & {n}), {digits(w)}))" if w == 1 else (
            f"std_logic_vector(resize(unsigned(std_logic_vector({n})), {digits(w)}))")
        sep = "" if i == 0 and not sequential else "write(lout, ' '); "
        writes.append(f"        f_{n} := {value}; {sep}hwrite(lout, f_{n});")
    tick = f"wait for {HALF_PERIOD_NS - 1} ns; clk <= '1'; wait for {HALF_PERIOD_NS} ns; clk <= '0';"
    pulses = [n for n, _ in inputs if n in PULSE_PORTS]
    if reply:
        busy = busy_port(ports)
        busy_write = ("\n              write(lout, ' '); hwrite(lout, std_logic_vector(to_unsigned(busy_low, 32)));"
                      if busy else "")
        count_busy = f"if {busy} = '0' then busy_low := busy_low + 1; end if;\n          " if busy else ""
        per_vector = f"""\
        {tick} {" ".join(f"{p} <= '0';" for p in pulses)}
        busy_low := 0;
        for cycle in 1 to {MAX_CYCLES} loop
          wait for 1 ns;
          if {reply} = '1' or cycle = {MAX_CYCLES} then
            hwrite(lout, std_logic_vector(to_unsigned(cycle, 8)));
{chr(10).join("    " + w for w in writes)}{busy_write}
            writeline(fout, lout);
            exit;
          end if;
          {count_busy}{tick}
        end loop;"""
        reset = f"      rst <= '1'; {tick} {tick} rst <= '0';\n"
    elif sequential:
        per_vector = f"""\
        start <= '1'; {tick} start <= '0';
        for cycle in 0 to {MAX_CYCLES - 1} loop
          wait for 1 ns;
          hwrite(lout, std_logic_vector(to_unsigned(cycle, 8)));
{chr(10).join("  " + w for w in writes)}
          writeline(fout, lout);
          exit when done = '1';
          {tick}
        end loop;
        for idle in 0 to idle_gaps(vec mod {len(IDLE_GAPS)}) - 1 loop
          {tick}
          wait for 1 ns;
          if done = '1' then
            hwrite(lout, std_logic_vector(to_unsigned({IDLE_MARK} + idle, 8)));
{chr(10).join("    " + w for w in writes)}
            writeline(fout, lout);
          end if;
        end loop;
        vec := vec + 1;"""
        reset = f"      rst <= '1'; {tick} {tick} rst <= '0';\n"
    else:
        per_vector = f"""\
        wait for 1 ns;
{chr(10).join(writes)}
        writeline(fout, lout);"""
        reset = ""
    port_map = ", ".join(f"{n} => {n}" for n, _, _ in ports)
    prime = "\n".join(
        [f"      {n} <= {vhdl_ones(w)};" for n, w in inputs] + ["      wait for 1 ns;"]
        + [f"      {n} <= {vhdl_zero(w)};" for n, w in inputs] + ["      wait for 1 ns;"])
    return f"""\
-- Generated by tb/host/harness.py: batch harness around {design}. Do not edit.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use std.textio.all;

entity {harness_name(design)} is
  port (go : in std_logic; ready : out std_logic);
end entity;

architecture sim of {harness_name(design)} is
{chr(10).join(signals)}
begin
  dut : entity work.{design} port map ({port_map});

  batch : process
    file fin, fout : text;
    variable lin, lout : line;
{chr(10).join(variables)}
    type gap_table is array (0 to {len(IDLE_GAPS) - 1}) of natural;
    constant idle_gaps : gap_table := ({", ".join(map(str, IDLE_GAPS))});
    variable vec : natural := 0;
    variable busy_low : natural := 0;
  begin
    ready <= '0';
    loop
      wait until rising_edge(go);
      vec := 0;
      file_open(fin, "{IN_FILE}", read_mode);
      file_open(fout, "{OUT_FILE}", write_mode);
{prime}
{reset}      while not endfile(fin) loop
        readline(fin, lin);
        next when lin'length = 0;
{chr(10).join(reads)}
{per_vector}
      end loop;
      file_close(fin);
      file_close(fout);
      ready <= '1';
      wait for 1 ns;
      ready <= '0';
    end loop;
  end process;
end architecture;
"""


# Benches that drive a design's own pins at bit or message level (the UART's lines, the
# processor's referee protocol) need no per-cycle Python: their clocked harness only makes the
# clock in HDL and passes every other port through, so Python still writes rst and the inputs
# and awaits the outputs' edges (and ``clk``'s, where a bench acts between two edges).
PORT_CLOCKED_DESIGNS = ("uart", "processor", "processor_c2", "processor_pattern", "board_ulx3s", "search_k2",
                        "search_k3", "processor_k2", "processor_k3")


def has_clocked_harness(design):
    return design in ("search", "search_pattern", "evaluator_axi") + PORT_CLOCKED_DESIGNS


def clocked_harness_sources(design, ports, signed_ports=()):
    """``{file name: text}`` of ``design``'s HDL-clocked harness (Verilog, and VHDL where the
    design has one: the AXI replay harness is Verilog only, GHDL runs the peripheral under
    cocotbext-axi's master)."""
    name = clocked_harness_name(design)
    if design == "evaluator_axi":
        return {f"{name}.v": verilog_axi_replay_harness(design)}
    if design in PORT_CLOCKED_DESIGNS:
        return {f"{name}.v": verilog_clock_harness(design, ports, signed_ports),
                f"{name}.vhd": vhdl_clock_harness(design, ports, signed_ports)}
    return {f"{name}.v": verilog_search_harness(design, ports, signed_ports),
            f"{name}.vhd": vhdl_search_harness(design, ports, signed_ports)}


def verilog_clock_harness(design, ports, signed_ports=()):
    """Verilog (Icarus, Verilator with --timing): ``design`` with its clock made here and every
    other port a port of the harness; ``clk`` an output, for benches that act on its edges. The
    clock rises at 10, 20, 30 ns ..., as cocotb's Clock does, but not at 0: there the bench has
    not yet written rst, and an edge with rst undriven puts Icarus's flip-flops at X (the UART's
    rx_frame_error pulsed at 0 ns). The timescale is MyHDL's: the UART bench places rx levels
    on its 10 ps grid."""
    header = ["output reg clk" if n == "clk" else
              f"{'input' if d == 'in' else 'output'} wire {'signed ' if n in signed_ports else ''}{vrange(w)}{n}"
              for n, w, d in ports]
    connections = ", ".join(f".{n}({n})" for n, _, _ in ports)
    return f"""\
// Generated by tb/host/harness.py: HDL clock around {design}, its other ports passed through. Do not edit.
`timescale 1ns/10ps
module {clocked_harness_name(design)}({", ".join(header)});
  initial begin
    clk = 0;
    #{2 * HALF_PERIOD_NS};
    forever begin clk = 1; #{HALF_PERIOD_NS}; clk = 0; #{HALF_PERIOD_NS}; end
  end
  {design} dut({connections});
{verilog_job_log(ports)}endmodule
"""


def has_job_port(ports):
    """A design with a job port (rtl/processor.py JOB_PORTS: the processor with two contexts; the
    K-engine splitter's, rtl/designs.py k_job_ports)."""
    return any(name == "job_event" for name, _, _ in ports)


def ports_job_log_fields(ports):
    """The job log's fields of a design with a job port, its worker field (context or engine) the design's."""
    return job_log_fields(job_worker([name for name, _, _ in ports]))


def verilog_job_log(ports):
    """The job log of a design with a job port (else nothing): one line of JOB_LOG per clock in
    which ``job_event`` is set, taken at the falling edge (the clock's settled values): the rising
    edges so far in decimal, then the job log's fields in hex (tb.checks.processor ``parse_job_log``).
    Flushed line by line: the bench reads the file while the simulation runs."""
    if not has_job_port(ports):
        return ""
    names = ports_job_log_fields(ports)
    fields = ", ".join(names)
    return f"""\
  integer job_log;
  reg [31:0] job_clock;
  initial begin job_clock = 0; job_log = $fopen("{JOB_LOG}", "w"); end
  always @(posedge clk) job_clock <= job_clock + 1;
  always @(negedge clk) if ({names[0]} != 0) begin
    $fwrite(job_log, "%0d{" %h" * len(names)}\\n", job_clock, {fields});
    $fflush(job_log);
  end
"""


def vhdl_job_log(ports, signed_ports):
    """VHDL-2008 of :func:`verilog_job_log`; GHDL's textio has no flush, so each line is appended
    to a file opened and closed for it (a few lines a search)."""
    if not has_job_port(ports):
        return ""
    widths = {n: w for n, w, _ in ports}
    writes = []
    names = ports_job_log_fields(ports)
    for name in names:
        width = widths[name]
        bits = f"unsigned'(\"\" & {name})" if width == 1 else f"unsigned(std_logic_vector({name}))"
        writes.append(f"        write(lout, ' '); hwrite(lout, std_logic_vector(resize({bits}, {digits(width)})));")
    return f"""
  job_log : process
    file fjob : text;
    variable lout : line;
    variable clock : natural := 0;
  begin
    file_open(fjob, "{JOB_LOG}", write_mode);
    file_close(fjob);
    loop
      wait until rising_edge(hdl_clk);
      clock := clock + 1;
      wait until falling_edge(hdl_clk);
      if {names[0]} /= 0 then
        write(lout, clock);
{chr(10).join(writes)}
        file_open(fjob, "{JOB_LOG}", append_mode);
        writeline(fjob, lout);
        file_close(fjob);
      end if;
    end loop;
  end process;
"""


def vhdl_clock_harness(design, ports, signed_ports=()):
    """VHDL-2008 (GHDL) of the same harness."""
    decls = ["clk : out std_logic" if n == "clk" else f"{n} : {d} {vhdl_type(w, n in signed_ports)}"
             for n, w, d in ports]
    port_map = ", ".join(f"{n} => {'hdl_clk' if n == 'clk' else n}" for n, _, _ in ports)
    return f"""\
-- Generated by tb/host/harness.py: HDL clock around {design}, its other ports passed through. Do not edit.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
{"use std.textio.all;" + chr(10) if has_job_port(ports) else ""}
entity {clocked_harness_name(design)} is
  port ({"; ".join(decls)});
end entity;

architecture sim of {clocked_harness_name(design)} is
  signal hdl_clk : std_logic := '0';
begin
  dut : entity work.{design} port map ({port_map});
  clk <= hdl_clk;

  clock : process
  begin
    wait for {2 * HALF_PERIOD_NS} ns;
    loop
      hdl_clk <= '1'; wait for {HALF_PERIOD_NS} ns; hdl_clk <= '0'; wait for {HALF_PERIOD_NS} ns;
    end loop;
  end process;
{vhdl_job_log(ports, signed_ports)}end architecture;
"""


# The AXI4-Lite replay harness: a recorded host's transactions streamed through the peripheral
# at full speed. Python writes AXI_TRANSACTIONS ($readmemh, one 12-digit word per transaction:
# bit 44 write, bits 43..32 address, bits 31..0 data) and toggles ``go`` with ``count``; the
# harness plays them in order as an AXI4-Lite master (one transaction at a time, as the host
# does) and writes one line per response to AXI_RESPONSES (bit 128+ fields packed, see
# tb/sim/axi_stream.py ``parse_response``), then the bus cycles of the run.
AXI_TRANSACTIONS = "axi_transactions.hex"
AXI_RESPONSES = "axi_responses.txt"
AXI_MAX_TRANSACTIONS = 1 << 20
AXI_TRANSACTION_TIMEOUT = 4096   # cycles one transaction may wait for its response (a broken peripheral)
# With the plusarg +AXI_STALLS the master stalls as AXI4-Lite lets it: AWVALID, WVALID (or ARVALID)
# and BREADY (or RREADY) each rise 0-3 cycles into the transaction, independently, from an LFSR;
# so a response is sometimes offered before the master is ready to take it and must be held.
AXI_STALLS = "AXI_STALLS"


def verilog_axi_replay_harness(design):
    """Verilog (Icarus, Verilator with --timing): HDL clock, the replayed master, the log."""
    return f"""\
// Generated by tb/host/harness.py: HDL clock and AXI4-Lite transaction replay around {design}. Do not edit.
`timescale 1ns/1ps
module {clocked_harness_name(design)}(input wire go, input wire [31:0] count, output reg ready, output reg finished);
  reg clk = 0;
  reg rst = 1;
  reg [11:0] s_axil_awaddr = 0; reg s_axil_awvalid = 0; wire s_axil_awready;
  reg [31:0] s_axil_wdata = 0; reg [3:0] s_axil_wstrb = 4'hf; reg s_axil_wvalid = 0; wire s_axil_wready;
  wire [1:0] s_axil_bresp; wire s_axil_bvalid; reg s_axil_bready = 0;
  reg [11:0] s_axil_araddr = 0; reg s_axil_arvalid = 0; wire s_axil_arready;
  wire [31:0] s_axil_rdata; wire [1:0] s_axil_rresp; wire s_axil_rvalid; reg s_axil_rready = 0;
  reg [47:0] transactions [0:{AXI_MAX_TRANSACTIONS - 1}];
  reg [47:0] entry;
  reg [31:0] index = 0;
  reg [31:0] waited = 0;
  reg [63:0] cycles = 0;
  reg running = 0;
  reg busy = 0;
  integer fout = 0;
  reg stalls;   // no initialiser: it could run after the initial block below and clear it
  reg [15:0] lfsr = 16'hACE1;
  reg [1:0] aw_wait = 0, w_wait = 0, resp_wait = 0;   // cycles before each signal rises (stalls)
  reg aw_due = 0, w_due = 0, resp_due = 0;             // still to rise in this transaction
  initial stalls = $test$plusargs("{AXI_STALLS}");
  {design} dut(.clk(clk), .rst(rst),
    .s_axil_awaddr(s_axil_awaddr), .s_axil_awvalid(s_axil_awvalid), .s_axil_awready(s_axil_awready),
    .s_axil_wdata(s_axil_wdata), .s_axil_wstrb(s_axil_wstrb), .s_axil_wvalid(s_axil_wvalid),
    .s_axil_wready(s_axil_wready), .s_axil_bresp(s_axil_bresp), .s_axil_bvalid(s_axil_bvalid),
    .s_axil_bready(s_axil_bready), .s_axil_araddr(s_axil_araddr), .s_axil_arvalid(s_axil_arvalid),
    .s_axil_arready(s_axil_arready), .s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp),
    .s_axil_rvalid(s_axil_rvalid), .s_axil_rready(s_axil_rready));

  initial begin ready = 0; finished = 0; end
  always begin clk = 1; #{HALF_PERIOD_NS}; clk = 0; #{HALF_PERIOD_NS}; end
  initial begin rst = 1; #{RESET_RELEASE_NS}; rst = 0; #{HALF_PERIOD_NS}; ready = 1; end

  // every chunk continues the same bus session: the peripheral keeps its stored path
  always @(go) if (ready) begin
    $readmemh("{AXI_TRANSACTIONS}", transactions, 0, count - 1);
    fout = $fopen("{AXI_RESPONSES}", "w");
    index = 0; cycles = 0; busy = 0; finished = 0; running = 1;
  end

  // handshakes happen at the rising edge: sample them there, act on them at the falling edge
  reg aw_hs = 0, w_hs = 0, ar_hs = 0, b_hs = 0, r_hs = 0;
  reg aw_seen = 0, w_seen = 0, ar_seen = 0;   // this transaction's address/data handshakes so far
  reg [135:0] b_line = 0;
  reg [35:0] r_line = 0;
  always @(posedge clk) begin
    aw_hs = s_axil_awvalid && s_axil_awready;
    w_hs = s_axil_wvalid && s_axil_wready;
    ar_hs = s_axil_arvalid && s_axil_arready;
    b_hs = s_axil_bvalid && s_axil_bready;
    r_hs = s_axil_rvalid && s_axil_rready;
    // the response, and the board the evaluator latched (the rebuild of a changeboard); the top
    // bit flags a response that came before the AW and W (or AR) handshakes: a protocol error
    if (b_hs) b_line = {{!(aw_seen && w_seen), 1'b0, s_axil_bresp, 3'b0, dut.eval_wtm, dut.eval_black, dut.eval_white}};
    if (r_hs) r_line = {{!ar_seen, 1'b0, s_axil_rresp, s_axil_rdata}};
    aw_seen = aw_seen || aw_hs; w_seen = w_seen || w_hs; ar_seen = ar_seen || ar_hs;
  end

  always @(negedge clk) if (running) begin
    cycles = cycles + 1;
    if (busy) begin
      if (aw_hs) s_axil_awvalid = 0;
      if (w_hs) s_axil_wvalid = 0;
      if (ar_hs) s_axil_arvalid = 0;
      if (b_hs) begin $fwrite(fout, "%h\\n", b_line); s_axil_bready = 0; busy = 0; index = index + 1; end
      if (r_hs) begin $fwrite(fout, "%h\\n", r_line); s_axil_rready = 0; busy = 0; index = index + 1; end
      aw_hs = 0; w_hs = 0; ar_hs = 0; b_hs = 0; r_hs = 0;
      if (busy && aw_due) begin
        if (aw_wait == 0) begin aw_due = 0; if (entry[44]) s_axil_awvalid = 1; else s_axil_arvalid = 1; end
        else aw_wait = aw_wait - 1;
      end
      if (busy && w_due) begin
        if (w_wait == 0) begin w_due = 0; s_axil_wvalid = 1; end else w_wait = w_wait - 1;
      end
      if (busy && resp_due) begin
        if (resp_wait == 0) begin resp_due = 0; if (entry[44]) s_axil_bready = 1; else s_axil_rready = 1; end
        else resp_wait = resp_wait - 1;
      end
      waited = waited + 1;
      if (busy && waited > {AXI_TRANSACTION_TIMEOUT}) begin
        $fwrite(fout, "T %h\\n", index);
        $fclose(fout); fout = 0; running = 0; finished = 1; busy = 0;
      end
    end
    if (running && !busy) begin
      waited = 0;
      if (index >= count) begin
        $fwrite(fout, "C %h\\n", cycles);
        $fclose(fout); fout = 0; running = 0; finished = 1;
      end else begin
        entry = transactions[index];
        aw_seen = 0; w_seen = 0; ar_seen = 0;
        if (entry[44]) begin
          s_axil_awaddr = entry[43:32]; s_axil_wdata = entry[31:0];
        end else begin
          s_axil_araddr = entry[43:32];
        end
        if (stalls) begin
          lfsr = {{lfsr[9:0], lfsr[15:10] ^ lfsr[13:8] ^ lfsr[12:7] ^ lfsr[10:5]}};
          aw_wait = lfsr[1:0]; w_wait = lfsr[3:2]; resp_wait = lfsr[5:4];
        end else begin
          aw_wait = 0; w_wait = 0; resp_wait = 0;
        end
        // the address (read or write) valid, the write data valid, the response ready: each now
        // or after its wait
        aw_due = 1; w_due = entry[44]; resp_due = 1;
        if (aw_wait == 0) begin aw_due = 0; if (entry[44]) s_axil_awvalid = 1; else s_axil_arvalid = 1; end
        if (w_due && w_wait == 0) begin w_due = 0; s_axil_wvalid = 1; end
        if (resp_wait == 0) begin resp_due = 0; if (entry[44]) s_axil_bready = 1; else s_axil_rready = 1; end
        busy = 1;
      end
    end
  end
endmodule
"""
