"""The adaptive evaluator as an AXI4-Lite slave (docs/spec.md §10): the peripheral of the co-design.

Register map, refusals and the rebuild of co-design seed eq. 4-7: golden/host/peripheral.py (the
bus-level model every read of the bench is checked against). In short: a whole-board window
0x000-0x00C (commit at 0x00C, black to move, or 0x01C, white to move), RESULT 0x020 (bit 31
VALID, bits 15..0 the signed value), STATUS 0x024 (depth, refused flag and reason), and the
changeboard window 0x100 + 0x80*side + 8*k + 4*word, ``k`` the depth difference to the parent.
The ancestor memory holds depths 0..16. ``wstrb`` is ignored: every write is a whole word.

Timing: a write is accepted in the cycle both AW and W are valid and no response is waiting
(``awready``/``wready`` follow the valids); its response comes the next cycle. A read is
accepted when no read response is waiting; RESULT read while the evaluator is busy is answered
when its value is ready (the evaluator runs a few cycles after every commit).
"""

from myhdl import Signal, always_comb, always_seq, block, concat, intbv

from rtl.evaluator import DEFAULT, evaluator

DEPTHS = 17          # ancestor memory: depths 0..16
OKAY, SLVERR = 0, 2
# refusal reasons (golden/host/peripheral.py REASONS)
UNMAPPED, NO_BOARD, ABOVE_ROOT, PAST_MEMORY, NO_LOW_WORD, WRITE_ONLY, NOT_COMMITTED, OVERLAP = 1, 2, 3, 4, 5, 6, 7, 8


@block
def evaluator_axi(clk, rst,
                  s_axil_awaddr, s_axil_awvalid, s_axil_awready,
                  s_axil_wdata, s_axil_wstrb, s_axil_wvalid, s_axil_wready,
                  s_axil_bresp, s_axil_bvalid, s_axil_bready,
                  s_axil_araddr, s_axil_arvalid, s_axil_arready,
                  s_axil_rdata, s_axil_rresp, s_axil_rvalid, s_axil_rready,
                  weights=DEFAULT):
    """AXI4-Lite slave around the adaptive evaluator.

    clk:            Signal(bool) clock (in).
    rst:            ResetSignal(0, active=1, isasync=False) (in): no board, no result.
    s_axil_aw*:     write address channel: awaddr Signal(intbv[12]) (in), awvalid (in),
                    awready (out).
    s_axil_w*:      write data channel: wdata Signal(intbv[32]) (in), wstrb Signal(intbv[4])
                    (in, ignored), wvalid (in), wready (out).
    s_axil_b*:      write response: bresp Signal(intbv[2]) (out, 0 OKAY, 2 SLVERR), bvalid
                    (out), bready (in).
    s_axil_ar*:     read address: araddr Signal(intbv[12]) (in), arvalid (in), arready (out).
    s_axil_r*:      read data: rdata Signal(intbv[32]) (out), rresp Signal(intbv[2]) (out),
                    rvalid (out), rready (in).
    weights:        the evaluator's :class:`rtl.evaluator.Weights` (elaboration-time).
    """
    mem_black = [Signal(intbv(0)[64:]) for _ in range(DEPTHS)]
    mem_white = [Signal(intbv(0)[64:]) for _ in range(DEPTHS)]
    depth = Signal(intbv(0, min=0, max=DEPTHS))
    has_board = Signal(bool(0))
    words = [Signal(intbv(0)[32:]) for _ in range(4)]
    low_valid = Signal(bool(0))
    low_side = Signal(bool(0))
    low_k = Signal(intbv(0)[4:])
    low_data = Signal(intbv(0)[32:])
    refused = Signal(intbv(0)[4:])

    eval_black = Signal(intbv(0)[64:])
    eval_white = Signal(intbv(0)[64:])
    eval_wtm = Signal(bool(0))
    eval_start = Signal(bool(0))
    busy = Signal(bool(0))
    result_valid = Signal(bool(0))
    result_value = Signal(intbv(0, min=-256, max=256))

    bvalid = Signal(bool(0))
    bresp = Signal(intbv(0)[2:])
    rvalid = Signal(bool(0))
    rresp = Signal(intbv(0)[2:])
    rdata = Signal(intbv(0)[32:])
    read_waiting = Signal(bool(0))     # a RESULT read waits for the evaluator
    write_go = Signal(bool(0))
    read_go = Signal(bool(0))
    change_k = Signal(intbv(0, min=0, max=DEPTHS))     # the depth difference the address carries
    parent_index = Signal(intbv(0, min=0, max=DEPTHS))
    child_index = Signal(intbv(0, min=0, max=DEPTHS))
    change_bits = Signal(intbv(0)[64:])
    parent_black = Signal(intbv(0)[64:])
    parent_white = Signal(intbv(0)[64:])
    overlap = Signal(bool(0))          # the whole board being committed has a square both black and white
    refused_flag = Signal(bool(0))
    negative = Signal(bool(0))
    status_word = Signal(intbv(0)[32:])
    result_word = Signal(intbv(0)[32:])

    done = Signal(bool(0))
    terminal = Signal(bool(0))
    stage = Signal(intbv(0)[2:])
    small = [Signal(intbv(0)[3:]) for _ in range(4)]
    counts = [Signal(intbv(0)[7:]) for _ in range(6)]
    fixed_value = Signal(intbv(0, min=-256, max=256))
    adaptive_value = Signal(intbv(0, min=-256, max=256))
    core = evaluator(clk, rst, eval_start, eval_black, eval_white, eval_wtm, done, terminal, stage,
                     small[0], small[1], small[2], small[3], counts[0], counts[1], counts[2], counts[3],
                     counts[4], counts[5], fixed_value, adaptive_value, weights=weights)

    @always_comb
    def handshakes():
        write_go.next = s_axil_awvalid and s_axil_wvalid and not bvalid
        read_go.next = s_axil_arvalid and not rvalid and not read_waiting

    @always_comb
    def changeboard():
        change_k.next = concat(False, s_axil_awaddr[7:3])
        change_bits.next = concat(s_axil_wdata, low_data)

    @always_comb
    def parent():
        if change_k <= depth:
            parent_index.next = depth - change_k
        else:
            parent_index.next = 0

    @always_comb
    def parent_board():
        parent_black.next = mem_black[parent_index]
        parent_white.next = mem_white[parent_index]
        if parent_index < DEPTHS - 1:
            child_index.next = parent_index + 1
        else:
            child_index.next = 0

    @always_comb
    def flags():
        refused_flag.next = refused != 0
        overlap.next = (concat(words[1], words[0]) & concat(s_axil_wdata, words[2])) != 0
        negative.next = result_value < 0

    @always_comb
    def words_out():
        status_word.next = concat(intbv(0)[16:], refused, intbv(0)[3:], refused_flag, intbv(0)[3:], depth[5:])
        result_word.next = concat(True, intbv(0)[15:], negative, negative, negative, negative, negative, negative,
                                  negative, result_value[9:])

    @always_comb
    def ports():
        s_axil_awready.next = write_go
        s_axil_wready.next = write_go
        s_axil_arready.next = read_go
        s_axil_bvalid.next = bvalid
        s_axil_bresp.next = bresp
        s_axil_rvalid.next = rvalid
        s_axil_rresp.next = rresp
        s_axil_rdata.next = rdata

    @always_seq(clk.posedge, reset=rst)
    def registers():
        eval_start.next = 0
        if bvalid and s_axil_bready:
            bvalid.next = 0
        if rvalid and s_axil_rready:
            rvalid.next = 0
        if done and busy and not eval_start:
            busy.next = 0
            result_valid.next = 1
            result_value.next = adaptive_value

        if write_go:
            bvalid.next = 1
            bresp.next = OKAY
            address = s_axil_awaddr
            if address == 0x000 or address == 0x004 or address == 0x008 or address == 0x00C or address == 0x01C:
                low_valid.next = 0
                if address == 0x01C:
                    words[3].next = s_axil_wdata
                else:
                    words[int(address[4:2])].next = s_axil_wdata
                if (address == 0x00C or address == 0x01C) and overlap:
                    bresp.next = SLVERR
                    refused.next = OVERLAP
                elif address == 0x00C or address == 0x01C:
                    mem_black[0].next = concat(words[1], words[0])
                    mem_white[0].next = concat(s_axil_wdata, words[2])
                    eval_black.next = concat(words[1], words[0])
                    eval_white.next = concat(s_axil_wdata, words[2])
                    eval_wtm.next = address == 0x01C
                    depth.next = 0
                    has_board.next = 1
                    eval_start.next = 1
                    busy.next = 1
                    result_valid.next = 0
                    refused.next = 0
            elif address[12:8] == 1 and address[2:0] == 0:
                if not address[2]:
                    low_valid.next = 1
                    low_side.next = address[7]
                    low_k.next = address[7:3]
                    low_data.next = s_axil_wdata
                else:
                    low_valid.next = 0
                    if not low_valid or low_side != address[7] or low_k != address[7:3]:
                        bresp.next = SLVERR
                        refused.next = NO_LOW_WORD
                    elif not has_board:
                        bresp.next = SLVERR
                        refused.next = NO_BOARD
                    elif change_k > depth:
                        bresp.next = SLVERR
                        refused.next = ABOVE_ROOT
                    elif parent_index == DEPTHS - 1:
                        bresp.next = SLVERR
                        refused.next = PAST_MEMORY
                    else:
                        if address[7]:   # white moved: white' = white | cb, black' = black & ~cb
                            eval_white.next = parent_white | change_bits
                            eval_black.next = parent_black & ~change_bits
                            mem_white[child_index].next = parent_white | change_bits
                            mem_black[child_index].next = parent_black & ~change_bits
                        else:            # black moved: the mirror
                            eval_black.next = parent_black | change_bits
                            eval_white.next = parent_white & ~change_bits
                            mem_black[child_index].next = parent_black | change_bits
                            mem_white[child_index].next = parent_white & ~change_bits
                        eval_wtm.next = not address[7]
                        depth.next = child_index
                        eval_start.next = 1
                        busy.next = 1
                        result_valid.next = 0
                        refused.next = 0
            else:
                bresp.next = SLVERR
                refused.next = UNMAPPED

        if read_go:
            if s_axil_araddr == 0x020:
                if not has_board:
                    rvalid.next = 1
                    rresp.next = SLVERR
                    rdata.next = 0
                    refused.next = NOT_COMMITTED
                else:
                    read_waiting.next = 1
            elif s_axil_araddr == 0x024:
                rvalid.next = 1
                rresp.next = OKAY
                rdata.next = status_word
            else:
                rvalid.next = 1
                rresp.next = SLVERR
                rdata.next = 0
                if s_axil_araddr < 0x020 or s_axil_araddr[12:8] == 1:
                    refused.next = WRITE_ONLY
                else:
                    refused.next = UNMAPPED
        if read_waiting and result_valid and not busy and not eval_start:
            read_waiting.next = 0
            rvalid.next = 1
            rresp.next = OKAY
            rdata.next = result_word

    return core, handshakes, changeboard, parent, parent_board, flags, words_out, ports, registers
